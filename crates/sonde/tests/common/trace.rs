//! `sonde trace`'s end-to-end helpers: run it on the workload, run strace on the same.

use super::{sonde, temp_path, workload, Output};
use std::process::Command;

pub fn skip() -> bool {
    if let Some(r) = super::skip_reason_tracepoints() {
        eprintln!("skipped: {r}");
        return true;
    }
    false
}

pub fn strace_installed() -> bool {
    let ok = Command::new("strace").arg("-V").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: strace not installed");
    }
    ok
}

/// `sonde trace -o - OPTIONS -- sonde-workload ARGS`: the lines on stdout (beside the workload's
/// own output) rather than on stderr.
pub fn trace(opts: &[&str], wl: &[&str]) -> Output {
    let mut all = vec!["-o", "-"];
    all.extend_from_slice(opts);
    trace_as_typed(&all, wl)
}

/// `sonde trace OPTIONS -- sonde-workload ARGS`, the lines where OPTIONS send them.
pub fn trace_as_typed(opts: &[&str], wl: &[&str]) -> Output {
    let w = workload().to_str().unwrap().to_string();
    let mut args = vec!["trace"];
    args.extend_from_slice(opts);
    args.push("--");
    args.push(&w);
    args.extend_from_slice(wl);
    let out = sonde(&args);
    out.assert_ok();
    out
}

/// strace's lines for the same run (`-f`, quiet, to a file).
pub fn strace(expr: &str, wl: &[&str]) -> Vec<String> {
    strace_with(&[], expr, wl)
}

/// The same with more of strace's flags (`-y`).
pub fn strace_with(flags: &[&str], expr: &str, wl: &[&str]) -> Vec<String> {
    let file = temp_path("strace");
    let st = Command::new("strace")
        .args(flags)
        .args(["-f", "-qq", "-e", &format!("trace={expr}"), "-o"])
        .arg(&file)
        .arg(workload())
        .args(wl)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    // `-f` prefixes every line with the pid: drop it, as sonde prints the first task bare.
    text.lines().map(|l| l.split_once(' ').map_or(l, |(_, r)| r).trim_start().to_string()).collect()
}
