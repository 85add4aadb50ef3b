//! End-to-end: the command's fate as strace prints it: `--- SIGNAME {...} ---` for signals
//! delivered (and for a fatal one the kernel kills with at once), `+++ exited with N +++` and
//! `+++ killed by SIGNAME +++` for each task's end, and sonde's exit status the command's own
//! (128 + N when signal N killed it). Checked against strace's own lines for the same workload.

mod common;

use common::trace::{skip, strace_installed};
use common::{sonde, temp_path, workload, Output};
use std::process::Command;

/// `sonde trace --strace OPTIONS -- sonde-workload ARGS`, lines on stdout, whatever its status.
fn trace_status(opts: &[&str], wl: &[&str]) -> Output {
    let w = workload().to_str().unwrap().to_string();
    let mut args = vec!["trace", "-o", "-", "--strace"];
    args.extend_from_slice(opts);
    args.push("--");
    args.push(&w);
    args.extend_from_slice(wl);
    sonde(&args)
}

/// The fate lines of strace -f (exit lines kept: no -qq), `[pid N] ` before other tasks' as
/// sonde prints them.
fn strace_fate(wl: &[&str]) -> Vec<String> {
    let file = temp_path("strace-fate");
    let st = Command::new("strace")
        .args(["-f", "-q", "-o"])
        .arg(&file)
        .arg(workload())
        .args(wl)
        .status()
        .unwrap();
    let _ = st;
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let main = text.split_whitespace().next().unwrap_or("").to_string();
    text.lines()
        .filter_map(|l| {
            let (pid, rest) = l.split_once(' ')?;
            let rest = rest.trim_start();
            match pid == main {
                true => Some(rest.to_string()),
                false => Some(format!("[pid {pid:>5}] {rest}")),
            }
        })
        .filter(|l| is_fate(l))
        .map(|l| masked(&l))
        .collect()
}

fn is_fate(line: &str) -> bool {
    let text = match line.starts_with("[pid ") {
        true => line.split_once("] ").map_or(line, |(_, r)| r),
        false => line,
    };
    text.starts_with("--- ") || text.starts_with("+++ ")
}

/// Pids (and times) differ from run to run: every number after `pid` is N.
fn masked(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find("pid") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let tail = tail.trim_start_matches([' ', '=']);
        let digits = tail.len() - tail.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str(if head.ends_with("[pid") { " N" } else { "=N" });
        } else {
            out.push_str(&rest[i + 3..rest.len() - tail.len()]);
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out.replace("si_utime=N", "si_utime=0")
}

fn ours(out: &Output) -> Vec<String> {
    out.lines().into_iter().filter(|l| is_fate(l)).map(masked).collect()
}

#[test]
fn an_exit_status_is_printed_and_returned() {
    if skip() {
        return;
    }
    let out = trace_status(&["-e", "exit_group"], &["exit", "3"]);
    out.assert_code(3);
    assert_eq!(out.lines(), ["exit_group(3) = ?", "+++ exited with 3 +++"], "{}", out.describe());
    if strace_installed() {
        assert_eq!(strace_fate(&["exit", "3"]), ["+++ exited with 3 +++"]);
    }
}

#[test]
fn a_handled_signal_and_a_fault_are_printed_as_strace_prints_them() {
    if skip() {
        return;
    }
    let wl = ["catch", "10", "raise", "10", "segv"];
    let out = trace_status(&["-e", "kill"], &wl);
    // Killed by SIGSEGV: 128 + 11, as a shell reports it.
    out.assert_code(139);
    let expect = [
        "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=N, si_uid=0} ---",
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---",
        "+++ killed by SIGSEGV +++",
    ];
    let fate = ours(&out);
    // A core dump (where the host's limits allow one) says so, as in strace.
    let fate: Vec<String> = fate.iter().map(|l| l.replace(" (core dumped)", "")).collect();
    assert_eq!(fate, expect, "{}", out.describe());
    if strace_installed() {
        let theirs: Vec<String> =
            strace_fate(&wl).iter().map(|l| l.replace(" (core dumped)", "")).collect();
        assert_eq!(theirs, expect);
    }
}

#[test]
fn signal_qualifier_keeps_only_the_signals_named() {
    if skip() {
        return;
    }
    // strace's -e signal=: the SIGUSR1 line goes with !SIGUSR1, the fault's stays; the end too.
    let wl = ["catch", "10", "raise", "10", "segv"];
    let out = trace_status(&["-e", "kill", "-e", "signal=!SIGUSR1"], &wl);
    out.assert_code(139);
    let fate: Vec<String> = ours(&out).iter().map(|l| l.replace(" (core dumped)", "")).collect();
    let expect = [
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---",
        "+++ killed by SIGSEGV +++",
    ];
    assert_eq!(fate, expect, "{}", out.describe());
    let out = trace_status(&["-e", "kill", "-e", "signal=none"], &wl);
    let fate: Vec<String> = ours(&out).iter().map(|l| l.replace(" (core dumped)", "")).collect();
    assert_eq!(fate, ["+++ killed by SIGSEGV +++"], "{}", out.describe());
}

/// strace's lines of `syscall`, its column padding before ` = ` taken out.
fn strace_calls(wl: &[&str], syscall: &str) -> Vec<String> {
    common::trace::strace(syscall, wl)
        .iter()
        .filter(|l| l.starts_with(syscall))
        .map(|l| match l.rsplit_once(") ") {
            Some((call, result)) => format!("{call}) {}", result.trim_start()),
            None => l.to_string(),
        })
        .collect()
}

#[test]
fn a_handlers_return_is_printed_as_strace_prints_it() {
    if skip() {
        return;
    }
    let wl = ["catch", "10", "raise", "10", "catch", "12", "raise", "12"];
    let expect = ["rt_sigreturn({mask=[]}) = 0", "rt_sigreturn({mask=[]}) = 0"];
    // Traced alone (its own entry tracepoint), with another call, and among every call.
    for opts in [&["-e", "rt_sigreturn"][..], &["-e", "rt_sigreturn,kill"], &[]] {
        let out = trace_status(opts, &wl);
        out.assert_code(0);
        let lines = out.lines();
        let ours: Vec<&str> =
            lines.iter().filter(|l| l.starts_with("rt_sigreturn")).copied().collect();
        assert_eq!(ours, expect, "{opts:?}\n{}", out.describe());
    }
    // A call counted once in a summary (on stderr, as perf trace prints it).
    let out =
        sonde(&["trace", "-c", "--", workload().to_str().unwrap(), "catch", "10", "raise", "10"]);
    let row = out.stderr.lines().find(|l| l.split_whitespace().next() == Some("rt_sigreturn"));
    let calls = row.and_then(|r| r.split_whitespace().nth(1));
    assert_eq!(calls, Some("1"), "{}", out.describe());
    if strace_installed() {
        assert_eq!(strace_calls(&wl, "rt_sigreturn"), expect);
    }
}

#[test]
fn a_fatal_signal_without_a_handler_is_printed_before_the_end_it_causes() {
    if skip() {
        return;
    }
    // SIGTERM kills at once, never delivered through the kernel's usual path: the line comes
    // from its sending.
    let out = trace_status(&["-e", "kill"], &["raise", "15"]);
    out.assert_code(143);
    let expect = [
        "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=N, si_uid=0} ---",
        "+++ killed by SIGTERM +++",
    ];
    assert_eq!(ours(&out), expect, "{}", out.describe());
    if strace_installed() {
        assert_eq!(strace_fate(&["raise", "15"]), expect);
    }
}

#[test]
fn children_end_with_their_own_line_and_their_parent_sees_sigchld() {
    if skip() {
        return;
    }
    let wl = ["fork", "wl_child", "exit", "4"];
    let out = trace_status(&["-e", "wait4"], &wl);
    out.assert_code(4);
    let expect = [
        "[pid N] +++ exited with 0 +++",
        "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=N, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---",
        "+++ exited with 4 +++",
    ];
    assert_eq!(ours(&out), expect, "{}", out.describe());
    if strace_installed() {
        assert_eq!(strace_fate(&wl), expect);
    }
}

#[test]
fn json_has_a_record_for_each_signal_and_end() {
    if skip() {
        return;
    }
    let out = trace_status(&["--json", "-e", "kill"], &["catch", "10", "raise", "10", "exit", "2"]);
    out.assert_code(2);
    let records = out.json();
    let of = |ty: &str| -> Vec<&serde_json::Value> {
        records.iter().filter(|r| r["type"] == ty).map(|r| &r["data"]).collect()
    };
    let signals = of("trace_signal");
    assert_eq!(signals.len(), 1, "{}", out.describe());
    assert_eq!(signals[0]["signal"], "SIGUSR1");
    assert_eq!(signals[0]["code"], 0);
    let exits = of("trace_exit");
    assert_eq!(exits.len(), 1, "{}", out.describe());
    assert_eq!(exits[0]["status"], 2);
    assert_eq!(exits[0]["signal"], serde_json::Value::Null);
    assert_eq!(exits[0]["text"], "+++ exited with 2 +++");
}
