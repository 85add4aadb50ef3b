//! End-to-end: `sonde trace` on this machine's syscall tracepoints, with `sonde-workload`'s exact
//! syscalls, compared with strace where it is installed (`.ci/run` installs it).

mod common;

use common::trace::{skip, strace, strace_installed, trace};
use common::{sonde, temp_path, workload, Gated, Output};
use std::process::Command;
use std::time::Duration;

/// The lines from the workload's own work on (the loader's differ in nothing, but sonde's `--`
/// command starts from a small shell that execs it), pids made comparable.
fn from_marker(lines: &[String], marker: &str) -> Vec<String> {
    let start = lines.iter().position(|l| l.contains(marker)).expect(marker);
    lines[start..]
        .iter()
        .map(|l| {
            // strace pads short lines to a column before ` = `.
            let (call, ret) = l.rsplit_once(" = ").expect(l);
            let ret = if call.starts_with("getpid(") { "PID" } else { ret };
            format!("{} = {}", call.trim_end(), ret)
        })
        .collect()
}

const WL: &[&str] = &[
    "comm",
    "wl_trace",
    "openat",
    "2",
    "/nonexistent_sonde",
    "openat",
    "1",
    "/etc/hostname",
    "getpid",
    "3",
    "write",
    "2",
    "7",
];

#[test]
fn lines_match_strace_names_returns_errnos_strings_and_flags() {
    if skip() || !strace_installed() {
        return;
    }
    let expr = "openat,getpid,write,close";
    // strace runs with -qq: no `+++ exited with 0 +++`.
    let ours = trace(&["--strace", "-qq", "-e", expr], WL);
    let ours: Vec<String> = ours.lines().iter().map(|s| s.to_string()).collect();
    let theirs = strace(expr, WL);
    let marker = "/nonexistent_sonde";
    assert_eq!(from_marker(&ours, marker), from_marker(&theirs, marker));
    let ours = from_marker(&ours, marker);
    assert_eq!(
        ours[0],
        r#"openat(AT_FDCWD, "/nonexistent_sonde", O_RDONLY) = -1 ENOENT (No such file or directory)"#
    );
    assert_eq!(ours.len(), 2 + 2 + 3 + 1 + 2 + 1, "{ours:#?}");
}

#[test]
fn summary_counts_are_the_workloads_and_strace_cs() {
    if skip() {
        return;
    }
    let out = trace(
        &["-c", "-e", "getpid,openat"],
        &["getpid", "100", "openat", "3", "/nonexistent_sonde"],
    );
    let total = out
        .stdout
        .split(" total,")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", out.describe()))
        .to_string();
    let row = |name: &str| -> Vec<u64> {
        let l = total.lines().find(|l| l.split_whitespace().next() == Some(name)).expect(name);
        l.split_whitespace().skip(1).take(2).map(|n| n.parse().unwrap()).collect()
    };
    assert_eq!(row("getpid"), [100, 0], "{}", out.describe());
    // The loader's failed probes (glibc-hwcaps) come on top of the workload's 3.
    let openat = row("openat");
    assert!(openat[1] >= 3, "{}", out.describe());
    assert!(out.lines().iter().all(|l| !l.contains("getpid()")), "-s prints no lines");
    if strace_installed() {
        let wl = ["getpid", "100", "openat", "3", "/nonexistent_sonde"];
        let theirs = strace_c(&wl, &["getpid", "openat"]);
        assert_eq!(theirs[0], (100, 0));
        assert_eq!(theirs[1], (openat[0], openat[1]), "{}", out.describe());
    }
}

/// strace -c -f's (calls, errors) for each of `names`, for the workload run with `wl`.
fn strace_c(wl: &[&str], names: &[&str]) -> Vec<(u64, u64)> {
    let file = temp_path("strace_c");
    Command::new("strace")
        .args(["-f", "-c", "-o"])
        .arg(&file)
        .arg(workload())
        .args(wl)
        .status()
        .unwrap();
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    // `% time seconds usecs/call calls errors syscall`.
    let calls = |name: &str| -> (u64, u64) {
        let l = text.lines().find(|l| l.split_whitespace().last() == Some(name)).expect(name);
        let f: Vec<&str> = l.split_whitespace().collect();
        let errors = if f.len() == 6 { f[4].parse().unwrap() } else { 0 };
        (f[3].parse().unwrap(), errors)
    };
    names.iter().map(|n| calls(n)).collect()
}

/// `-s` over every syscall is the hand-built pair on the raw tracepoints (one row per thread and
/// syscall, looked up once at each end of a call): the counts and errors are the workload's and
/// strace -c's, each thread has its own rows, and a 60 ms nanosleep in a second thread is timed
/// as one.
#[test]
fn summary_of_every_syscall_counts_each_thread_as_strace_c() {
    if skip() {
        return;
    }
    let wl = [
        "comm",
        "wl_sum",
        "thread-sleep",
        "60",
        "getpid",
        "100",
        "openat",
        "3",
        "/nonexistent_sonde",
        "gettid",
        "7",
    ];
    let out = trace(&["-c", "--json"], &wl);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|o: &serde_json::Value| o["type"] == "trace_summary")
        .map(|o| o["data"].clone())
        .collect();
    let find = |tid: Option<u64>, name: &str| {
        rows.iter().find(|r| r["syscall"] == name && r["tid"].as_u64() == tid).cloned()
    };
    let n = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
    let total =
        |name: &str| find(None, name).unwrap_or_else(|| panic!("{name}: {}", out.describe()));
    assert_eq!((n(&total("getpid"), "calls"), n(&total("getpid"), "errors")), (100, 0));
    assert_eq!((n(&total("gettid"), "calls"), n(&total("gettid"), "errors")), (7, 0));
    assert!(n(&total("openat"), "errors") >= 3, "{}", out.describe());
    let sleep = total("nanosleep");
    assert_eq!(n(&sleep, "calls"), 1);
    let ms = n(&sleep, "total_ns") / 1_000_000;
    assert!((60..2000).contains(&ms), "a 60 ms nanosleep took {ms} ms: {}", out.describe());
    assert_eq!(n(&sleep, "min_ns"), n(&sleep, "max_ns"));
    // Per thread: the sleeper's nanosleep and the main thread's getpids are apart.
    let per = |name: &str| rows.iter().find(|r| r["syscall"] == name && r["tid"].is_u64()).unwrap();
    let (main, sleeper) = (per("getpid")["tid"].as_u64(), per("nanosleep")["tid"].as_u64());
    assert_ne!(main, sleeper, "{}", out.describe());
    assert!(find(main, "nanosleep").is_none() && find(sleeper, "getpid").is_none());
    let getpid = find(main, "getpid").unwrap();
    assert_eq!(n(&getpid, "calls"), 100);
    assert!(n(&getpid, "min_ns") <= n(&getpid, "max_ns"));
    assert!(n(&getpid, "min_ns") * 100 <= n(&getpid, "total_ns"));
    assert!(n(&getpid, "max_ns") * 100 >= n(&getpid, "total_ns"));
    if strace_installed() {
        let names = ["getpid", "gettid", "openat", "nanosleep"];
        let ours: Vec<(u64, u64)> =
            names.iter().map(|m| (n(&total(m), "calls"), n(&total(m), "errors"))).collect();
        assert_eq!(ours, strace_c(&wl, &names), "{}", out.describe());
    }
}

#[test]
fn children_are_followed() {
    if skip() {
        return;
    }
    let out = trace(&["--strace", "-e", "prctl,wait4"], &["fork", "wl_kid", "getpid", "1"]);
    let lines = out.lines();
    let kid = lines
        .iter()
        .find(|l| l.contains("PR_SET_NAME"))
        .unwrap_or_else(|| panic!("{}", out.describe()));
    assert!(kid.starts_with("[pid "), "the child's call is marked with its pid: {kid}");
    assert!(lines.iter().any(|l| l.starts_with("wait4(")), "{}", out.describe());
}

#[test]
fn failures_only() {
    if skip() {
        return;
    }
    let out = trace(
        &["--failure", "-e", "openat,getpid"],
        &["getpid", "5", "openat", "2", "/nonexistent_sonde"],
    );
    let lines = out.lines();
    assert!(
        !lines.is_empty()
            && lines.iter().all(|l| l.ends_with("ENOENT (No such file or directory)")),
        "{}",
        out.describe()
    );
    assert_eq!(lines.iter().filter(|l| l.contains("\"/nonexistent_sonde\"")).count(), 2);
}

#[test]
fn durations_filter_slow_calls() {
    if skip() {
        return;
    }
    let out = trace(
        &["--min-duration", "50", "-e", "nanosleep,getpid"],
        &["getpid", "3", "sleep", "100"],
    );
    let lines = out.lines();
    assert_eq!(lines.len(), 1, "{}", out.describe());
    assert!(lines[0].contains(" nanosleep(") && lines[0].ends_with("= 0"), "{}", lines[0]);
}

#[test]
fn json_has_raw_and_decoded_arguments_and_lost_events() {
    if skip() {
        return;
    }
    let out = trace(&["--json", "-e", "openat"], &["openat", "1", "/nonexistent_sonde"]);
    let objs: Vec<serde_json::Value> =
        out.lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let call = objs
        .iter()
        .filter(|o| o["type"] == "trace_call")
        .map(|o| &o["data"])
        .find(|d| d["args"]["filename"]["value"] == "/nonexistent_sonde")
        .unwrap_or_else(|| panic!("{}", out.describe()));
    assert_eq!(call["errno"], "ENOENT");
    assert_eq!(call["syscall"], "openat");
    assert_eq!(call["ret"], -1);
    assert_eq!(call["args"]["dfd"]["value"], "AT_FDCWD");
    // The register as passed: an int's upper half is the caller's business.
    assert_eq!(call["args"]["dfd"]["raw"].as_u64().map(|r| r as u32), Some(-100i32 as u32));
    assert!(call["args"]["filename"]["raw"].as_u64().is_some_and(|p| p > 0), "{call}");
    assert!(call["duration_ns"].as_u64().unwrap() > 0);
    assert_eq!(objs.first().unwrap()["type"], "attached_probes", "{}", out.describe());
    assert_eq!(objs.last().unwrap()["type"], "lost_events");
}

#[test]
fn attaches_to_a_running_process() {
    if skip() {
        return;
    }
    let out = trace_gated_getpids("-p", 7);
    assert_eq!(getpid_lines(&out), 7, "{}", out.describe());
}

/// `sonde trace FLAG ID -e getpid` on a workload held at a go file (ID its pid, which is also its
/// one thread's id), released once sonde is attached to make `n` getpid calls.
fn trace_gated_getpids(flag: &'static str, n: u32) -> Output {
    let n = n.to_string();
    let mut w = Gated::spawn(&[("wl_trace", &["getpid", &n])]);
    let id = w.pid(0).to_string();
    let sonde = std::thread::spawn(move || sonde(&["trace", "-o", "-", flag, &id, "-e", "getpid"]));
    std::thread::sleep(Duration::from_millis(1500));
    w.go();
    w.wait_all();
    let out = sonde.join().unwrap();
    out.assert_ok();
    out
}

fn getpid_lines(out: &Output) -> usize {
    out.lines().iter().filter(|l| l.contains(" getpid() = ")).count()
}

#[test]
fn mistakes_are_one_sentence() {
    let out = sonde(&["trace", "-e", "opn", "--", "true"]);
    out.assert_code(2);
    assert_eq!(out.stderr.trim(), "sonde: -e opn: no syscall of this kernel has that name");
    let out = sonde(&["trace"]);
    out.assert_code(2);
    assert!(out.stderr.contains("say what to trace"), "{}", out.describe());
}

#[test]
fn a_filter_selects_calls_in_the_kernel_by_their_arguments() {
    if skip() {
        return;
    }
    let wl = ["openat", "2", "/nonexistent_sonde", "openat", "1", "/etc/hostname", "getpid", "2"];
    let filter = r#"str(args->filename) == "/etc/hostname" && comm == "sonde-workload""#;
    let out = trace(&["--strace", "-qq", "-e", "openat,getpid", "--filter", filter], &wl);
    // getpid has no filename: it is not traced at all.
    assert_eq!(
        out.lines(),
        [r#"openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = 3"#],
        "{}",
        out.describe()
    );
    if strace_installed() {
        let theirs = strace("openat", &wl);
        assert!(theirs.contains(&out.lines()[0].to_string()), "{theirs:#?}");
    }
    // The summary counts only what passed.
    let out = trace(&["-c", "-e", "openat", "--filter", "args->flags == 0"], &wl);
    let total = out.stdout.split(" total,").nth(1).unwrap_or_else(|| panic!("{}", out.describe()));
    let row = total.lines().find(|l| l.trim_start().starts_with("openat")).unwrap();
    let calls: Vec<u64> =
        row.split_whitespace().skip(1).take(2).map(|n| n.parse().unwrap()).collect();
    // The workload's 3 (2 failing) and the loader's own O_RDONLY|O_CLOEXEC ones are not 0.
    assert_eq!(calls, [3, 2], "{}", out.describe());
}

#[test]
fn filter_mistakes_point_into_the_filter() {
    let out =
        sonde(&["trace", "-e", "openat", "--filter", "args->flags && comm == 5", "--", "true"]);
    out.assert_code(2);
    assert!(out.stderr.contains("--> --filter:1:16"), "{}", out.describe());
    assert!(out.stderr.contains("1 | args->flags && comm == 5"), "{}", out.describe());
    assert_eq!(out.stderr.matches("error:").count(), 1, "one report: {}", out.describe());
    // An argument no traced syscall has: the caret is under it, in the filter.
    let out =
        sonde(&["trace", "-e", "getpid", "--filter", "comm != \"x\" && args->flags", "--", "true"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .starts_with("error: no traced syscall has the argument `flags`\n --> --filter:1:16\n"),
        "{}",
        out.describe()
    );
    assert!(out.stderr.contains("\n  |                ^^^^^^^^^^^\n"), "{}", out.describe());
}

#[test]
fn a_user_is_selected_in_the_kernel() {
    if skip() {
        return;
    }
    let setpriv =
        Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success());
    if !setpriv {
        eprintln!("skipped: setpriv not installed");
        return;
    }
    let sonde = std::thread::spawn(|| {
        sonde(&[
            "trace",
            "-o",
            "-",
            "--uid",
            "nobody",
            "-e",
            "getpid",
            "--max-events",
            "5",
            "--strace",
        ])
    });
    std::thread::sleep(Duration::from_millis(1500));
    // root's calls first: none of them may show.
    Command::new(workload()).args(["getpid", "3"]).status().unwrap();
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(workload())
        .args(["comm", "wl_nobody", "getpid", "5"])
        .status()
        .unwrap();
    let out = sonde.join().unwrap();
    out.assert_ok();
    let lines = out.lines();
    assert_eq!(lines.len(), 5, "{}", out.describe());
    assert!(lines.iter().all(|l| l.contains("getpid() = ")), "{}", out.describe());
}

#[test]
fn a_thread_is_traced_by_its_id() {
    if skip() {
        return;
    }
    let out = trace_gated_getpids("--tid", 4);
    assert_eq!(getpid_lines(&out), 4, "{}", out.describe());
}

#[test]
fn children_are_followed_after_the_command_exits() {
    if skip() {
        return;
    }
    let script = temp_path("trace_bg.sh");
    let w = workload().to_str().unwrap().to_string();
    std::fs::write(&script, format!("#!/bin/sh\n( sleep 0.5; exec {w} getpid 3 ) &\nexit 0\n"))
        .unwrap();
    let status = Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    assert!(status.success());
    let out = sonde(&["trace", "-o", "-", "-e", "getpid", "--", script.to_str().unwrap()]);
    let _ = std::fs::remove_file(&script);
    out.assert_ok();
    assert_eq!(
        // The shell's own getpid (for its subshell) aside.
        out.lines()
            .iter()
            .filter(|l| l.contains("sonde-workload/") && l.contains(" getpid() = "))
            .count(),
        3,
        "{}",
        out.describe()
    );
}
