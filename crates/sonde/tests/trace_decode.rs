//! End-to-end: strace's layout decodes calls as strace does, from memory the program copies
//! (structs a call reads or fills, buffers, execve's arrays) and constants it names, compared
//! with strace's own lines for the same workload where strace is installed.

mod common;

use common::trace::{skip, strace_installed, strace_with, trace};

/// Addresses and pids differ between runs: each hex number of 8 digits or more becomes `0xX`,
/// strace's padding before ` = ` goes.
fn plain(l: &str) -> String {
    let (call, ret) = l.rsplit_once(" = ").unwrap_or((l, ""));
    let line = format!("{} = {ret}", call.trim_end());
    let mut out = String::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("0x") {
        let digits =
            rest[at + 2..].find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(rest.len() - at - 2);
        out.push_str(&rest[..at]);
        match digits >= 8 {
            true => out.push_str("0xX"),
            false => out.push_str(&rest[at..at + 2 + digits]),
        }
        rest = &rest[at + 2 + digits..];
    }
    out.push_str(rest);
    out
}

const WORK: &[&str] = &[
    "openat",
    "1",
    "/etc/hostname",
    "read",
    "1",
    "10",
    "connect",
    "1",
    "9",
    "sleep",
    "1",
    "fork",
    "wl_kid",
];
const CALLS: &str = "read,connect,nanosleep,wait4,socket,mmap,close";

#[test]
fn structs_buffers_and_constants_as_strace_prints_them() {
    if skip() {
        return;
    }
    let out = trace(&["--strace", "-e", CALLS], WORK);
    let ours: Vec<String> = out.lines().iter().map(|l| plain(l)).collect();
    let has = |want: &str| {
        assert!(ours.iter().any(|l| l == want), "no `{want}` in:\n{}", out.describe());
    };
    // read's buffer at its exit, up to what it read; fds as ints; sockaddr and timespec at entry.
    has(r#"read(3, "\0\0\0\0\0\0\0\0\0\0", 10) = 10"#);
    has("socket(AF_INET, SOCK_DGRAM, IPPROTO_IP) = 3");
    has(
        r#"connect(3, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = 0"#,
    );
    has("nanosleep({tv_sec=0, tv_nsec=1000000}, 0xX) = 0");
    assert!(
        // Whole, or resumed after the child's end split it (as strace -f prints it).
        ours.iter().any(|l| (l.starts_with("wait4(") || l.starts_with("<... wait4 resumed>"))
            && l.contains("[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = ")),
        "{}",
        out.describe()
    );
    assert!(
        ours.iter().any(|l| l.contains("MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0xX")),
        "{}",
        out.describe()
    );
    if strace_installed() {
        let theirs: Vec<String> = strace_with(&[], CALLS, WORK).iter().map(|l| plain(l)).collect();
        // The workload's own calls, from its first read on (the loader's differ in nothing but
        // are many): each of ours is strace's, the child's pid aside.
        let from = |lines: &[String]| -> Vec<String> {
            let start = lines.iter().position(|l| l.starts_with("read(3, ")).unwrap_or(0);
            // Another task's line, without its `[pid N] `.
            let text = |l: &str| match l.starts_with("[pid ") {
                true => l.split_once("] ").map_or(l, |(_, r)| r).to_string(),
                false => l.to_string(),
            };
            // wait4 is checked above: whole, or split by the child's end.
            let wait = |l: &str| l.starts_with("wait4(") || l.starts_with("<... wait4 resumed>");
            let keep = lines[start..].iter().map(|l| text(l)).filter(|l| !wait(l));
            // Signals' and exits' lines are not calls.
            keep.filter(|l| !l.starts_with("+++") && !l.starts_with("---")).collect()
        };
        assert_eq!(from(&ours), from(&theirs), "{}", out.describe());
    }
}

#[test]
fn execve_shows_its_arguments_and_counts_its_environment() {
    if skip() {
        return;
    }
    let out = trace(&["--strace", "-e", "execve"], &["getpid", "1"]);
    let line = out
        .lines()
        .into_iter()
        .find(|l| l.starts_with("execve("))
        .unwrap_or_else(|| panic!("{}", out.describe()));
    let vars = std::env::vars_os().count();
    assert!(line.contains(r#"/sonde-workload", ["#), "{line}");
    assert!(line.contains(r#", "getpid", "1"], 0x"#), "{line}");
    assert!(line.ends_with(&format!(" /* {vars} vars */) = 0")), "{line}");
}
