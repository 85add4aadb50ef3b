//! End-to-end: the strace flags that choose and spell what `sonde trace` prints, each against
//! strace's own text for the same run where strace is installed: `-P`.

mod common;

use common::trace::{skip, strace_installed, trace};
use common::workload;
use std::process::Command;

/// strace's lines for the workload run with these flags (`-f -qq`), spaces collapsed.
fn strace_lines(flags: &[&str], wl: &[&str]) -> Vec<String> {
    let out = Command::new("strace")
        .args(["-f", "-qq"])
        .args(flags)
        .arg(workload())
        .args(wl)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stderr).lines().map(collapsed).collect()
}

fn collapsed(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn capital_p_keeps_the_calls_on_the_path_and_its_fds() {
    if skip() {
        return;
    }
    // A path the entry cannot read (openat-cold) is decided at the exit: /etc/passwd's is dropped.
    let wl = [
        "openat-cold",
        "/etc/hostname",
        "openat-cold",
        "/etc/passwd",
        "openat",
        "1",
        "/etc/hostname",
    ];
    let want = [
        "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 4",
        "close(4) = 0",
        "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 5",
        "close(5) = 0",
    ];
    // Every syscall (raw tracepoints), and a few on their own tracepoints.
    for e in [None, Some("openat,close,mmap,write")] {
        let mut flags = vec!["--strace", "-qq", "-P", "/etc/hostname"];
        flags.extend(e.iter().flat_map(|e| ["-e", e]));
        let out = trace(&flags, &wl);
        let lines: Vec<String> = out.stdout.lines().map(collapsed).collect();
        assert_eq!(lines, want, "{e:?}: {}", out.describe());
    }
    if strace_installed() {
        assert_eq!(strace_lines(&["-P", "/etc/hostname"], &wl), want);
    }
}
