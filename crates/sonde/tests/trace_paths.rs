//! End-to-end: a path the entry could not copy (its page mapped but not yet faulted in) is
//! never printed as `""`: it is read again at the call's exit, and memory no one can read
//! prints as its pointer, as strace prints it.

mod common;

use common::trace::{skip, strace, strace_installed, trace};

const WL: &[&str] = &["openat-cold", "/etc/hostname", "openat-bad"];

/// Pointers differ from run to run.
fn masked(line: &str) -> String {
    line.split(", ")
        .map(|a| match a.strip_prefix("0x") {
            Some(hex) if hex.chars().all(|c| c.is_ascii_hexdigit()) => "0xADDR",
            _ => a,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The workload's own opens (the loader's say O_CLOEXEC).
fn mine(line: &str) -> bool {
    line.starts_with("openat(AT_FDCWD, ") && !line.contains("CLOEXEC")
}

fn expected() -> [&'static str; 2] {
    [
        "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 3",
        "openat(AT_FDCWD, 0xADDR, O_RDONLY) = -1 EFAULT (Bad address)",
    ]
}

#[test]
fn paths_unread_at_entry_are_read_at_exit() {
    if skip() {
        return;
    }
    // Each syscall on its own tracepoints, and every syscall on raw_syscalls.
    for expr in ["openat", "openat,close,read,mmap,memfd_create,write,newfstatat"] {
        let out = trace(&["--strace", "-e", expr], WL);
        let lines: Vec<String> =
            out.lines().iter().filter(|l| mine(l)).map(|l| masked(l)).collect();
        let ours: Vec<&str> = lines.iter().map(String::as_str).collect();
        // The memfd is fd 3 in the workload, and the path's fd the next.
        let want: Vec<String> = expected().iter().map(|l| l.replace("= 3", "= 4")).collect();
        assert_eq!(ours, want, "{}", out.describe());
    }
    if strace_installed() {
        let theirs: Vec<String> = strace("openat", WL)
            .iter()
            .filter(|l| mine(l))
            .map(|l| masked(&l.split_whitespace().collect::<Vec<_>>().join(" ")))
            .collect();
        let want: Vec<String> = expected().iter().map(|l| l.replace("= 3", "= 4")).collect();
        assert_eq!(theirs, want);
    }
}
