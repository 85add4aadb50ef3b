use super::*;

fn b(sc: &str, arg: &str, raw: u64) -> String {
    format(kind(sc, arg, false), raw, true, 4)
}

#[test]
fn openat_in_strace_spelling() {
    assert_eq!(b("openat", "dfd", 0xffff_ff9c), "AT_FDCWD");
    assert_eq!(b("openat", "dfd", 3), "3");
    assert_eq!(b("openat", "flags", 0o2000000), "O_RDONLY|O_CLOEXEC");
    assert_eq!(b("openat", "flags", 0o1101), "O_WRONLY|O_CREAT|O_TRUNC");
    assert_eq!(b("openat", "mode", 0o644), "0644");
    assert_eq!(b("openat", "flags", 0o4010000), "O_RDONLY|O_SYNC", "O_SYNC is not O_DSYNC");
}

#[test]
fn memory_signals_and_commands() {
    assert_eq!(b("mmap", "prot", 3), "PROT_READ|PROT_WRITE");
    assert_eq!(b("mprotect", "prot", 0), "PROT_NONE");
    assert_eq!(b("mmap", "flags", 0x22), "MAP_PRIVATE|MAP_ANONYMOUS");
    assert_eq!(b("kill", "sig", 9), "SIGKILL");
    assert_eq!(b("lseek", "whence", 2), "SEEK_END");
    assert_eq!(b("futex", "op", 0x80), "FUTEX_WAIT_PRIVATE");
    assert_eq!(b("socket", "family", 2), "AF_INET");
    assert_eq!(b("socket", "type", 1 | 0o2000000), "SOCK_STREAM|SOCK_CLOEXEC");
    assert_eq!(b("faccessat", "mode", 0), "F_OK");
    assert_eq!(b("faccessat", "mode", 6), "R_OK|W_OK");
    assert_eq!(b("prctl", "option", 15), "PR_SET_NAME");
    // strace's generic prctl: the other arguments in hex.
    assert_eq!(b("prctl", "arg2", 0x55e7_0000_1234), "0x55e700001234");
    assert_eq!(b("prctl", "arg3", 0), "0");
    assert_eq!(b("prctl", "arg5", 16), "0x10");
    assert_eq!(b("fcntl", "cmd", 1), "F_GETFD");
    assert_eq!(b("unlinkat", "flag", 0x200), "AT_REMOVEDIR");
    assert_eq!(
        format(kind("clone", "clone_flags", false), 0x1200011, false, 8),
        "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD"
    );
}

#[test]
fn unknown_bits_and_values_stay_visible() {
    assert_eq!(b("mmap", "prot", 0x40), "0x40");
    assert_eq!(b("kill", "sig", 99), "99");
    assert_eq!(format(Kind::Hex, 0, false, 8), "NULL");
    assert_eq!(format(Kind::Hex, 0x1000, false, 8), "0x1000");
}
