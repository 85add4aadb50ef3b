use super::*;
use crate::syscalls::{Arg, Syscall};

fn sc(nr: u32, name: &str, args: &[(&str, bool)]) -> Syscall {
    let args = args
        .iter()
        .map(|&(n, s)| Arg {
            name: n.into(),
            is_string: s,
            is_pointer: s,
            signed: false,
            bytes: 8,
            pid: false,
        })
        .collect();
    Syscall { nr, name: name.into(), tracepoint: name.into(), args }
}

fn table() -> SyscallTable {
    SyscallTable::from_syscalls(vec![
        sc(0, "read", &[("fd", false), ("buf", false), ("count", false)]),
        sc(2, "open", &[("filename", true), ("flags", false), ("mode", false)]),
        sc(202, "futex", &[("uaddr", false)]),
        sc(232, "epoll_wait", &[("epfd", false)]),
        sc(257, "openat", &[("dfd", false), ("filename", true)]),
        sc(62, "kill", &[("pid", false), ("sig", false)]),
    ])
}

fn nrs(s: &Selection) -> Vec<u32> {
    s.nrs.iter().copied().collect()
}

#[test]
fn names_globs_negation_and_classes() {
    let t = table();
    assert_eq!(nrs(&Selection::parse("open*,read", &t).unwrap()), [0, 2, 257]);
    assert_eq!(nrs(&Selection::parse("!futex,epoll_*", &t).unwrap()), [0, 2, 62, 257]);
    assert_eq!(nrs(&Selection::parse("%file", &t).unwrap()), [2, 257]);
    assert_eq!(nrs(&Selection::parse("%desc", &t).unwrap()), [0, 2, 232, 257]);
    assert_eq!(nrs(&Selection::parse("trace=%signal", &t).unwrap()), [62]);
    assert!(Selection::everything(&t).all);
}

#[test]
fn mistakes_are_one_sentence() {
    let t = table();
    assert_eq!(Selection::parse("opn", &t), Err(SelectError::Unknown("opn".into())));
    assert_eq!(Selection::parse("zz*", &t), Err(SelectError::NoMatch("zz*".into())));
    assert_eq!(Selection::parse("%fil", &t), Err(SelectError::Class("fil".into())));
    assert_eq!(Selection::parse("read,", &t), Err(SelectError::Empty));
}
