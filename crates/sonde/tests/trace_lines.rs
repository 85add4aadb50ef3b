//! End-to-end: what `sonde trace`'s lines say beyond the call itself: fds with their paths
//! (against `strace -y`), pids with their comms, perf trace's `...` / `... [continued]` and
//! strace's `<unfinished ...>` / `<... resumed>` when threads interleave, calls that never return, and `-C` selecting CPUs in the kernel.

mod common;

// strace's lines here come from `strace -qq` (no `+++ exited with 0 +++`): sonde's are asked
// for the same way.

use common::trace::{skip, strace_installed, strace_with, trace};
use common::{sonde, workload};
use std::process::Command;

const FDS: &[&str] = &["openat", "1", "/etc/hostname", "read", "2", "10", "write", "1", "7"];

#[test]
fn fds_show_their_paths_as_strace_y_does() {
    if skip() {
        return;
    }
    let expr = "openat,read,write,close";
    let out = trace(&["--strace", "-qq", "-y", "-e", expr], FDS);
    let ours = out.lines();
    let start = ours
        .iter()
        .position(|l| l.contains("\"/etc/hostname\""))
        .unwrap_or_else(|| panic!("{}", out.describe()));
    let ours: Vec<String> = ours[start..].iter().map(|l| l.to_string()).collect();
    // strace pads before ` = `, and with -y names the directory of AT_FDCWD, which sonde can
    // read only while the process lives: it must be this test's (the workload's).
    let cwd = std::env::current_dir().unwrap();
    let at_cwd = format!("AT_FDCWD<{}>", cwd.display());
    let plain = |l: &str| {
        let (call, ret) = l.rsplit_once(" = ").unwrap_or((l, ""));
        format!("{} = {ret}", call.trim_end()).replace(&at_cwd, "AT_FDCWD")
    };
    let expected = [
        r#"openat(AT_FDCWD, "/etc/hostname", O_RDONLY) = 3</etc/hostname>"#,
        "close(3</etc/hostname>) = 0",
        r#"openat(AT_FDCWD, "/dev/zero", O_RDONLY|O_CLOEXEC) = 3</dev/zero>"#,
        r#"read(3</dev/zero>, "\0\0\0\0\0\0\0\0\0\0", 10) = 10"#,
        r#"read(3</dev/zero>, "\0\0\0\0\0\0\0\0\0\0", 10) = 10"#,
        "close(3</dev/zero>) = 0",
        r#"openat(AT_FDCWD, "/dev/null", O_WRONLY|O_CLOEXEC) = 3</dev/null>"#,
        r#"write(3</dev/null>, "xxxxxxx", 7) = 7"#,
        "close(3</dev/null>) = 0",
    ];
    let got: Vec<String> = ours.iter().map(|l| plain(l)).collect();
    assert_eq!(got, expected, "{}", out.describe());
    if strace_installed() {
        let theirs = strace_with(&["-y"], expr, FDS);
        let theirs: Vec<String> = theirs
            .iter()
            .skip_while(|l| !l.contains("\"/etc/hostname\""))
            .map(|l| plain(l))
            .collect();
        assert_eq!(got, theirs);
    }
    // Without -y, strace's plain numbers.
    let out = trace(&["--strace", "-qq", "-e", "close"], FDS);
    assert!(out.lines().contains(&"close(3) = 0"), "{}", out.describe());
}

#[test]
fn perf_lines_and_json_name_fds_and_pids() {
    if skip() {
        return;
    }
    let out = trace(
        &["-e", "openat,write,wait4,prctl,exit_group"],
        &["write", "1", "7", "fork", "wl_kid"],
    );
    let lines = out.lines();
    let write = lines.iter().find(|l| l.contains(" write(")).expect("write");
    assert!(
        write.ends_with(r#" write(fd: 3</dev/null>, buf: "xxxxxxx", count: 7) = 7"#),
        "{}",
        out.describe()
    );
    // The child is reaped when wait4 returns, so /proc no longer has it: its comm is the one
    // its last record carried (exit_group's, after its prctl renamed it).
    let wait = lines.iter().rev().find(|l| l.contains("wait4")).expect("wait4");
    let kid: u32 = wait.rsplit_once(" = ").unwrap().1.split(' ').next().unwrap().parse().unwrap();
    assert!(wait.ends_with(&format!(" = {kid} (wl_kid)")), "{}", out.describe());
    assert!(lines.iter().any(|l| l.contains("wl_kid/") && l.contains("exit_group(")));
    let out = trace(&["--json", "-e", "openat,write"], &["write", "1", "7"]);
    let write = json_call(&out, "write");
    assert_eq!(write["args"]["fd"], serde_json::json!({"raw": 3, "value": 3, "path": "/dev/null"}));
    assert_eq!(write["args"]["buf"]["value"], "xxxxxxx");
}

#[test]
fn pid_arguments_show_the_comm_of_a_live_task() {
    if skip() {
        return;
    }
    // kill(PID, 0) of a live task: named with its comm, read from /proc at print time.
    let mut sleeper =
        Command::new(workload()).args(["comm", "wl_sleeper", "sleep", "5000"]).spawn().unwrap();
    let pid = sleeper.id().to_string();
    let out = trace(&["-e", "kill"], &["kill", &pid, "0"]);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    let kill = out
        .lines()
        .into_iter()
        .find(|l| l.contains(" kill("))
        .unwrap_or_else(|| panic!("{}", out.describe()));
    assert!(kill.ends_with(&format!(" kill(pid: {pid} (wl_sleeper), sig: 0) = 0")), "{kill}");
}

#[test]
fn interleaved_calls_print_in_two_parts() {
    if skip() {
        return;
    }
    // A thread sleeps 300 ms in nanosleep while the main thread makes 3 getpid calls.
    let out = trace(&["-e", "nanosleep,getpid"], &["thread-sleep", "300", "getpid", "3"]);
    // The workload's own (the shell that starts it makes a getpid of its own).
    let mine = |out: &common::Output| -> Vec<String> {
        let lines = out.lines().into_iter().filter(|l| l.contains("sonde-workload/"));
        lines.map(str::to_string).collect()
    };
    let lines = mine(&out);
    assert_eq!(lines.len(), 5, "{}", out.describe());
    let sleeper = lines[0].split(' ').find(|w| w.contains('/')).unwrap().to_string();
    assert!(
        lines[0].contains("(         ): ")
            && lines[0].contains(&format!("{sleeper} nanosleep(rqtp: 0x"))
            && lines[0].ends_with(") ..."),
        "{}",
        out.describe()
    );
    for l in &lines[1..4] {
        assert!(l.contains(" getpid() = ") && !l.contains(&sleeper), "{}", out.describe());
    }
    let time = lines[0].split(' ').next().unwrap();
    assert!(
        lines[4].starts_with(&format!("{time} ("))
            && lines[4].ends_with(&format!("{sleeper}  ... [continued]: nanosleep()) = 0")),
        "{}",
        out.describe()
    );
    let ms: f64 =
        lines[4].split('(').nth(1).unwrap().trim().split(' ').next().unwrap().parse().unwrap();
    assert!(ms >= 300.0, "{}", lines[4]);
    // Without another line in between, a call is one line.
    let out = trace(&["-e", "nanosleep"], &["thread-sleep", "100"]);
    let lines = mine(&out);
    assert_eq!(lines.len(), 1, "{}", out.describe());
    assert!(lines[0].ends_with(" = 0") && !lines[0].contains("..."), "{}", out.describe());
}

/// A line's shape: (syscall, whole/unfinished/resumed).
fn shape(line: &str) -> (String, &'static str) {
    let l = line.split_once("] ").filter(|_| line.starts_with("[pid ")).map_or(line, |(_, r)| r);
    if let Some(rest) = l.strip_prefix("<... ") {
        return (rest.split(' ').next().unwrap_or_default().to_string(), "resumed");
    }
    let name = l.split('(').next().unwrap_or_default().to_string();
    (name, if l.contains(" <unfinished ...>") { "unfinished" } else { "whole" })
}

#[test]
fn strace_layout_splits_interleaved_calls_as_strace_f() {
    if skip() {
        return;
    }
    // A thread sleeps 100 ms while the main thread makes 2 getpid calls, then waits for it in
    // futex: the sleep is split by the getpids, the futex by the sleep's end.
    let wl = ["thread-sleep", "100", "getpid", "2"];
    let expr = "nanosleep,getpid,futex";
    let out = trace(&["--strace", "-qq", "-e", expr], &wl);
    let lines = out.lines();
    // The shell that starts the workload makes a getpid of its own first.
    let start = lines.iter().position(|l| l.starts_with("[pid ")).unwrap_or_default();
    let lines = &lines[start..];
    assert_eq!(lines.len(), 6, "{}", out.describe());
    let pid = lines[1].rsplit(' ').next().unwrap().to_string();
    let tid = lines[0].split(']').next().unwrap().trim_start_matches("[pid").trim().to_string();
    // Addresses differ from run to run.
    let hex = |l: &str| -> String {
        l.split(' ')
            .map(|w| match w.find("0x") {
                Some(at) => {
                    let end = w[at + 2..]
                        .find(|c: char| !c.is_ascii_hexdigit())
                        .map_or(w.len(), |e| at + 2 + e);
                    format!("{}0xX{}", &w[..at], &w[end..])
                }
                None => w.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ours: Vec<String> = lines
        .iter()
        .map(|l| hex(l).replace(&format!("[pid {tid:>5}]"), "[pid T]").replace(&pid, "P"))
        .map(|l| l.replace(&tid, "T"))
        .collect();
    assert_eq!(
        ours,
        [
            // strace -f's lines, word for word: the time to sleep decoded, the time left
            // (which the call fills) printed at its end.
            "[pid T] nanosleep({tv_sec=0, tv_nsec=100000000},  <unfinished ...>",
            "getpid() = P",
            "getpid() = P",
            "futex(0xX, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, T, NULL, FUTEX_BITSET_MATCH_ANY <unfinished ...>",
            "[pid T] <... nanosleep resumed>0xX) = 0",
            "<... futex resumed>) = 0",
        ],
        "{}",
        out.describe()
    );
    if strace_installed() {
        // strace prints nanosleep's rem at its exit (sonde decodes every argument at entry):
        // the same calls, split the same way.
        let theirs: Vec<_> = strace_with(&[], expr, &wl).iter().map(|l| shape(l)).collect();
        let ours: Vec<_> = lines.iter().map(|l| shape(l)).collect();
        assert_eq!(ours, theirs, "{}", out.describe());
    }
}

#[test]
fn calls_that_never_return_print_at_their_entry() {
    if skip() {
        return;
    }
    let out = trace(&["--strace", "-qq", "-e", "exit_group"], &["exit", "0"]);
    assert_eq!(out.lines(), ["exit_group(0) = ?"], "{}", out.describe());
    if strace_installed() {
        let theirs = strace_with(&[], "exit_group", &["exit", "0"]);
        let theirs: Vec<String> = theirs
            .iter()
            .filter(|l| !l.starts_with("+++"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(theirs, ["exit_group(0) = ?"]);
    }
}

/// The `data` of the first `trace_call` record of `syscall`.
fn json_call(out: &common::Output, syscall: &str) -> serde_json::Value {
    let records = out.lines().into_iter().map(|l| serde_json::from_str(l).unwrap());
    let mut calls = records
        .filter(|o: &serde_json::Value| o["type"] == "trace_call")
        .map(|o| o["data"].clone())
        .filter(|d| d["syscall"] == syscall);
    calls.next().unwrap_or_else(|| panic!("no {syscall}: {}", out.describe()))
}

fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn cpus_are_selected_in_the_kernel() {
    if skip() {
        return;
    }
    if online_cpus() < 2 {
        eprintln!("skipped: one CPU");
        return;
    }
    let w = workload().to_str().unwrap().to_string();
    // The workload pinned to CPU 1: --cpu 1 sees its 5 calls, --cpu 0 none of them (the shell that
    // starts taskset makes a getpid of its own, wherever it runs).
    let run = |cpus: &str| {
        let out = sonde(&[
            "trace", "-o", "-", "--cpu", cpus, "-e", "getpid", "--", "taskset", "-c", "1", &w,
            "comm", "wl_cpu", "getpid", "5",
        ]);
        out.assert_ok();
        out
    };
    let on1 = run("1");
    assert_eq!(
        on1.lines().iter().filter(|l| l.contains(" wl_cpu/") && l.contains(" getpid()")).count(),
        5,
        "{}",
        on1.describe()
    );
    let on0 = run("0");
    assert_eq!(
        on0.lines().iter().filter(|l| l.contains(" wl_cpu/") && l.contains(" getpid()")).count(),
        0,
        "{}",
        on0.describe()
    );
    let out = sonde(&["trace", "--cpu", "0-x", "--", "true"]);
    out.assert_code(2);
    assert_eq!(out.stderr.trim(), "sonde: --cpu 0-x: not a CPU list such as 0,2-3");
    let out = sonde(&["trace", "--cpu", "4096", "--", "true"]);
    out.assert_code(2);
    assert_eq!(out.stderr.trim(), "sonde: --cpu 4096: this machine has no CPU 4096");
}

#[test]
fn stacks_print_under_their_calls() {
    if skip() {
        return;
    }
    // The workload lives on 200 ms after its call, so its maps name the user frames.
    let wl = ["getppid", "1", "sleep", "200"];
    let out = trace(&["--call-graph", "dwarf", "-e", "getppid"], &wl);
    let lines = out.lines();
    let at = lines
        .iter()
        .position(|l| l.contains("sonde-workload/") && l.contains(" getppid() = "))
        .unwrap_or_else(|| panic!("{}", out.describe()));
    let frames: Vec<&str> = lines[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("        "))
        .map(|l| l.trim())
        .collect();
    // Kernel frames first (the syscall's way back to user space), then the user ones: the
    // workload calls syscall(2) through libc.
    assert!(frames.iter().any(|f| f.starts_with("do_syscall_64")), "{}", out.describe());
    let user = frames.iter().position(|f| f.starts_with("syscall+") && f.contains("libc.so"));
    let user = user.unwrap_or_else(|| panic!("{}", out.describe()));
    assert!(frames[..user].iter().all(|f| !f.contains(" (/")), "{}", out.describe());
    // --max-stack N: the first N frames; strace's layout marks them as strace -k does.
    let out = trace(&["--strace", "-qq", "--max-stack", "2", "-e", "getppid"], &wl);
    let lines = out.lines();
    let at = lines.iter().position(|l| l.starts_with("getppid() = ")).expect("getppid");
    assert_eq!(lines.len(), at + 3, "{}", out.describe());
    assert!(lines[at + 1..].iter().all(|l| l.starts_with(" > ")), "{}", out.describe());
    let out = trace(&["--json", "--max-stack", "3", "-e", "getppid"], &wl);
    let call = json_call(&out, "getppid");
    assert_eq!(call["stack"].as_array().map(Vec::len), Some(3), "{call}");
    let out = sonde(&["trace", "--call-graph", "lbx", "--", "true"]);
    out.assert_code(2);
    assert_eq!(out.stderr.trim(), "sonde: --call-graph lbx: use dwarf, fp or lbr (as perf trace)");
}

#[test]
fn other_events_share_the_time_line() {
    if skip() {
        return;
    }
    // Two forks: exactly two sched_process_fork events, each before the wait4 reaping its child.
    let wl = ["fork", "wl_a", "fork", "wl_b"];
    let out = trace(&["-e", "wait4,sched:sched_process_fork/max-stack=3/"], &wl);
    let lines = out.lines();
    let forks: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" sched:sched_process_fork(parent_comm: \"sonde-workload\""))
        .collect();
    assert_eq!(forks.len(), 2, "{}", out.describe());
    for &at in &forks {
        let fork = lines[at];
        assert!(fork.contains("(         ): sonde-workload/"), "{fork}");
        let kid = fork.split("child_pid: ").nth(1).unwrap().trim_end_matches(')');
        // Its own stack depth: 3 kernel frames, the fork's way into the tracepoint.
        let frames = &lines[at + 1..at + 4];
        assert!(frames.iter().all(|f| f.starts_with("        ")), "{}", out.describe());
        assert!(frames.iter().any(|f| f.trim().starts_with("kernel_clone")), "{frames:?}");
        let wait = lines[at + 4..].iter().find(|l| l.contains(" wait4(")).unwrap();
        assert!(wait.ends_with(&format!(" = {kid}")), "{}", out.describe());
    }
    // A blocking call the task switches out of: split around the switch.
    let out = trace(&["-e", "nanosleep,sched:sched_switch"], &["sleep", "50"]);
    let lines = out.lines();
    let entry = lines.iter().position(|l| l.contains(" nanosleep(")).expect("nanosleep");
    assert!(lines[entry].ends_with(") ..."), "{}", out.describe());
    assert!(lines[entry + 1].contains(" sched:sched_switch(prev_comm: \"sonde-workload\""));
    let end = lines.iter().position(|l| l.contains("... [continued]: nanosleep()) = 0"));
    assert!(end.is_some_and(|e| e > entry + 1), "{}", out.describe());
    // Only events: no syscall line; JSON records of type trace_event.
    let out = trace(&["--json", "-e", "sched:sched_process_fork"], &wl);
    let objects: Vec<serde_json::Value> =
        out.lines().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let forks: Vec<&serde_json::Value> = objects
        .iter()
        .filter(|o| o["type"] == "trace_event")
        .map(|o| &o["data"])
        .filter(|d| d["fields"]["parent_comm"] == "sonde-workload")
        .collect();
    assert_eq!(forks.len(), 2, "{}", out.describe());
    assert_eq!(forks[0]["event"], "sched:sched_process_fork");
    let calls =
        objects.iter().filter(|o| o["type"] == "trace_call" || o["data"].get("syscall").is_some());
    assert_eq!(calls.count(), 0, "{}", out.describe());
    let out = sonde(&["trace", "-e", "getpid,sched:nope", "--", "true"]);
    out.assert_code(2);
    assert_eq!(
        out.stderr.trim(),
        "sonde: -e sched:nope: no tracepoint of this kernel has that name"
    );
}
