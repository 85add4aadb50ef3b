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
    assert_eq!(
        j["args"]["filename"],
        serde_json::json!({"raw": 0x7fff_0000, "value": "/etc/hostname"})
    );
    assert_eq!(j["args"]["dfd"], serde_json::json!({"raw": 0xffff_ff9c_u64, "value": "AT_FDCWD"}));
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
    assert_eq!(
        read.json(t.get(0), &Known)["args"]["fd"],
        serde_json::json!({"raw": 3, "value": 3, "path": "/etc/hostname"})
    );
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

/// strace -Y's names: [`Known`]'s, spelled `42<sleep>`.
struct Angles;

impl Names for Angles {
    fn fd_path(&self, _: u32, _: i64) -> Option<String> {
        None
    }
    fn comm(&self, pid: i64) -> Option<String> {
        Known.comm(pid)
    }
    fn cwd(&self, _: u32) -> Option<String> {
        None
    }
    fn strace_comms(&self) -> bool {
        true
    }
}

#[test]
fn capital_y_spells_comms_as_strace_does() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let kill = call(62, [42, 15, 0, 0, 0, 0], 0);
    assert_eq!(kill.strace_line(t.get(62), 100, &Angles), "kill(42<sleep>, SIGTERM) = 0");
    let mut getpid = call(39, [0; 6], 42);
    getpid.entry.tid = 42;
    getpid.entry.comm = "sleep".into();
    assert_eq!(
        getpid.strace_line(t.get(39), 100, &Angles),
        "[pid    42<sleep>] getpid() = 42<sleep>"
    );
    assert_eq!(getpid.strace_line(t.get(39), 100, &Known), "[pid    42] getpid() = 42");
    // The child a wait4 reaps is gone when strace prints it: no comm.
    let wait4 = call(61, [u64::MAX, 0, 0, 0, 0, 0], 42);
    assert!(wait4.strace_line(t.get(61), 100, &Angles).ends_with(" = 42"));
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

/// The `args` of a call's JSON, and the call checked against the records' schema.
fn json_args(
    c: &Call,
    sc: Option<&crate::syscalls::Syscall>,
    names: &dyn Names,
) -> serde_json::Value {
    let j = c.json(sc, names);
    let record = sonde_output::Record::new(sonde_output::Type::TraceCall, j.clone());
    let schema = sonde_schema::Schema::records().unwrap();
    schema.check_line(&record.to_string()).unwrap_or_else(|e| panic!("{e}"));
    j["args"].clone()
}

#[test]
fn json_arguments_are_raw_and_decoded_values() {
    use serde_json::json;
    let t = SyscallTable::load(&fixtures()).unwrap();
    // Every argument the format file names; AT_FDCWD with the directory where it is known.
    let args = json_args(&openat(3), t.get(257), &Known);
    let names: Vec<&String> = args.as_object().unwrap().keys().collect();
    assert_eq!(names, ["dfd", "filename", "flags", "mode"]);
    assert_eq!(args["dfd"], json!({"raw": 0xffff_ff9c_u64, "value": "AT_FDCWD", "path": "/tmp"}));
    assert_eq!(args["mode"], json!({"raw": 0, "value": "0"}));
    // An fd without a known path is its number; a pointer is its address; a size a number.
    let read = call(0, [4, 0x1000, u64::MAX, 0, 0, 0], -9);
    let args = json_args(&read, t.get(0), &Known);
    assert_eq!(args["fd"], json!({"raw": 4, "value": 4}));
    assert_eq!(args["buf"], json!({"raw": 0x1000, "value": 0x1000}));
    assert_eq!(args["count"], json!({"raw": u64::MAX, "value": u64::MAX}));
    // A buffer copied shorter than its length, NULs and all; a pid with its comm; a signal.
    let mut write = call(1, [1, 0x2000, 10, 0, 0, 0], 10);
    write.entry.strings = vec![(1, b"a\0\"b".to_vec())];
    let args = json_args(&write, t.get(1), &Known);
    assert_eq!(args["buf"], json!({"raw": 0x2000, "value": "a\u{0}\"b", "truncated": true}));
    let args = json_args(&call(62, [42, 15, 0, 0, 0, 0], 0), t.get(62), &Known);
    assert_eq!(args["pid"], json!({"raw": 42, "value": 42, "comm": "sleep"}));
    assert_eq!(args["sig"], json!({"raw": 15, "value": "SIGTERM"}));
    // A signed argument is its C type's value: kill(-1, ...) is every process.
    let args = json_args(&call(62, [u64::MAX, 0, 0, 0, 0, 0], 0), t.get(62), &Known);
    assert_eq!(args["pid"], json!({"raw": u64::MAX, "value": -1}));
    // A call the kernel does not describe: its six registers.
    let args = json_args(&call(999, [1, 2, 3, 4, 5, 6], 0), t.get(999), &NoNames);
    assert_eq!(args["arg5"], json!({"raw": 6, "value": 6}));
}

#[test]
fn openat_mode_only_with_o_creat_or_the_whole_o_tmpfile() {
    assert!(mode_unused("openat", &[0, 0, 0o2204000, 0, 0, 0]), "O_DIRECTORY is not O_TMPFILE");
    assert!(!mode_unused("openat", &[0, 0, libc::O_TMPFILE as u64 | 2, 0o600, 0, 0]));
    assert!(!mode_unused("openat", &[0, 0, 0o101, 0o644, 0, 0]));
}

#[test]
fn what_a_call_fills_is_printed_when_it_returns() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let read = |ret: i64, filled: bool| {
        let mut strings = Vec::new();
        if filled {
            strings.push((crate::memory::out_index(1), b"PackageKit\nX11\0".to_vec()));
        }
        Call {
            entry: Entry {
                tid: 100,
                pid: 100,
                time_ns: 1_000_000,
                nr: 0,
                args: [0, 0x7fff_0000, 16320, 0, 0, 0],
                comm: "wc".into(),
                strings,
            },
            exit_ns: 1_004_000,
            ret,
        }
    };
    let sc = t.get(0);
    assert_eq!(
        read(0, false).strace_split_line(sc, 100, &NoNames, false),
        "read(0,  <unfinished ...>"
    );
    assert_eq!(
        read(14, true).strace_split_line(sc, 100, &NoNames, true),
        r#"<... read resumed>"PackageKit\nX11", 16320) = 14"#
    );
    assert_eq!(
        read(14, true).strace_line(sc, 100, &NoNames),
        r#"read(0, "PackageKit\nX11", 16320) = 14"#
    );
    assert_eq!(
        read(-4, true).strace_line(sc, 100, &NoNames),
        "read(0, 0x7fff0000, 16320) = -1 EINTR (Interrupted system call)"
    );
}

/// An ioctl that fills its argument (TCGETS) prints it at its end, and as an address when it
/// failed, even where the entry's copy holds bytes: `ioctl(1, TCGETS <unfinished ...>`.
#[test]
fn an_ioctl_prints_what_it_fills_when_it_returns() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let tcgets = |ret: i64| Call {
        entry: Entry {
            tid: 100,
            pid: 100,
            time_ns: 0,
            nr: 16,
            args: [1, 0x5401, 0x7fff_0000, 0, 0, 0],
            comm: "ls".into(),
            strings: vec![(crate::memory::in_index(2), vec![0; 60])],
        },
        exit_ns: 0,
        ret,
    };
    let sc = t.get(16);
    assert_eq!(sc.map(|s| s.name.as_str()), Some("ioctl"));
    assert_eq!(
        tcgets(-25).strace_split_line(sc, 100, &NoNames, false),
        "ioctl(1, TCGETS <unfinished ...>"
    );
    assert_eq!(
        tcgets(-25).strace_split_line(sc, 100, &NoNames, true),
        "<... ioctl resumed>, 0x7fff0000) = -1 ENOTTY (Inappropriate ioctl for device)"
    );
    assert_eq!(
        tcgets(-25).strace_line(sc, 100, &NoNames),
        "ioctl(1, TCGETS, 0x7fff0000) = -1 ENOTTY (Inappropriate ioctl for device)"
    );
}

#[test]
fn written_bytes_keep_their_nuls_unless_the_copy_failed() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let write = |copy: &[u8]| Call {
        entry: Entry {
            tid: 100,
            pid: 100,
            time_ns: 0,
            nr: 1,
            args: [4, 0x7fff_0000, 10240, 0, 0, 0],
            comm: "tar".into(),
            strings: vec![(1, b"etc/".to_vec()), (crate::memory::in_index(1), copy.to_vec())],
        },
        exit_ns: 0,
        ret: 10240,
    };
    let sc = t.get(1);
    assert_eq!(
        write(b"etc/\0\0\0\0").strace_line(sc, 100, &NoNames),
        r#"write(4, "etc/\0\0\0\0"..., 10240) = 10240"#
    );
    // The copy of whole bytes failed (zeros): the string copy is shown.
    assert_eq!(
        write(&[0; 8]).strace_line(sc, 100, &NoNames),
        r#"write(4, "etc/"..., 10240) = 10240"#
    );
}

#[test]
fn rt_sigreturn_shows_the_mask_it_restored() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sc = t.by_name("rt_sigreturn");
    let mut ret = call(15, [0; 6], 0);
    assert_eq!(ret.strace_line(sc, 100, &NoNames), "rt_sigreturn() = 0", "no copy, no mask");
    ret.entry.strings = vec![(crate::memory::out_index(0), 0u64.to_le_bytes().to_vec())];
    assert_eq!(ret.strace_line(sc, 100, &NoNames), "rt_sigreturn({mask=[]}) = 0");
    // SIGUSR2 and SIGPIPE blocked; the restored result of the interrupted code.
    let mask: u64 = (1 << 11) | (1 << 12);
    ret.entry.strings = vec![(crate::memory::out_index(0), mask.to_le_bytes().to_vec())];
    ret.ret = 18;
    assert_eq!(ret.strace_line(sc, 100, &NoNames), "rt_sigreturn({mask=[USR2 PIPE]}) = 18");
}

#[test]
fn a_split_rt_sigreturn_shows_the_mask_its_entry_read_from_the_signal_frame() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sc = t.by_name("rt_sigreturn");
    let mut ret = call(15, [0; 6], 7);
    ret.entry.strings = vec![(crate::memory::in_index(0), (1u64 << 9).to_le_bytes().to_vec())];
    assert_eq!(
        ret.strace_split_line(sc, 100, &NoNames, false),
        "rt_sigreturn({mask=[USR1]} <unfinished ...>"
    );
    // The exit's copy, once there, is the one trusted.
    ret.entry.strings.push((crate::memory::out_index(0), 0u64.to_le_bytes().to_vec()));
    assert_eq!(ret.strace_line(sc, 100, &NoNames), "rt_sigreturn({mask=[]}) = 7");
}
