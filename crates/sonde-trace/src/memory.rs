//! User memory the tracing program copies for strace's decoders: structs and buffers a call
//! reads (copied at entry: a sigaction, a sockaddr) or fills (copied at exit from the pointer
//! saved at entry: a struct stat, read's bytes). Each copy reaches user space as a record tagged
//! [`TAG_OUT`]/[`TAG_IN`] + the argument's index, kept with the call's entry strings at
//! [`out_index`]/[`in_index`].

use crate::beauty::{poll, system, tty};
use crate::program::TAG_STRING;

/// Tag of a copy made at exit: `TAG_OUT + argument index`.
pub const TAG_OUT: u64 = TAG_STRING + 6;
/// Tag of a copy made at entry: `TAG_IN + argument index`.
pub const TAG_IN: u64 = TAG_STRING + 12;

/// Where the copy of argument `arg` made at exit is kept among the entry's strings.
pub fn out_index(arg: usize) -> usize {
    arg + 6
}

/// Is the copy kept at `index` made at the call's exit (else at its entry, before the entry
/// record)?
pub fn made_at_exit(index: usize) -> bool {
    (out_index(0)..in_index(0)).contains(&index)
        || (NESTED_OUT..NESTED_OUT + NESTED_SLOTS).contains(&index)
}

/// Copies reached through a copied struct's pointers (a msghdr's name and iovec array, an
/// iovec array's buffers), made at entry from `NESTED_IN` on, at exit from `NESTED_OUT` on:
/// the name at [`NESTED_NAME`], the iovec array at [`NESTED_IOV`], the buffers after.
pub const NESTED_IN: usize = 80;
pub const NESTED_OUT: usize = 100;
pub const NESTED_NAME: usize = 0;
pub const NESTED_IOV: usize = 1;
pub const NESTED_BUFFERS: usize = 2;
/// The iovecs whose buffers are copied (strace shows them all; more show as `...`).
pub const IOV_COPIED: usize = 8;
/// `-s`, sent with buffers copied longer than it ([`MESSAGE`]), which show `-s` bytes.
pub const NESTED_SHOWN: usize = NESTED_BUFFERS + IOV_COPIED;
/// The first iovec's buffer goes on in [`MESSAGE`]-byte chunks (netlink replies hold several
/// messages): chunk `j` (from 1) at `NESTED_CHUNKS + j - 1`.
pub const NESTED_CHUNKS: usize = NESTED_SHOWN + 1;
pub const MESSAGE_CHUNKS: usize = 4;
/// The sigset pselect6's pair points to.
pub const NESTED_SIGSET: usize = NESTED_CHUNKS + MESSAGE_CHUNKS - 1;
/// A msghdr's ancillary data, its first [`CONTROL`] bytes.
pub const NESTED_CONTROL: usize = NESTED_SIGSET + 1;
pub const CONTROL: usize = 64;
const NESTED_SLOTS: usize = NESTED_CONTROL + 1;
/// Bytes of a buffer that may hold a netlink message (sendto's, each iovec's), whatever `-s`:
/// strace decodes such a message whole. The language copies at most this many at once.
pub const MESSAGE: usize = 256;
pub const MSGHDR: usize = 56;
pub const IOVEC: usize = 16;

/// Where nested copy `k` (`NESTED_NAME`, ...) of a call is kept.
pub fn nested_index(at_exit: bool, k: usize) -> usize {
    k + if at_exit { NESTED_OUT } else { NESTED_IN }
}

/// Where the copy of argument `arg` made at entry is kept among the entry's strings.
pub fn in_index(arg: usize) -> usize {
    arg + 12
}

/// execve's arrays: the count of argv's strings and of envp's (`-s` in the high 32 bits of
/// each), then argv's first strings, one record each: tags `TAG_STRING + index`.
pub const ARGC_INDEX: usize = 28;
pub const ENVC_INDEX: usize = 29;
pub const ARGV_INDEX: usize = 30;
/// At most this many of argv's strings are copied (strace shows `-s` of them).
pub const ARGV_MAX: usize = 48;
/// Arrays longer than this are counted as this long.
pub const ARRAY_COUNT_MAX: usize = 1024;

/// execve's (or execveat's) argv and envp argument indexes.
pub fn exec_arrays(syscall: &str) -> Option<(usize, usize)> {
    match syscall {
        "execve" => Some((1, 2)),
        "execveat" => Some((2, 3)),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    Entry,
    Exit,
    /// What the call reads, copied at entry and again at exit: the kernel has faulted its page
    /// in by then, where the copy at entry may have found it absent. The exit's copy wins.
    Both,
}

impl When {
    pub fn at_entry(self) -> bool {
        self != When::Exit
    }

    pub fn at_exit(self) -> bool {
        self != When::Entry
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Bytes(usize),
    /// strace's `-s`: the bytes of a buffer shown.
    Buffer,
    /// A path the call fills (getcwd): whole, as strace prints paths.
    Path,
    /// Not a copy: getdents' entries counted in the program, as 8 bytes.
    DirEntries,
    /// A struct msghdr, with its name, its iovec array and the first iovecs' buffers (nested).
    Msghdr,
    /// An iovec array (its length the next argument), with the first iovecs' buffers (nested).
    Iovec,
    /// A buffer that may hold a netlink message: [`MESSAGE`] bytes, and `-s` (nested).
    Message,
    /// pselect6's pair of a sigset's address and size, with the sigset (nested).
    SigmaskPair,
    /// epoll_wait's events: the first as the copy, the others nested, as many as it returned.
    EpollEvents,
    /// A msghdr's msg_namelen alone (recvmsg's at entry, for `110 => 0`): not what the call
    /// reads, so the msghdr still prints when the call returns.
    NameLen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Copy {
    pub arg: usize,
    pub when: When,
    pub size: Size,
}

const fn c(arg: usize, when: When, size: Size) -> Copy {
    Copy { arg, when, size }
}

use Size::{Buffer, Bytes, Path};
use When::{Both, Entry, Exit};

/// x86-64 sizes of what strace shows (prefixes where it shows only the first fields).
/// struct stat through st_ctime_nsec, every member strace -v shows.
pub const STAT_PREFIX: usize = 120;
/// struct statx through stx_mnt_id, every member strace -v shows.
pub const STATX_PREFIX: usize = 152;
pub const SIGACTION: usize = 32;
pub const SOCKADDR: usize = 112;
/// utsname's sysname and nodename, 65 bytes each: what strace shows.
pub const UTSNAME_PREFIX: usize = 130;
/// struct rusage's ru_utime and ru_stime: what strace shows.
pub const RUSAGE_PREFIX: usize = 32;
/// struct epoll_event (packed on x86-64): events, then data.
pub const EPOLL_EVENT: usize = 12;
/// The events epoll_wait returned that are copied: the first, then one a nested slot each
/// (one copy of the whole array would fail where it reaches a page the call did not write).
pub const EPOLL_EVENTS_COPIED: usize = 1 + IOV_COPIED;
/// An fd_set of 1024 fds.
pub const FD_SET: usize = 128;

/// A constant list (a `const fn` call is not promoted to a static on its own).
macro_rules! list {
    ($($e:expr),*) => {{
        const L: &[Copy] = &[$($e),*];
        L
    }};
}

/// The copies a syscall's decoders need.
pub fn copies(syscall: &str) -> &'static [Copy] {
    match syscall {
        "read" | "pread64" | "readlink" => list!(c(1, Exit, Buffer)),
        "recvfrom" => list!(
            c(1, Exit, Buffer),
            c(4, Exit, Bytes(SOCKADDR)),
            c(5, Entry, Bytes(4)),
            c(5, Exit, Bytes(4))
        ),
        // The written bytes whole (the string copy stops at a NUL).
        "write" | "pwrite64" => list!(c(1, Entry, Buffer)),
        "sigaltstack" => list!(c(0, Both, Bytes(24)), c(1, Exit, Bytes(24))),
        "signalfd4" | "signalfd" => list!(c(1, Both, Bytes(8))),
        "readlinkat" => list!(c(2, Exit, Buffer)),
        "getrandom" => list!(c(0, Exit, Buffer)),
        "getdents64" | "getdents" => list!(c(1, Exit, Size::DirEntries)),
        "getcwd" => list!(c(0, Exit, Path)),
        "sendto" => list!(c(1, Both, Size::Message), c(4, Both, Bytes(SOCKADDR))),
        "newfstatat" => list!(c(2, Exit, Bytes(STAT_PREFIX))),
        "fstat" | "stat" | "lstat" => list!(c(1, Exit, Bytes(STAT_PREFIX))),
        "statx" => list!(c(4, Exit, Bytes(STATX_PREFIX))),
        "rt_sigaction" => list!(c(1, Both, Bytes(SIGACTION)), c(2, Exit, Bytes(SIGACTION))),
        "rt_sigprocmask" => list!(c(1, Both, Bytes(8)), c(2, Exit, Bytes(8))),
        "prlimit64" => list!(c(2, Both, Bytes(16)), c(3, Exit, Bytes(16))),
        "getrlimit" => list!(c(1, Exit, Bytes(16))),
        "wait4" => list!(c(1, Exit, Bytes(4)), c(3, Exit, Bytes(RUSAGE_PREFIX))),
        "statfs" | "fstatfs" => list!(c(1, Exit, Bytes(system::STATFS))),
        "sysinfo" => list!(c(0, Exit, Bytes(system::SYSINFO))),
        "clone3" => list!(c(0, Both, Bytes(system::CLONE_ARGS))),
        "ioctl" => list!(c(2, Both, Bytes(tty::IOCTL_ARG))),
        // PR_SET_NAME's name (read), PR_GET_NAME's (filled): 16 bytes.
        "prctl" => list!(c(1, Both, Bytes(16))),
        // The array at entry (events) and at exit (revents).
        "poll" => list!(c(0, Entry, Bytes(poll::BYTES)), c(0, Exit, Bytes(poll::BYTES))),
        // With its timeout (and the time left) and its signal mask.
        "ppoll" => list!(
            c(0, Entry, Bytes(poll::BYTES)),
            c(0, Exit, Bytes(poll::BYTES)),
            c(2, Entry, Bytes(16)),
            c(2, Exit, Bytes(16)),
            c(3, Entry, Bytes(8))
        ),
        "epoll_pwait" | "epoll_pwait2" => {
            list!(c(1, Exit, Size::EpollEvents), c(4, Entry, Bytes(8)))
        }
        "uname" => list!(c(0, Exit, Bytes(UTSNAME_PREFIX))),
        "getgroups" => list!(c(1, Exit, Bytes(128))),
        "sched_getaffinity" => list!(c(2, Exit, Bytes(128))),
        "pipe" | "pipe2" => list!(c(0, Exit, Bytes(8))),
        "socketpair" => list!(c(3, Exit, Bytes(8))),
        "connect" | "bind" => list!(c(1, Both, Bytes(SOCKADDR))),
        "getsockname" | "getpeername" | "accept" | "accept4" => {
            list!(c(1, Exit, Bytes(SOCKADDR)), c(2, Entry, Bytes(4)), c(2, Exit, Bytes(4)))
        }
        // The time left is written only when a signal interrupts the sleep.
        "clock_nanosleep" => list!(c(2, Entry, Bytes(16)), c(3, Exit, Bytes(16))),
        "nanosleep" => list!(c(0, Entry, Bytes(16)), c(1, Exit, Bytes(16))),
        "setsockopt" => list!(c(3, Both, Bytes(4))),
        "sendmsg" => list!(c(1, Entry, Size::Msghdr)),
        "recvmsg" => list!(c(1, Entry, Size::NameLen), c(1, Exit, Size::Msghdr)),
        "writev" | "pwritev" | "pwritev2" => list!(c(1, Entry, Size::Iovec)),
        "readv" | "preadv" | "preadv2" => list!(c(1, Exit, Size::Iovec)),
        "epoll_ctl" => list!(c(3, Entry, Bytes(EPOLL_EVENT))),
        "epoll_wait" => list!(c(1, Exit, Size::EpollEvents)),
        // fd sets of up to 1024 fds: read at entry, filled at exit.
        "select" | "pselect6" => list!(
            c(1, Entry, Bytes(FD_SET)),
            c(1, Exit, Bytes(FD_SET)),
            c(2, Entry, Bytes(FD_SET)),
            c(2, Exit, Bytes(FD_SET)),
            c(3, Entry, Bytes(FD_SET)),
            c(3, Exit, Bytes(FD_SET)),
            c(4, Entry, Bytes(16)),
            c(4, Exit, Bytes(16)),
            c(5, Entry, Size::SigmaskPair)
        ),
        "getrusage" => list!(c(1, Exit, Bytes(RUSAGE_PREFIX))),
        "getsockopt" => list!(c(3, Exit, Bytes(4)), c(4, Entry, Bytes(4)), c(4, Exit, Bytes(4))),
        _ => &[],
    }
}

/// The first argument the call fills (copied at exit): strace prints it and the arguments
/// after it only when the call returns.
pub fn first_filled(syscall: &str) -> Option<usize> {
    let all = copies(syscall);
    // An argument also copied at entry (poll's array, a socklen) is printed at entry.
    let read = |arg: usize| {
        all.iter().any(|c| c.arg == arg && c.when.at_entry() && c.size != Size::NameLen)
    };
    all.iter().filter(|c| c.when == When::Exit && !read(c.arg)).map(|c| c.arg).min()
}

/// The bytes a copy takes, given `-s`.
pub fn bytes(size: Size, buffer: usize, path: usize) -> usize {
    match size {
        Bytes(n) => n,
        Buffer => buffer.max(1),
        Path => path,
        Size::DirEntries => 8,
        Size::Msghdr => MSGHDR,
        Size::Iovec => IOVEC * IOV_COPIED,
        Size::Message => MESSAGE,
        Size::SigmaskPair => 16,
        Size::NameLen => 4,
        Size::EpollEvents => EPOLL_EVENT,
    }
}
