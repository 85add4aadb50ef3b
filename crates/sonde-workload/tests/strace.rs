//! Checks, with strace, that every sonde-workload subcommand makes exactly the
//! syscalls it promises and that start-up adds none of the counted ones.
//!
//! Counting works by difference: `sonde-workload seq` (a no-op) gives the
//! start-up/exit baseline (the dynamic loader's openat/read/close...), and each
//! subcommand must add exactly its documented calls on top of it.
//!
//! This test also makes `cargo test --workspace` build the plain
//! `target/<profile>/sonde-workload` executable that sonde's end-to-end tests run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

const WL: &str = env!("CARGO_BIN_EXE_sonde-workload");
const TRACED: &str = "getpid,openat,open,read,write,close,nanosleep,clock_nanosleep,prctl,fork,vfork,clone,clone3,wait4,faccessat,faccessat2,exit_group,socket,connect,lseek,clock_gettime,timer_gettime";

fn have_strace() -> bool {
    Command::new("strace").arg("-V").output().map(|o| o.status.success()).unwrap_or(false)
}

fn tmpfile(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sonde-wl-strace-{}-{tag}", std::process::id()))
}

/// Runs the workload under `strace -f` and returns (syscall -> calls, raw trace).
fn trace(tag: &str, args: &[&str]) -> (BTreeMap<String, u64>, String) {
    let out = tmpfile(tag);
    let st = Command::new("strace")
        .args(["-f", "-qq", "-e", &format!("trace={TRACED}"), "-o"])
        .arg(&out)
        .arg(WL)
        .args(args)
        .output()
        .expect("run strace");
    assert!(
        st.status.success(),
        "workload {args:?} failed: {}\n{}",
        st.status,
        String::from_utf8_lossy(&st.stderr)
    );
    let text = std::fs::read_to_string(&out).expect("read strace output");
    let _ = std::fs::remove_file(&out);
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        // "PID name(args) = ret" ; skip "PID <... name resumed>" continuation lines
        // and "+++ exited" / "--- SIG" lines.
        let rest = line.split_once(' ').map(|(_, r)| r.trim_start()).unwrap_or(line);
        if rest.starts_with("<...") || rest.starts_with("+++") || rest.starts_with("---") {
            continue;
        }
        if let Some(name) = rest.split('(').next() {
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                *counts.entry(name.to_string()).or_insert(0) += 1;
            }
        }
    }
    (counts, text)
}

/// The calls the subcommand made on top of the no-op baseline.
fn delta(tag: &str, args: &[&str]) -> (BTreeMap<String, i64>, String) {
    let (base, _) = trace(&format!("{tag}-base"), &["seq"]);
    let (run, text) = trace(tag, args);
    let mut d = BTreeMap::new();
    for k in base.keys().chain(run.keys()) {
        let v = *run.get(k).unwrap_or(&0) as i64 - *base.get(k).unwrap_or(&0) as i64;
        if v != 0 {
            d.insert(k.clone(), v);
        }
    }
    (d, text)
}

fn expect(tag: &str, args: &[&str], want: &[(&str, i64)]) -> String {
    let (got, text) = delta(tag, args);
    let want: BTreeMap<String, i64> = want.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(
        got,
        want,
        "syscalls of `sonde-workload {}` beyond start-up\n{text}",
        args.join(" ")
    );
    text
}

#[test]
fn startup_makes_none_of_the_counted_syscalls() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let (base, text) = trace("startup", &["seq"]);
    for name in [
        "getpid",
        "write",
        "nanosleep",
        "clock_nanosleep",
        "prctl",
        "fork",
        "clone",
        "clone3",
        "wait4",
    ] {
        assert_eq!(base.get(name), None, "start-up called {name}:\n{text}");
    }
    // Only the dynamic loader opens and reads anything: ld.so.cache and the
    // shared libraries (no /proc/self/maps: Rust's runtime init does not run).
    assert!(!text.contains("/proc/self/maps"), "{text}");
    assert!(!text.contains("sigaltstack"), "{text}");
    for line in text.lines().filter(|l| l.contains("openat(")) {
        assert!(
            line.contains("/etc/ld.so.cache") || line.contains(".so"),
            "unexpected start-up openat: {line}"
        );
    }
}

#[test]
fn getpid_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    expect("getpid", &["getpid", "100"], &[("getpid", 100)]);
    expect("getpid0", &["getpid", "0"], &[]);
}

#[test]
fn openat_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect("openat", &["openat", "3", "/etc/hostname"], &[("openat", 3), ("close", 3)]);
    assert_eq!(t.matches("\"/etc/hostname\", O_RDONLY)").count(), 3, "{t}");
    let t = expect("openat-missing", &["openat", "4", "/nonexistent/sonde"], &[("openat", 4)]);
    assert_eq!(t.matches("\"/nonexistent/sonde\", O_RDONLY) = -1 ENOENT").count(), 4, "{t}");
}

#[test]
fn read_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect("read", &["read", "10", "1000"], &[("openat", 1), ("read", 10), ("close", 1)]);
    assert_eq!(t.matches(", 1000) = 1000").count(), 10, "{t}");
    assert_eq!(t.matches("/dev/zero").count(), 1, "{t}");
}

#[test]
fn write_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect("write", &["write", "7", "300"], &[("openat", 1), ("write", 7), ("close", 1)]);
    assert_eq!(t.matches(", 300) = 300").count(), 7, "{t}");
}

#[test]
fn connect_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect(
        "connect",
        &["connect", "3", "4242"],
        &[("socket", 1), ("connect", 3), ("close", 1)],
    );
    assert_eq!(t.matches("sin_addr=inet_addr(\"127.0.0.1\")").count(), 3, "{t}");
}

#[test]
fn sleep_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t0 = std::time::Instant::now();
    expect("sleep", &["sleep", "50"], &[("nanosleep", 1)]);
    assert!(t0.elapsed().as_millis() >= 50);
}

#[test]
fn comm_then_command() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect("comm", &["comm", "wl_test", "getpid", "10"], &[("prctl", 1), ("getpid", 10)]);
    assert!(t.contains("PR_SET_NAME, \"wl_test\""), "{t}");
}

#[test]
fn fork_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    // The child's exit_group is counted; the parent's is in the baseline.
    let t = expect(
        "fork",
        &["fork", "wl_child"],
        &[("fork", 1), ("prctl", 1), ("wait4", 1), ("exit_group", 1)],
    );
    assert!(t.contains("PR_SET_NAME, \"wl_child\""), "{t}");
}

#[test]
fn seq_runs_in_order() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect(
        "seq",
        &[
            "comm", "wl_seq", "seq", "read", "5", "1000", "--", "read", "3", "5000", "--",
            "getpid", "2",
        ],
        &[("prctl", 1), ("openat", 2), ("read", 8), ("close", 2), ("getpid", 2)],
    );
    assert_eq!(t.matches(", 1000) = 1000").count(), 5, "{t}");
    assert_eq!(t.matches(", 5000) = 5000").count(), 3, "{t}");
    // order: the 1000-byte reads come before the 5000-byte ones, getpid last
    let first5000 = t.find(", 5000) = 5000").unwrap();
    let last1000 = t.rfind(", 1000) = 1000").unwrap();
    assert!(last1000 < first5000, "{t}");
    assert!(t.rfind("getpid(").unwrap() > t.rfind(", 5000) = 5000").unwrap(), "{t}");
}

#[test]
fn waitfile_and_exit() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let p = tmpfile("exists");
    std::fs::write(&p, b"").unwrap();
    let ps = p.to_str().unwrap();
    expect("waitfile", &["waitfile", ps, "getpid", "1"], &[("faccessat", 1), ("getpid", 1)]);
    let _ = std::fs::remove_file(&p);
    // exit stops the sequence: the getpid after it never runs
    let st = Command::new(WL).args(["exit", "3", "getpid", "1"]).status().unwrap();
    assert_eq!(st.code(), Some(3));
}

#[test]
fn strace_summary_mode_agrees() {
    // The `strace -c` form of the check, as one would run it by hand.
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let out = tmpfile("summary");
    let st = Command::new("strace")
        .args(["-f", "-c", "-e", "trace=getpid,nanosleep,prctl", "-o"])
        .arg(&out)
        .arg(WL)
        .args(["comm", "wl_sum", "getpid", "1234", "sleep", "1"])
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let calls = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.split_whitespace().last() == Some(name))
            .and_then(|l| {
                // columns: % time, seconds, usecs/call, calls, [errors], syscall
                let f: Vec<&str> = l.split_whitespace().collect();
                f.get(3).and_then(|c| c.parse().ok())
            })
            .unwrap_or_else(|| panic!("no {name} row in:\n{text}"))
    };
    assert_eq!(calls("getpid"), 1234, "{text}");
    assert_eq!(calls("nanosleep"), 1, "{text}");
    assert_eq!(calls("prctl"), 1, "{text}");
}

#[test]
fn usage() {
    let o = Command::new(WL).arg("--help").output().unwrap();
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    for cmd in [
        "getpid N",
        "openat N PATH",
        "read N SIZE",
        "write N SIZE",
        "sleep MS",
        "comm NAME",
        "fork NAME",
        "seq",
    ] {
        assert!(s.contains(cmd), "--help lacks {cmd:?}:\n{s}");
    }
    let o = Command::new(WL).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(WL).args(["bogus"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = Command::new(WL).args(["getpid", "x"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn negative_arguments_exact() {
    if !have_strace() {
        println!("skipped: strace not installed");
        return;
    }
    let t = expect("lseek", &["lseek", "3"], &[("lseek", 3)]);
    for k in 1..=3 {
        assert!(t.contains(&format!("lseek(-1, -{k}, SEEK_CUR)")), "{t}");
    }
    assert_eq!(t.matches("= -1 EBADF").count(), 3, "{t}");
    // strace prints a clock id it has no name for in hex (0xfffffff9 for -7): counted only.
    expect("clock", &["clock", "7"], &[("clock_gettime", 7)]);
    let t = expect("timer", &["timer", "2"], &[("timer_gettime", 2)]);
    assert_eq!(t.matches("= -1 EINVAL").count(), 2, "{t}");
}
