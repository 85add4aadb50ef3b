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

#[test]
fn int_fds_are_signed_whatever_the_declared_type() {
    // mmap's fd is `unsigned long` and close's `unsigned int` in the kernel: strace prints -1.
    assert_eq!(format(kind("mmap", "fd", false), 0xffff_ffff, false, 8), "-1");
    assert_eq!(format(kind("close", "fd", false), 0xffff_ffff, false, 4), "-1");
}

#[test]
fn faccessat_names_its_flag_at_eaccess() {
    assert_eq!(format(kind("faccessat2", "flags", false), 0x200, true, 4), "AT_EACCESS");
    assert_eq!(format(kind("unlinkat", "flag", false), 0x200, true, 4), "AT_REMOVEDIR");
}

#[test]
fn open_flags_in_strace_order() {
    assert_eq!(b("openat", "flags", 0o2204000), "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
    assert_eq!(b("socket", "type", 1 | 0o2004000), "SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK");
    assert_eq!(b("pipe2", "flags", 0), "0");
    assert_eq!(b("pipe2", "flags", 0o2000000), "O_CLOEXEC");
}

#[test]
fn constants_strace_names() {
    assert_eq!(b("ioctl", "cmd", 0x5401), "TCGETS");
    assert_eq!(b("arch_prctl", "option", 0x1002), "ARCH_SET_FS");
    assert_eq!(
        format(kind("arch_prctl", "arg2", false), 0x7f00_0000_0800, false, 8),
        "0x7f0000000800"
    );
    assert_eq!(b("prlimit64", "resource", 3), "RLIMIT_STACK");
    assert_eq!(b("getrandom", "flags", 1), "GRND_NONBLOCK");
    assert_eq!(b("fadvise64", "advice", 2), "POSIX_FADV_SEQUENTIAL");
    assert_eq!(b("rt_sigprocmask", "how", 1), "SIG_UNBLOCK");
    assert_eq!(b("wait4", "options", 1), "WNOHANG");
    assert_eq!(b("wait4", "options", 0), "0");
    assert_eq!(b("clock_nanosleep", "which_clock", 0), "CLOCK_REALTIME");
    assert_eq!(b("madvise", "behavior", 4), "MADV_DONTNEED");
    assert_eq!(b("epoll_create1", "flags", 0o2000000), "EPOLL_CLOEXEC");
    assert_eq!(b("setsockopt", "level", 1), "SOL_SOCKET");
    assert_eq!(b("kill", "sig", 34), "SIGRT_2");
    assert_eq!(b("rseq", "rseq_len", 32), "0x20");
}

#[test]
fn socket_protocols_of_inet_and_commands_without_argument() {
    let raw = [2, 1, 0, 0, 0, 0];
    let t = strace::shape("socket", &raw, vec!["AF_INET".into(), "SOCK_STREAM".into(), "0".into()]);
    assert_eq!(t[2], "IPPROTO_IP");
    let raw = [3, 0x5451, 0, 0, 0, 0];
    let t = strace::shape("ioctl", &raw, vec!["3".into(), "FIOCLEX".into(), "NULL".into()]);
    assert_eq!(t, ["3", "FIOCLEX"]);
}
