//! The integer constants of the C headers bpftrace's tools `#include`.
//!
//! bpftrace gets these from the machine's headers through clang; sonde needs no headers, so an
//! `#include` of one of these defines its constants from this table (x86-64 values, stable across
//! the kernels sonde supports). Types never come from here: they come from BTF, and a BTF enum
//! (`TCP_ESTABLISHED`) needs no entry.

/// The constants an `#include <PATH>` defines, or none for a header not in the table.
pub fn constants(path: &str) -> &'static [(&'static str, &'static str)] {
    match path {
        "sys/socket.h" | "linux/socket.h" | "bits/socket.h" | "netinet/in.h" | "net/sock.h" => {
            SOCKET
        }
        "linux/sched.h" => SCHED,
        "fcntl.h" | "linux/fcntl.h" | "asm-generic/fcntl.h" => FCNTL,
        "linux/time.h" | "time.h" => TIME,
        _ => &[],
    }
}

const SOCKET: &[(&str, &str)] = &[
    ("AF_UNSPEC", "0"),
    ("AF_UNIX", "1"),
    ("AF_LOCAL", "1"),
    ("AF_INET", "2"),
    ("AF_INET6", "10"),
    ("AF_NETLINK", "16"),
    ("AF_PACKET", "17"),
    ("AF_VSOCK", "40"),
    ("AF_XDP", "44"),
    ("PF_UNSPEC", "0"),
    ("PF_UNIX", "1"),
    ("PF_LOCAL", "1"),
    ("PF_INET", "2"),
    ("PF_INET6", "10"),
    ("PF_NETLINK", "16"),
    ("PF_PACKET", "17"),
    ("SOCK_STREAM", "1"),
    ("SOCK_DGRAM", "2"),
    ("SOCK_RAW", "3"),
    ("SOCK_RDM", "4"),
    ("SOCK_SEQPACKET", "5"),
    ("SOCK_NONBLOCK", "2048"),
    ("SOCK_CLOEXEC", "524288"),
];

/// The task states whose values have not changed since 4.14, and `clone`'s flags.
const SCHED: &[(&str, &str)] = &[
    ("TASK_RUNNING", "0"),
    ("TASK_INTERRUPTIBLE", "1"),
    ("TASK_UNINTERRUPTIBLE", "2"),
    ("__TASK_STOPPED", "4"),
    ("__TASK_TRACED", "8"),
    ("EXIT_DEAD", "16"),
    ("EXIT_ZOMBIE", "32"),
    ("TASK_NORMAL", "3"),
    ("CLONE_VM", "0x100"),
    ("CLONE_FS", "0x200"),
    ("CLONE_FILES", "0x400"),
    ("CLONE_SIGHAND", "0x800"),
    ("CLONE_PIDFD", "0x1000"),
    ("CLONE_PTRACE", "0x2000"),
    ("CLONE_VFORK", "0x4000"),
    ("CLONE_PARENT", "0x8000"),
    ("CLONE_THREAD", "0x10000"),
    ("CLONE_NEWNS", "0x20000"),
    ("CLONE_SYSVSEM", "0x40000"),
    ("CLONE_SETTLS", "0x80000"),
    ("CLONE_PARENT_SETTID", "0x100000"),
    ("CLONE_CHILD_CLEARTID", "0x200000"),
    ("CLONE_UNTRACED", "0x800000"),
    ("CLONE_CHILD_SETTID", "0x1000000"),
    ("CLONE_NEWCGROUP", "0x2000000"),
    ("CLONE_NEWUTS", "0x4000000"),
    ("CLONE_NEWIPC", "0x8000000"),
    ("CLONE_NEWUSER", "0x10000000"),
    ("CLONE_NEWPID", "0x20000000"),
    ("CLONE_NEWNET", "0x40000000"),
    ("CLONE_IO", "0x80000000"),
];

const FCNTL: &[(&str, &str)] = &[
    ("O_RDONLY", "0"),
    ("O_WRONLY", "1"),
    ("O_RDWR", "2"),
    ("O_ACCMODE", "3"),
    ("O_CREAT", "0x40"),
    ("O_EXCL", "0x80"),
    ("O_NOCTTY", "0x100"),
    ("O_TRUNC", "0x200"),
    ("O_APPEND", "0x400"),
    ("O_NONBLOCK", "0x800"),
    ("O_DSYNC", "0x1000"),
    ("O_DIRECT", "0x4000"),
    ("O_LARGEFILE", "0x8000"),
    ("O_DIRECTORY", "0x10000"),
    ("O_NOFOLLOW", "0x20000"),
    ("O_NOATIME", "0x40000"),
    ("O_CLOEXEC", "0x80000"),
    ("O_PATH", "0x200000"),
    ("AT_FDCWD", "-100"),
];

const TIME: &[(&str, &str)] = &[
    ("CLOCK_REALTIME", "0"),
    ("CLOCK_MONOTONIC", "1"),
    ("CLOCK_PROCESS_CPUTIME_ID", "2"),
    ("CLOCK_THREAD_CPUTIME_ID", "3"),
    ("CLOCK_MONOTONIC_RAW", "4"),
    ("CLOCK_REALTIME_COARSE", "5"),
    ("CLOCK_MONOTONIC_COARSE", "6"),
    ("CLOCK_BOOTTIME", "7"),
    ("CLOCK_REALTIME_ALARM", "8"),
    ("CLOCK_BOOTTIME_ALARM", "9"),
    ("CLOCK_TAI", "11"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_header_defines_each_name_once() {
        for h in ["sys/socket.h", "linux/sched.h", "fcntl.h", "linux/time.h"] {
            let names: Vec<_> = constants(h).iter().map(|c| c.0).collect();
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(names.len(), unique.len(), "{h}");
        }
        assert!(constants("linux/blkdev.h").is_empty());
    }
}
