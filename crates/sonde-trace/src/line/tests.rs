use super::*;
use crate::fixtures::fixtures;
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
        openat(3).strace_line(sc, 100),
        r#"openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3"#
    );
    assert_eq!(
        openat(-2).perf_line(sc, 0),
        r#"1.000 ( 0.004 ms): cat/100 openat(dfd: AT_FDCWD, filename: "/etc/hostname", flags: O_RDONLY|O_CLOEXEC, mode: 0) = -1 ENOENT (No such file or directory)"#
    );
    let j = openat(-2).json(sc);
    assert_eq!(j["errno"], "ENOENT");
    assert_eq!(j["ret"], -1);
    assert_eq!(j["args"]["flags"]["raw"], 0o2000000);
    assert_eq!(j["args"]["flags"]["value"], "O_RDONLY|O_CLOEXEC");
    assert_eq!(j["duration_ns"], 4000);
    let mut child = openat(3);
    child.entry.tid = 101;
    assert!(child.strace_line(sc, 100).starts_with("[pid   101] openat("));
}

#[test]
fn strings_are_quoted_and_cut_buffers_marked() {
    assert_eq!(quote(b"a\"b\n\x01\0zz", None), r#""a\"b\n\1""#);
    assert_eq!(quote(b"0123", Some(10)), r#""0123"..."#);
    assert_eq!(quote(b"01\0xx", Some(3)), r#""01\0""#);
}
