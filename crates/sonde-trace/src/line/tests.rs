use super::*;
use crate::fixtures::fixtures;
use crate::names::{Names, NoNames};
use crate::syscalls::SyscallTable;

fn openat(ret: i64) -> Call {
    Call {
        entry: Entry {
            tid: 100,
            pid: 100,
            time_ns: 1_000_000,
            nr: 257,
            args: [0xffff_ff9c, 0x7fff_0000, 0o2000000, 0, 0, 0],
            comm: "cat".into(),
            strings: vec![(1, b"/etc/hostname\0\0\0".to_vec())],
        },
        exit_ns: 1_004_000,
        ret,
    }
}

#[test]
fn the_three_spellings() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sc = t.get(257);
    assert_eq!(
        openat(3).strace_line(sc, 100, &NoNames),
        r#"openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3"#
    );
    assert_eq!(
        openat(-2).perf_line(sc, 0, &NoNames),
        r#"1.000 ( 0.004 ms): cat/100 openat(dfd: AT_FDCWD, filename: "/etc/hostname", flags: O_RDONLY|O_CLOEXEC, mode: 0) = -1 ENOENT (No such file or directory)"#
    );
    let j = openat(-2).json(sc, &NoNames);
    assert_eq!(j["errno"], "ENOENT");
    assert_eq!(j["ret"], -1);
    assert_eq!(j["args"]["flags"]["raw"], 0o2000000);
    assert_eq!(j["args"]["flags"]["value"], "O_RDONLY|O_CLOEXEC");
    assert_eq!(j["duration_ns"], 4000);
    let mut child = openat(3);
    child.entry.tid = 101;
    assert!(child.strace_line(sc, 100, &NoNames).starts_with("[pid   101] openat("));
    // Split by another task's line, as strace -f prints it.
    assert_eq!(
        child.strace_split_line(sc, 100, &NoNames, false),
        r#"[pid   101] openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC <unfinished ...>"#
    );
    assert_eq!(
        child.strace_split_line(sc, 100, &NoNames, true),
        "[pid   101] <... openat resumed>) = 3"
    );
    assert_eq!(
        openat(-2).strace_split_line(sc, 100, &NoNames, true),
        "<... openat resumed>) = -1 ENOENT (No such file or directory)"
    );
}

#[test]
fn strings_are_quoted_and_cut_buffers_marked() {
    assert_eq!(quote(b"a\"b\n\x01\0zz", None), r#""a\"b\n\1""#);
    assert_eq!(quote(b"0123", Some(10)), r#""0123"..."#);
    assert_eq!(quote(b"01\0xx", Some(3)), r#""01\0""#);
}

/// Names from tables: process 100 has fd 3 on /etc/hostname, task 42 is `sleep`.
struct Known;

impl Names for Known {
    fn fd_path(&self, pid: u32, fd: i64) -> Option<String> {
        (pid == 100 && fd == 3).then(|| "/etc/hostname".into())
    }
    fn comm(&self, pid: i64) -> Option<String> {
        (pid == 42).then(|| "sleep".into())
    }
    fn cwd(&self, pid: u32) -> Option<String> {
        (pid == 100).then(|| "/tmp".into())
    }
}

fn call(nr: u32, args: [u64; 6], ret: i64) -> Call {
    let mut c = openat(ret);
    c.entry.nr = nr;
    c.entry.args = args;
    c.entry.strings.clear();
    c
}

#[test]
fn fds_show_their_paths_and_pids_their_comms() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let read = call(0, [3, 0x1000, 10, 0, 0, 0], 10);
    assert_eq!(
        read.perf_line(t.get(0), 0, &Known),
        "1.000 ( 0.004 ms): cat/100 read(fd: 3</etc/hostname>, buf: 0x1000, count: 10) = 10"
    );
    assert_eq!(read.strace_line(t.get(0), 100, &Known), "read(3</etc/hostname>, 0x1000, 10) = 10");
    assert_eq!(read.json(t.get(0), &Known)["args"]["fd"]["value"], "3</etc/hostname>");
    // Unknown fds, and the same fd in another process, print bare.
    let mut other = read.clone();
    other.entry.pid = 101;
    assert!(other.perf_line(t.get(0), 0, &Known).contains("read(fd: 3, "));
    assert!(read.perf_line(t.get(0), 0, &NoNames).contains("read(fd: 3, "));
    // A new fd is named in the result; AT_FDCWD with the directory when asked.
    assert_eq!(
        openat(3).strace_line(t.get(257), 100, &Known),
        r#"openat(AT_FDCWD</tmp>, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3</etc/hostname>"#
    );
    let kill = call(62, [42, 15, 0, 0, 0, 0], 0);
    assert_eq!(
        kill.perf_line(t.get(62), 0, &Known),
        "1.000 ( 0.004 ms): cat/100 kill(pid: 42 (sleep), sig: SIGTERM) = 0"
    );
    // Negative pids (process groups, every process) are numbers only.
    let all = call(62, [(-1i64) as u64, 15, 0, 0, 0, 0], 0);
    assert!(all.perf_line(t.get(62), 0, &Known).contains("kill(pid: -1, "));
}

#[test]
fn interrupted_calls_print_in_two_parts() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let read = call(0, [3, 0x1000, 10, 0, 0, 0], 10);
    assert_eq!(
        read.perf_entry_line(t.get(0), 0, &NoNames),
        "1.000 (         ): cat/100 read(fd: 3, buf: 0x1000, count: 10) ..."
    );
    assert_eq!(
        read.perf_continued_line(t.get(0), 0, &NoNames),
        "1.000 ( 0.004 ms): cat/100  ... [continued]: read()) = 10"
    );
}

#[test]
fn calls_that_never_return_end_in_a_question_mark() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let exit = call(0, [3, 0x1000, 10, 0, 0, 0], 0);
    assert_eq!(
        exit.no_return_line(t.get(0), 0, &NoNames, None),
        "1.000 (         ): cat/100 read(fd: 3, buf: 0x1000, count: 10) = ?"
    );
    assert_eq!(exit.no_return_line(t.get(0), 0, &NoNames, Some(100)), "read(3, 0x1000, 10) = ?");
}
