//! Arguments in words: flags, modes, commands and signals decoded symbolically, with strace's
//! spellings (`O_RDONLY|O_CLOEXEC`, `AT_FDCWD`). Every table's values are the `libc` crate's
//! constants; the beautifier is chosen by the syscall and the argument's name in the format file.

/// How one argument prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Hex,
    /// A number strace prints in hex, 0 as `0` (prctl's arg2..arg5 where it has no decoder).
    HexNum,
    /// A file descriptor: shown with its path when known (`3</etc/hostname>`).
    Fd,
    /// A `pid_t` argument: shown with the task's comm when known (`1234 (sleep)`).
    Pid,
    Dirfd,
    OpenFlags,
    Mode,
    AccessMode,
    AtFlags,
    Prot,
    MmapFlags,
    Whence,
    Signal,
    FutexOp,
    Domain,
    SockType,
    FcntlCmd,
    PrctlOption,
    CloneFlags,
    /// faccessat's flags: the bit AT_REMOVEDIR has is AT_EACCESS there.
    AccessAtFlags,
    StatxFlags,
    Consts(Consts),
}

/// Arguments named from one of [`consts`]' tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consts {
    Ioctl,
    ArchPrctl,
    Resource,
    Grnd,
    Fadvise,
    SigHow,
    WaitOptions,
    StatxMask,
    Clock,
    TimerFlags,
    Madvise,
    EpollFlags,
    EfdFlags,
    SockLevel,
    MsgFlags,
    Shutdown,
    /// O_* flags without an access mode (pipe2, dup3).
    OFlags,
    /// accept4's SOCK_CLOEXEC|SOCK_NONBLOCK.
    SockFlags,
    SfdFlags,
    EpollCtl,
    RusageWho,
}

/// The beautifier for argument `arg` of syscall `syscall`.
pub fn kind(syscall: &str, arg: &str, is_pointer: bool) -> Kind {
    if is_pointer {
        return Kind::Hex;
    }
    match (syscall, arg) {
        (_, "dfd" | "olddfd" | "newdfd" | "dirfd" | "to_dfd" | "from_dfd" | "mountdirfd") => {
            Kind::Dirfd
        }
        (
            _,
            "fd" | "ufd" | "epfd" | "oldfd" | "newfd" | "fildes" | "in_fd" | "out_fd" | "fd_in"
            | "fd_out" | "fs_fd" | "fanotify_fd" | "ruleset_fd" | "pidfd" | "group_fd",
        ) => Kind::Fd,
        ("open" | "openat" | "creat" | "mq_open", "flags") => Kind::OpenFlags,
        ("faccessat" | "faccessat2", "flags" | "flag") => Kind::AccessAtFlags,
        ("statx", "flags") => Kind::StatxFlags,
        ("kill" | "tkill" | "tgkill" | "rt_sigqueueinfo" | "rt_tgsigqueueinfo", "sig") => {
            Kind::Signal
        }
        _ => match consts_kind(syscall, arg) {
            Some(c) => Kind::Consts(c),
            None => plain_kind(syscall, arg),
        },
    }
}

fn consts_kind(syscall: &str, arg: &str) -> Option<Consts> {
    Some(match (syscall, arg) {
        ("pipe2" | "dup3", "flags") => Consts::OFlags,
        ("ioctl", "cmd") => Consts::Ioctl,
        ("arch_prctl", "option") => Consts::ArchPrctl,
        ("prlimit64" | "getrlimit" | "setrlimit", "resource") => Consts::Resource,
        ("getrandom", "flags") => Consts::Grnd,
        ("fadvise64", "advice") => Consts::Fadvise,
        ("rt_sigprocmask", "how") => Consts::SigHow,
        ("wait4" | "waitid", "options") => Consts::WaitOptions,
        ("statx", "mask") => Consts::StatxMask,
        (_, "which_clock") => Consts::Clock,
        ("clock_nanosleep", "flags") => Consts::TimerFlags,
        ("madvise", "behavior") => Consts::Madvise,
        ("epoll_create1", "flags") => Consts::EpollFlags,
        ("eventfd2", "flags") => Consts::EfdFlags,
        ("signalfd4", "flags") => Consts::SfdFlags,
        ("setsockopt" | "getsockopt", "level") => Consts::SockLevel,
        ("sendto" | "recvfrom" | "sendmsg" | "recvmsg" | "recvmmsg" | "sendmmsg", "flags") => {
            Consts::MsgFlags
        }
        ("shutdown", "how") => Consts::Shutdown,
        ("epoll_ctl", "op") => Consts::EpollCtl,
        ("getrusage", "who") => Consts::RusageWho,
        _ => return None,
    })
}

fn plain_kind(syscall: &str, arg: &str) -> Kind {
    match (syscall, arg) {
        (_, "mode") if syscall.contains("access") => Kind::AccessMode,
        (
            "open" | "openat" | "creat" | "mkdir" | "mkdirat" | "chmod" | "fchmod" | "fchmodat",
            "mode",
        ) => Kind::Mode,
        ("mknod" | "mknodat" | "mq_open", "mode") => Kind::Mode,
        (_, "flag") | (_, "flags")
            if syscall.ends_with("at") || syscall == "faccessat2" || syscall == "statx" =>
        {
            Kind::AtFlags
        }
        (_, "prot") => Kind::Prot,
        ("mmap", "flags") => Kind::MmapFlags,
        (_, "whence") => Kind::Whence,
        ("rt_sigaction", "sig") => Kind::Signal,
        ("ioctl", "arg") => Kind::Hex,
        ("arch_prctl", "arg2") | ("mmap", "off") | ("rseq", "rseq_len" | "sig") => Kind::HexNum,
        ("futex", "op") => Kind::FutexOp,
        ("socket" | "socketpair", "family") => Kind::Domain,
        ("socket" | "socketpair", "type") => Kind::SockType,
        ("accept4", "flags") => Kind::Consts(Consts::SockFlags),
        ("fcntl", "cmd") => Kind::FcntlCmd,
        ("prctl", "option") => Kind::PrctlOption,
        ("prctl", "arg2" | "arg3" | "arg4" | "arg5") => Kind::HexNum,
        ("clone", "clone_flags") => Kind::CloneFlags,
        (_, "addr" | "start" | "brk" | "uaddr" | "uaddr2") => Kind::Hex,
        _ => Kind::Int,
    }
}

/// The value's text. `raw` is the 64-bit slot; `signed`/`bytes` the declared C type.
pub fn format(kind: Kind, raw: u64, signed: bool, bytes: u8) -> String {
    let v = as_int(raw, signed, bytes);
    let i = v as i32;
    match kind {
        Kind::Int | Kind::Pid => v.to_string(),
        // strace prints every fd as an int, whatever type the kernel declares.
        Kind::Fd => i.to_string(),
        Kind::Hex if raw == 0 => "NULL".into(),
        Kind::HexNum if raw == 0 => "0".into(),
        Kind::Hex | Kind::HexNum => format!("{:#x}", raw),
        Kind::Dirfd if i == libc::AT_FDCWD => "AT_FDCWD".into(),
        Kind::Dirfd => i.to_string(),
        Kind::OpenFlags => open_flags(raw as u32),
        Kind::Mode if raw == 0 => "0".into(),
        Kind::Mode => format!("0{:o}", raw as u32),
        Kind::AccessMode if raw == 0 => "F_OK".into(),
        Kind::AccessMode => flags(raw, ACCESS),
        Kind::AtFlags if raw == 0 => "0".into(),
        Kind::AtFlags => flags(raw, AT),
        Kind::Prot if raw == 0 => "PROT_NONE".into(),
        Kind::Prot => flags(raw, PROT),
        Kind::MmapFlags => mmap_flags(raw),
        Kind::Whence => one(v, WHENCE),
        Kind::Signal => consts::signal(v),
        Kind::FutexOp => futex_op(raw as u32),
        Kind::Domain => one(v, DOMAINS),
        Kind::SockType => sock_type(raw as u32),
        Kind::FcntlCmd => one(v, FCNTL),
        Kind::PrctlOption => one(v, PRCTL),
        Kind::CloneFlags => clone_flags(raw),
        Kind::AccessAtFlags => consts::flags_or_zero(raw, ACCESS_AT),
        Kind::StatxFlags => consts::statx_flags(raw),
        Kind::Consts(c) => consts_format(c, raw, v),
    }
}

fn consts_format(c: Consts, raw: u64, v: i64) -> String {
    use consts as k;
    match c {
        Consts::Ioctl => k::ioctl_request(raw as u32),
        Consts::ArchPrctl => one(v, k::ARCH_PRCTL),
        Consts::Resource => one(v, k::RESOURCES),
        Consts::Grnd => k::flags_or_zero(raw, k::GRND),
        Consts::Fadvise => one(v, k::FADVISE),
        Consts::SigHow => one(v, k::SIG_HOW),
        Consts::WaitOptions => k::flags_or_zero(raw & 0xffff_ffff, k::WAIT_OPTIONS),
        Consts::StatxMask => k::flags_or_zero(raw, k::STATX_MASK),
        Consts::Clock => one(v, k::CLOCKS),
        Consts::TimerFlags => k::flags_or_zero(raw, k::TIMER_FLAGS),
        Consts::Madvise => one(v, k::MADVISE),
        Consts::EpollFlags => k::flags_or_zero(raw, k::EPOLL_FLAGS),
        Consts::EfdFlags => k::flags_or_zero(raw, k::EFD_FLAGS),
        Consts::SockLevel => one(v, k::SOCK_LEVELS),
        Consts::MsgFlags => k::flags_or_zero(raw, k::MSG_FLAGS),
        Consts::Shutdown => one(v, k::SHUTDOWN),
        Consts::OFlags => k::flags_or_zero(raw, OPEN),
        Consts::SockFlags => k::flags_or_zero(raw, SOCK_FLAGS),
        Consts::SfdFlags => k::flags_or_zero(raw, k::SFD_FLAGS),
        Consts::EpollCtl => one(v, epoll::OPS),
        Consts::RusageWho => one(v, system::RUSAGE_WHO),
    }
}

/// The declared type's value out of its 8-byte slot (`int dfd` -100 is 0xffffff9c there).
pub fn as_int(raw: u64, signed: bool, bytes: u8) -> i64 {
    match (bytes, signed) {
        (1, true) => raw as i8 as i64,
        (2, true) => raw as i16 as i64,
        (4, true) => raw as i32 as i64,
        (1, false) => raw as u8 as i64,
        (2, false) => raw as u16 as i64,
        (4, false) => raw as u32 as i64,
        _ => raw as i64,
    }
}

pub(crate) type Table = &'static [(u64, &'static str)];

/// Set bits by name, in the table's order, then what is left in hex.
pub(crate) fn flags(raw: u64, table: Table) -> String {
    let mut left = raw;
    let mut out: Vec<String> = Vec::new();
    for &(bit, name) in table {
        if bit != 0 && left & bit == bit {
            out.push(name.into());
            left &= !bit;
        }
    }
    if left != 0 || out.is_empty() {
        out.push(format!("{:#x}", left));
    }
    out.join("|")
}

pub(crate) fn one(v: i64, table: Table) -> String {
    match table.iter().find(|(x, _)| *x as i64 == v) {
        Some((_, n)) => n.to_string(),
        None => v.to_string(),
    }
}

pub(crate) fn open_flags(raw: u32) -> String {
    let access = match raw & libc::O_ACCMODE as u32 {
        0 => "O_RDONLY",
        1 => "O_WRONLY",
        2 => "O_RDWR",
        _ => "O_ACCMODE",
    };
    let rest = (raw & !(libc::O_ACCMODE as u32)) as u64;
    if rest == 0 {
        return access.into();
    }
    format!("{}|{}", access, flags(rest, OPEN))
}

fn mmap_flags(raw: u64) -> String {
    let kind = match raw & 0xf {
        1 => "MAP_SHARED",
        2 => "MAP_PRIVATE",
        3 => "MAP_SHARED_VALIDATE",
        _ => return flags(raw, MMAP),
    };
    let rest = raw & !0xf;
    if rest == 0 {
        return kind.into();
    }
    format!("{}|{}", kind, flags(rest, MMAP))
}

fn sock_type(raw: u32) -> String {
    let base = one((raw & 0xf) as i64, SOCK_TYPES);
    let rest = (raw & !0xf) as u64;
    if rest == 0 {
        return base;
    }
    format!("{}|{}", base, flags(rest, SOCK_FLAGS))
}

fn futex_op(raw: u32) -> String {
    let cmd = raw & libc::FUTEX_CMD_MASK as u32;
    let mut s = one(cmd as i64, FUTEX);
    if raw & libc::FUTEX_PRIVATE_FLAG as u32 != 0 {
        s.push_str("_PRIVATE");
    }
    if raw & libc::FUTEX_CLOCK_REALTIME as u32 != 0 {
        s.push_str("|FUTEX_CLOCK_REALTIME");
    }
    s
}

fn clone_flags(raw: u64) -> String {
    // The low byte is the signal sent to the parent at exit.
    let sig = raw & 0xff;
    let rest = raw & !0xff;
    let mut s = if rest == 0 { String::new() } else { flags(rest, CLONE) };
    if sig != 0 {
        if !s.is_empty() {
            s.push('|');
        }
        s.push_str(&one(sig as i64, SIGNALS));
    }
    if s.is_empty() {
        s.push('0');
    }
    s
}

macro_rules! table {
    ($($c:ident),* $(,)?) => {
        &[$((libc::$c as u64, stringify!($c)),)*]
    };
}

const OPEN: Table = &[
    (libc::O_CREAT as u64, "O_CREAT"),
    (libc::O_EXCL as u64, "O_EXCL"),
    (libc::O_NOCTTY as u64, "O_NOCTTY"),
    (libc::O_TRUNC as u64, "O_TRUNC"),
    (libc::O_APPEND as u64, "O_APPEND"),
    (libc::O_NONBLOCK as u64, "O_NONBLOCK"),
    // O_SYNC includes O_DSYNC's bit: tried first.
    (libc::O_SYNC as u64, "O_SYNC"),
    (libc::O_DSYNC as u64, "O_DSYNC"),
    (libc::O_ASYNC as u64, "O_ASYNC"),
    (libc::O_DIRECT as u64, "O_DIRECT"),
    // libc defines O_LARGEFILE as 0 on 64-bit; the kernel's bit is 0o100000.
    (0o100000, "O_LARGEFILE"),
    (libc::O_NOFOLLOW as u64, "O_NOFOLLOW"),
    (libc::O_NOATIME as u64, "O_NOATIME"),
    (libc::O_CLOEXEC as u64, "O_CLOEXEC"),
    (libc::O_PATH as u64, "O_PATH"),
    // O_TMPFILE includes O_DIRECTORY's bit; strace names O_DIRECTORY last.
    (libc::O_TMPFILE as u64, "O_TMPFILE"),
    (libc::O_DIRECTORY as u64, "O_DIRECTORY"),
];

const ACCESS: Table = table!(R_OK, W_OK, X_OK);
const AT: Table = table!(
    AT_SYMLINK_NOFOLLOW,
    AT_REMOVEDIR,
    AT_EACCESS,
    AT_SYMLINK_FOLLOW,
    AT_NO_AUTOMOUNT,
    AT_EMPTY_PATH,
    AT_STATX_FORCE_SYNC,
    AT_STATX_DONT_SYNC,
    AT_RECURSIVE,
);
const ACCESS_AT: Table = table!(AT_SYMLINK_NOFOLLOW, AT_EACCESS, AT_EMPTY_PATH);
const PROT: Table = table!(PROT_READ, PROT_WRITE, PROT_EXEC, PROT_GROWSDOWN, PROT_GROWSUP);
const MMAP: Table = table!(
    MAP_FIXED,
    MAP_ANONYMOUS,
    MAP_32BIT,
    MAP_GROWSDOWN,
    MAP_DENYWRITE,
    MAP_EXECUTABLE,
    MAP_LOCKED,
    MAP_NORESERVE,
    MAP_POPULATE,
    MAP_NONBLOCK,
    MAP_STACK,
    MAP_HUGETLB,
    MAP_SYNC,
    MAP_FIXED_NOREPLACE,
);
const WHENCE: Table = table!(SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE);
/// Signal numbers by name; also `signal::name` for the `kill` column of summaries.
pub const SIGNALS: Table = table!(
    SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGUSR1, SIGSEGV,
    SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN,
    SIGTTOU, SIGURG, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGWINCH, SIGIO, SIGPWR, SIGSYS,
);
const FUTEX: Table = table!(
    FUTEX_WAIT,
    FUTEX_WAKE,
    FUTEX_FD,
    FUTEX_REQUEUE,
    FUTEX_CMP_REQUEUE,
    FUTEX_WAKE_OP,
    FUTEX_LOCK_PI,
    FUTEX_UNLOCK_PI,
    FUTEX_TRYLOCK_PI,
    FUTEX_WAIT_BITSET,
    FUTEX_WAKE_BITSET,
    FUTEX_WAIT_REQUEUE_PI,
    FUTEX_CMP_REQUEUE_PI,
    FUTEX_LOCK_PI2,
);
const DOMAINS: Table = table!(
    AF_UNSPEC,
    AF_UNIX,
    AF_INET,
    AF_INET6,
    AF_NETLINK,
    AF_PACKET,
    AF_BLUETOOTH,
    AF_VSOCK,
    AF_ALG,
    AF_XDP,
);
const SOCK_TYPES: Table =
    table!(SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_RDM, SOCK_SEQPACKET, SOCK_DCCP);
const SOCK_FLAGS: Table = table!(SOCK_CLOEXEC, SOCK_NONBLOCK);
const FCNTL: Table = table!(
    F_DUPFD,
    F_GETFD,
    F_SETFD,
    F_GETFL,
    F_SETFL,
    F_GETLK,
    F_SETLK,
    F_SETLKW,
    F_SETOWN,
    F_GETOWN,
    F_OFD_GETLK,
    F_OFD_SETLK,
    F_OFD_SETLKW,
    F_SETLEASE,
    F_GETLEASE,
    F_NOTIFY,
    F_DUPFD_CLOEXEC,
    F_SETPIPE_SZ,
    F_GETPIPE_SZ,
    F_ADD_SEALS,
    F_GET_SEALS,
);
const PRCTL: Table = table!(
    PR_SET_PDEATHSIG,
    PR_GET_PDEATHSIG,
    PR_GET_DUMPABLE,
    PR_SET_DUMPABLE,
    PR_GET_KEEPCAPS,
    PR_SET_KEEPCAPS,
    PR_SET_NAME,
    PR_GET_NAME,
    PR_GET_SECCOMP,
    PR_SET_SECCOMP,
    PR_CAPBSET_READ,
    PR_CAPBSET_DROP,
    PR_SET_TIMERSLACK,
    PR_GET_TIMERSLACK,
    PR_SET_MM,
    PR_SET_CHILD_SUBREAPER,
    PR_GET_CHILD_SUBREAPER,
    PR_SET_NO_NEW_PRIVS,
    PR_GET_NO_NEW_PRIVS,
    PR_SET_THP_DISABLE,
    PR_GET_THP_DISABLE,
    PR_CAP_AMBIENT,
    PR_SET_VMA,
);
const CLONE: Table = table!(
    CLONE_VM,
    CLONE_FS,
    CLONE_FILES,
    CLONE_SIGHAND,
    CLONE_PIDFD,
    CLONE_PTRACE,
    CLONE_VFORK,
    CLONE_PARENT,
    CLONE_THREAD,
    CLONE_NEWNS,
    CLONE_SYSVSEM,
    CLONE_SETTLS,
    CLONE_PARENT_SETTID,
    CLONE_CHILD_CLEARTID,
    CLONE_DETACHED,
    CLONE_UNTRACED,
    CLONE_CHILD_SETTID,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
    CLONE_IO,
);

pub mod consts;
pub mod epoll;
pub mod fdset;
pub mod msg;
pub mod netlink;
pub mod poll;
pub mod prctl;
pub mod quote;
pub mod strace;
pub mod structs;
pub mod system;
pub mod tty;

#[cfg(test)]
mod tests;
