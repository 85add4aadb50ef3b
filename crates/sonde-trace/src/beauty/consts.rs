//! Constants strace names where a number was printed before: ioctl requests, arch_prctl codes,
//! resources, advice, clocks, `how`s, options and masks, with strace 6's spellings and orders.

use super::{flags, one, Table};

/// `SIGINT`, `SIGRTMIN`, `SIGRT_2` (strace's names of the real-time signals), or the number.
pub fn signal(v: i64) -> String {
    match signal_name(v) {
        Some(n) => n,
        None => v.to_string(),
    }
}

/// `0`, or the signal's name (clone3's exit_signal).
pub fn signal_or_zero(v: i64) -> String {
    match v {
        0 => "0".into(),
        v => signal(v),
    }
}

/// The signal's name with `SIG`, as strace spells it.
pub fn signal_name(v: i64) -> Option<String> {
    if let Some((_, n)) = super::SIGNALS.iter().find(|(x, _)| *x as i64 == v) {
        return Some(n.to_string());
    }
    match v {
        32 => Some("SIGRTMIN".into()),
        33..=64 => Some(format!("SIGRT_{}", v - 32)),
        _ => None,
    }
}

/// An ioctl request: strace's name of the common tty and file requests.
pub fn ioctl_request(v: u32) -> String {
    one(v as i64, IOCTL)
}

pub fn statx_flags(raw: u64) -> String {
    let sync = match raw & 0x6000 {
        0x2000 => "AT_STATX_FORCE_SYNC",
        0x4000 => "AT_STATX_DONT_SYNC",
        0x6000 => return flags(raw, super::AT),
        _ => "AT_STATX_SYNC_AS_STAT",
    };
    match raw & !0x6000 {
        0 => sync.into(),
        rest => format!("{sync}|{}", flags(rest, super::AT)),
    }
}

/// A zero value prints `0`, others by name.
pub fn flags_or_zero(raw: u64, table: Table) -> String {
    if raw == 0 {
        "0".into()
    } else {
        flags(raw, table)
    }
}

pub const IOCTL: Table = &[
    (0x5401, "TCGETS"),
    // strace names the OSS requests of the same numbers first.
    (0x5402, "SNDCTL_TMR_START or TCSETS"),
    (0x5403, "SNDCTL_TMR_STOP or TCSETSW"),
    (0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF"),
    (0x540a, "TCXONC"),
    (0x540b, "TCFLSH"),
    (0x540c, "TIOCEXCL"),
    (0x540d, "TIOCNXCL"),
    (0x540e, "TIOCSCTTY"),
    (0x5411, "TIOCOUTQ"),
    (0x5412, "TIOCSTI"),
    (0x5415, "TIOCMGET"),
    (0x5422, "TIOCNOTTY"),
    (0x5429, "TIOCGSID"),
    (0x5441, "TIOCGPTPEER"),
    (0x40045431, "TIOCSPTLCK"),
    (0x540f, "TIOCGPGRP"),
    (0x5410, "TIOCSPGRP"),
    (0x5413, "TIOCGWINSZ"),
    (0x5414, "TIOCSWINSZ"),
    (0x541b, "FIONREAD"),
    (0x5421, "FIONBIO"),
    (0x5450, "FIONCLEX"),
    (0x5451, "FIOCLEX"),
    (0x5452, "FIOASYNC"),
    (0x80045430, "TIOCGPTN"),
    (0x40049409, "BTRFS_IOC_CLONE or FICLONE"),
];

pub const ARCH_PRCTL: Table = &[
    (0x1001, "ARCH_SET_GS"),
    (0x1002, "ARCH_SET_FS"),
    (0x1003, "ARCH_GET_FS"),
    (0x1004, "ARCH_GET_GS"),
    (0x1011, "ARCH_GET_CPUID"),
    (0x1012, "ARCH_SET_CPUID"),
    (0x1021, "ARCH_GET_XCOMP_SUPP"),
    (0x1022, "ARCH_GET_XCOMP_PERM"),
    (0x1023, "ARCH_REQ_XCOMP_PERM"),
    (0x1024, "ARCH_GET_XCOMP_GUEST_PERM"),
    (0x1025, "ARCH_REQ_XCOMP_GUEST_PERM"),
    (0x2001, "ARCH_MAP_VDSO_X32"),
    (0x2002, "ARCH_MAP_VDSO_32"),
    (0x2003, "ARCH_MAP_VDSO_64"),
    (0x5001, "ARCH_SHSTK_ENABLE"),
    (0x5002, "ARCH_SHSTK_DISABLE"),
    (0x5003, "ARCH_SHSTK_LOCK"),
    (0x5004, "ARCH_SHSTK_UNLOCK"),
    (0x5005, "ARCH_SHSTK_STATUS"),
];

macro_rules! table {
    ($($c:ident),* $(,)?) => {
        &[$((libc::$c as u64, stringify!($c)),)*]
    };
}

pub const RESOURCES: Table = table!(
    RLIMIT_CPU,
    RLIMIT_FSIZE,
    RLIMIT_DATA,
    RLIMIT_STACK,
    RLIMIT_CORE,
    RLIMIT_RSS,
    RLIMIT_NPROC,
    RLIMIT_NOFILE,
    RLIMIT_MEMLOCK,
    RLIMIT_AS,
    RLIMIT_LOCKS,
    RLIMIT_SIGPENDING,
    RLIMIT_MSGQUEUE,
    RLIMIT_NICE,
    RLIMIT_RTPRIO,
    RLIMIT_RTTIME,
);
pub const GRND: Table = &[(1, "GRND_NONBLOCK"), (2, "GRND_RANDOM"), (4, "GRND_INSECURE")];
pub const FADVISE: Table = table!(
    POSIX_FADV_NORMAL,
    POSIX_FADV_RANDOM,
    POSIX_FADV_SEQUENTIAL,
    POSIX_FADV_WILLNEED,
    POSIX_FADV_DONTNEED,
    POSIX_FADV_NOREUSE,
);
pub const SIG_HOW: Table = table!(SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK);
pub const WAIT_OPTIONS: Table = &[
    (1, "WNOHANG"),
    (2, "WSTOPPED"),
    (4, "WEXITED"),
    (8, "WCONTINUED"),
    (0x0100_0000, "WNOWAIT"),
    (0x2000_0000, "__WNOTHREAD"),
    (0x4000_0000, "__WALL"),
    (0x8000_0000, "__WCLONE"),
];
/// strace lists the sets before their members, so a full set prints as one name.
pub const STATX_MASK: Table = &[
    (0xfff, "STATX_ALL"),
    (0x7ff, "STATX_BASIC_STATS"),
    (0x1, "STATX_TYPE"),
    (0x2, "STATX_MODE"),
    (0x4, "STATX_NLINK"),
    (0x8, "STATX_UID"),
    (0x10, "STATX_GID"),
    (0x20, "STATX_ATIME"),
    (0x40, "STATX_MTIME"),
    (0x80, "STATX_CTIME"),
    (0x100, "STATX_INO"),
    (0x200, "STATX_SIZE"),
    (0x400, "STATX_BLOCKS"),
    (0x800, "STATX_BTIME"),
    (0x1000, "STATX_MNT_ID"),
    (0x2000, "STATX_DIOALIGN"),
    (0x4000, "STATX_MNT_ID_UNIQUE"),
    (0x8000, "STATX_SUBVOL"),
    (0x10000, "STATX_WRITE_ATOMIC"),
];
pub const CLOCKS: Table = table!(
    CLOCK_REALTIME,
    CLOCK_MONOTONIC,
    CLOCK_PROCESS_CPUTIME_ID,
    CLOCK_THREAD_CPUTIME_ID,
    CLOCK_MONOTONIC_RAW,
    CLOCK_REALTIME_COARSE,
    CLOCK_MONOTONIC_COARSE,
    CLOCK_BOOTTIME,
    CLOCK_REALTIME_ALARM,
    CLOCK_BOOTTIME_ALARM,
    CLOCK_TAI,
);
pub const TIMER_FLAGS: Table = &[(1, "TIMER_ABSTIME")];
pub const MADVISE: Table = &[
    (0, "MADV_NORMAL"),
    (1, "MADV_RANDOM"),
    (2, "MADV_SEQUENTIAL"),
    (3, "MADV_WILLNEED"),
    (4, "MADV_DONTNEED"),
    (8, "MADV_FREE"),
    (9, "MADV_REMOVE"),
    (10, "MADV_DONTFORK"),
    (11, "MADV_DOFORK"),
    (12, "MADV_MERGEABLE"),
    (13, "MADV_UNMERGEABLE"),
    (14, "MADV_HUGEPAGE"),
    (15, "MADV_NOHUGEPAGE"),
    (16, "MADV_DONTDUMP"),
    (17, "MADV_DODUMP"),
    (18, "MADV_WIPEONFORK"),
    (19, "MADV_KEEPONFORK"),
    (20, "MADV_COLD"),
    (21, "MADV_PAGEOUT"),
    (22, "MADV_POPULATE_READ"),
    (23, "MADV_POPULATE_WRITE"),
    (24, "MADV_DONTNEED_LOCKED"),
    (25, "MADV_COLLAPSE"),
    (100, "MADV_HWPOISON"),
];
/// Flags that are O_CLOEXEC / O_NONBLOCK under another name (epoll_create1, eventfd2, ...).
pub const EPOLL_FLAGS: Table = &[(libc::O_CLOEXEC as u64, "EPOLL_CLOEXEC")];
pub const EFD_FLAGS: Table = &[
    (libc::EFD_SEMAPHORE as u64, "EFD_SEMAPHORE"),
    (libc::O_NONBLOCK as u64, "EFD_NONBLOCK"),
    (libc::O_CLOEXEC as u64, "EFD_CLOEXEC"),
];
pub const FD_FLAGS: Table = &[(1, "FD_CLOEXEC")];
/// strace names levels `SOL_*`.
pub const SOCK_LEVELS: Table = &[
    (0, "SOL_IP"),
    (1, "SOL_SOCKET"),
    (6, "SOL_TCP"),
    (17, "SOL_UDP"),
    (41, "SOL_IPV6"),
    (58, "SOL_ICMPV6"),
    (270, "SOL_NETLINK"),
];
pub const IP_OPTS: Table = table!(
    IP_TOS,
    IP_TTL,
    IP_HDRINCL,
    IP_OPTIONS,
    IP_PKTINFO,
    IP_MTU_DISCOVER,
    IP_RECVERR,
    IP_RECVTTL,
    IP_MULTICAST_IF,
    IP_MULTICAST_TTL,
    IP_MULTICAST_LOOP,
    IP_ADD_MEMBERSHIP,
);
pub const IPV6_OPTS: Table =
    table!(IPV6_UNICAST_HOPS, IPV6_MTU_DISCOVER, IPV6_RECVERR, IPV6_V6ONLY, IPV6_TCLASS);
pub const SFD_FLAGS: Table =
    &[(libc::O_NONBLOCK as u64, "SFD_NONBLOCK"), (libc::O_CLOEXEC as u64, "SFD_CLOEXEC")];
pub const SOL_SOCKET_OPTS: Table = table!(
    SO_DEBUG,
    SO_REUSEADDR,
    SO_TYPE,
    SO_ERROR,
    SO_DONTROUTE,
    SO_BROADCAST,
    SO_SNDBUF,
    SO_RCVBUF,
    SO_KEEPALIVE,
    SO_OOBINLINE,
    SO_LINGER,
    SO_REUSEPORT,
    SO_PASSCRED,
    SO_PEERCRED,
    SO_RCVLOWAT,
    SO_SNDLOWAT,
    SO_RCVTIMEO,
    SO_SNDTIMEO,
    SO_PRIORITY,
    SO_MARK,
    SO_DOMAIN,
    SO_PROTOCOL,
);
pub const TCP_OPTS: Table = table!(TCP_NODELAY, TCP_MAXSEG, TCP_CORK, TCP_KEEPIDLE, TCP_KEEPINTVL);
pub const MSG_FLAGS: Table = table!(
    MSG_OOB,
    MSG_PEEK,
    MSG_DONTROUTE,
    MSG_CTRUNC,
    MSG_TRUNC,
    MSG_DONTWAIT,
    MSG_EOR,
    MSG_WAITALL,
    MSG_NOSIGNAL,
    MSG_MORE,
    MSG_CMSG_CLOEXEC,
);
pub const IP_PROTOCOLS: Table =
    table!(IPPROTO_IP, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6, IPPROTO_RAW);
pub const NETLINK_PROTOCOLS: Table = &[
    (0, "NETLINK_ROUTE"),
    (1, "NETLINK_UNUSED"),
    (2, "NETLINK_USERSOCK"),
    (3, "NETLINK_FIREWALL"),
    (4, "NETLINK_SOCK_DIAG"),
    (5, "NETLINK_NFLOG"),
    (6, "NETLINK_XFRM"),
    (7, "NETLINK_SELINUX"),
    (8, "NETLINK_ISCSI"),
    (9, "NETLINK_AUDIT"),
    (10, "NETLINK_FIB_LOOKUP"),
    (11, "NETLINK_CONNECTOR"),
    (12, "NETLINK_NETFILTER"),
    (13, "NETLINK_IP6_FW"),
    (14, "NETLINK_DNRTMSG"),
    (15, "NETLINK_KOBJECT_UEVENT"),
    (16, "NETLINK_GENERIC"),
    (18, "NETLINK_SCSITRANSPORT"),
    (19, "NETLINK_ECRYPTFS"),
    (20, "NETLINK_RDMA"),
    (21, "NETLINK_CRYPTO"),
    (22, "NETLINK_SMC"),
];
pub const NETLINK_OPTS: Table = &[
    (1, "NETLINK_ADD_MEMBERSHIP"),
    (2, "NETLINK_DROP_MEMBERSHIP"),
    (3, "NETLINK_PKTINFO"),
    (4, "NETLINK_BROADCAST_ERROR"),
    (5, "NETLINK_NO_ENOBUFS"),
    (6, "NETLINK_RX_RING"),
    (7, "NETLINK_TX_RING"),
    (8, "NETLINK_LISTEN_ALL_NSID"),
    (9, "NETLINK_LIST_MEMBERSHIPS"),
    (10, "NETLINK_CAP_ACK"),
    (11, "NETLINK_EXT_ACK"),
    (12, "NETLINK_GET_STRICT_CHK"),
];
pub const SHUTDOWN: Table = table!(SHUT_RD, SHUT_WR, SHUT_RDWR);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_time_signals_as_strace_6_names_them() {
        assert_eq!(signal(2), "SIGINT");
        assert_eq!(signal(32), "SIGRTMIN");
        assert_eq!(signal(34), "SIGRT_2");
        assert_eq!(signal(64), "SIGRT_32");
        assert_eq!(signal(65), "65");
    }

    #[test]
    fn statx_flags_name_the_sync_type_first() {
        assert_eq!(statx_flags(0x900), "AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW|AT_NO_AUTOMOUNT");
        assert_eq!(statx_flags(0x1000), "AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH");
        assert_eq!(statx_flags(0), "AT_STATX_SYNC_AS_STAT");
    }

    #[test]
    fn statx_masks_name_the_basic_set() {
        assert_eq!(flags(0x17ff, STATX_MASK), "STATX_BASIC_STATS|STATX_MNT_ID");
        assert_eq!(
            flags(0x25e, STATX_MASK),
            "STATX_MODE|STATX_NLINK|STATX_UID|STATX_GID|STATX_MTIME|STATX_SIZE"
        );
    }
}
