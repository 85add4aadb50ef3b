//! Structs and buffers in strace's words, from the user memory the program copied
//! ([`crate::memory`]): `{st_mode=S_IFREG|0644, st_size=832, ...}`, `[PIPE]`, `[3, 4]`,
//! `{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("127.0.0.1")}`, read's bytes.
//! x86-64 layouts (the kernel's uapi structs, stable across kernels).

use super::consts::{self, flags_or_zero, STATX_MASK};
use super::poll;
use super::quote;
use super::system;
use super::tty;
use super::Table;
use super::{epoll, fdset, msg};
use crate::memory;

/// What one call's copies hold.
pub struct Copied<'a> {
    pub raw: &'a [u64; 6],
    pub ret: i64,
    /// The copy made at entry of this argument.
    pub input: Option<&'a [u8]>,
    /// The copy made at exit.
    pub output: Option<&'a [u8]>,
    /// Every copy of the call, by index ([`crate::memory`]): those reached through pointers.
    pub all: &'a [(usize, Vec<u8>)],
    /// The call's fd is a NETLINK_ROUTE socket.
    pub netlink: bool,
}

impl<'a> Copied<'a> {
    /// The copy kept at `index`.
    fn at(&self, index: usize) -> Option<&'a [u8]> {
        self.all.iter().find(|(j, _)| *j == index).map(|(_, b)| b.as_slice())
    }

    /// Argument `i`'s copy made at the call's exit.
    fn out(&self, i: usize) -> Option<&'a [u8]> {
        self.at(memory::out_index(i))
    }

    fn nested(&self, at_exit: bool, k: usize) -> Option<&'a [u8]> {
        self.at(memory::nested_index(at_exit, k))
    }

    /// `-s`, as the program sent it with the buffers it copied longer.
    fn shown(&self, at_exit: bool) -> usize {
        let sent = self.nested(at_exit, memory::NESTED_SHOWN).and_then(|b| u64_at(b, 0));
        sent.map_or(crate::program::BUFFER_BYTES, |s| s as usize)
    }

    /// What a msghdr's or an iovec array's pointers led to.
    fn nested_copies(&self, at_exit: bool) -> msg::Nested<'a> {
        msg::Nested {
            name: self.nested(at_exit, memory::NESTED_NAME),
            iov: self.nested(at_exit, memory::NESTED_IOV),
            namelen_before: None,
            control: self.nested(at_exit, memory::NESTED_CONTROL),
            buffers: (0..memory::IOV_COPIED).map(|k| self.buffer(at_exit, k)).collect(),
            shown: self.shown(at_exit),
            filled: at_exit.then_some(self.ret.max(0) as u64),
            netlink: self.netlink,
        }
    }

    /// Iovec `k`'s buffer: the first one with the chunks that go on from it.
    fn buffer(&self, at_exit: bool, k: usize) -> Option<Vec<u8>> {
        let mut b = self.nested(at_exit, memory::NESTED_BUFFERS + k)?.to_vec();
        if k == 0 {
            let chunks = (1..memory::MESSAGE_CHUNKS)
                .map_while(|j| self.nested(at_exit, memory::NESTED_CHUNKS + j - 1));
            chunks.for_each(|c| b.extend_from_slice(c));
        }
        Some(b)
    }

    /// A buffer that may be a netlink message, `len` bytes long (sendto's).
    fn message(&self, b: &[u8], len: u64) -> String {
        msg::buffer(b, len, self.shown(false), self.netlink)
    }

    /// select's result: the ready fds of each set and the time left.
    fn select_result(&self, timeval: bool) -> Option<String> {
        let sets = [1, 2, 3].map(|i| self.out(i).filter(|_| self.raw[i] != 0));
        let left = self.out(4).filter(|_| self.raw[4] != 0).and_then(|b| time(b, timeval));
        Some(fdset::ready(sets, self.raw[0], self.ret, left))
    }
}

/// A timespec, or a timeval.
fn time(b: &[u8], timeval: bool) -> Option<String> {
    match timeval {
        true => {
            Some(format!("{{tv_sec={}, tv_usec={}}}", u64_at(b, 0)? as i64, u64_at(b, 8)? as i64))
        }
        false => timespec(b),
    }
}

/// A successful result strace follows with what the call filled: poll's entries that fired,
/// select's ready sets, and the time left.
pub fn result(syscall: &str, c: &Copied) -> Option<String> {
    match syscall {
        "select" => c.select_result(true),
        "pselect6" => c.select_result(false),
        "poll" => poll::fired(c.out(0)?, c.raw[1], c.ret, None),
        "ppoll" => {
            let left = c.out(2).filter(|_| c.raw[2] != 0).and_then(timespec);
            poll::fired(c.out(0)?, c.raw[1], c.ret, left)
        }
        _ => None,
    }
}

/// Argument `arg` of `syscall` decoded, or None to print it as before (a pointer, NULL).
pub fn decode(syscall: &str, arg: usize, c: &Copied) -> Option<String> {
    if c.raw[arg] == 0 {
        return None;
    }
    let ok = c.ret >= 0;
    let out = c.output.filter(|_| ok);
    let len = c.ret as u64;
    match (syscall, arg) {
        ("read" | "pread64" | "recvfrom" | "readlink", 1) | ("readlinkat", 2) => {
            Some(quote::buffer(out?, len))
        }
        ("getrandom", 0) => Some(quote::hex_buffer(out?, len)),
        ("getcwd", 0) => Some(quote::c_string(out?)),
        ("getdents64" | "getdents", 1) => {
            Some(format!("{:#x} /* {} entries */", c.raw[1], u64_at(out?, 0)?))
        }
        ("write" | "pwrite64", 1) => Some(quote::buffer(c.input?, c.raw[2])),
        ("sendto", 1) => Some(c.message(c.input?, c.raw[2])),
        ("sendmsg", 1) => msg::msghdr(c.input?, &c.nested_copies(false)),
        ("recvmsg", 1) => {
            let before = c.input.and_then(|b| u32_at(b, 0));
            msg::msghdr(out?, &msg::Nested { namelen_before: before, ..c.nested_copies(true) })
        }
        ("writev" | "pwritev" | "pwritev2", 1) => {
            Some(msg::iovec(c.input?, c.raw[2], &c.nested_copies(false)))
        }
        ("readv" | "preadv" | "preadv2", 1) => {
            Some(msg::iovec(out?, c.raw[2], &c.nested_copies(true)))
        }
        ("epoll_ctl", 3) => epoll::event(c.input?),
        ("epoll_wait" | "epoll_pwait" | "epoll_pwait2", 1) => {
            // The first event, then the others one copy each.
            let mut b = out?.to_vec();
            let rest = (1..memory::EPOLL_EVENTS_COPIED)
                .map_while(|k| c.nested(true, memory::NESTED_BUFFERS + k - 1));
            rest.for_each(|e| b.extend_from_slice(e));
            Some(epoll::events(&b, c.ret as u64))
        }
        ("select" | "pselect6", 1..=3) => Some(fdset::set(c.input?, c.raw[0])),
        ("pselect6", 5) => {
            let sigset = c.nested(false, memory::NESTED_SIGSET).map(sigset);
            let size = u64_at(c.input?, 8)?;
            let mask = match (u64_at(c.input?, 0)?, sigset) {
                (0, _) => "NULL".to_string(),
                (_, Some(s)) => s,
                (p, None) => format!("{p:#x}"),
            };
            Some(format!("{{sigmask={mask}, sigsetsize={size}}}"))
        }
        ("ppoll", 2) => timespec(c.input?),
        ("ppoll", 3) | ("epoll_pwait" | "epoll_pwait2", 4) => Some(sigset(c.input?)),
        ("select", 4) => time(c.input?, true),
        ("pselect6", 4) => timespec(c.input?),
        ("getrusage", 1) | ("wait4", 3) => system::rusage(out?),
        ("sendto", 4) | ("connect" | "bind", 1) => sockaddr(c.input?, c.raw[arg + 1]),
        ("newfstatat", 2) | ("fstat" | "stat" | "lstat", 1) => stat(out?),
        ("statx", 4) => statx(out?),
        ("rt_sigaction", 1) => sigaction(c.input?),
        ("rt_sigaction", 2) => sigaction(out?),
        ("rt_sigprocmask", 1) => Some(sigset(c.input?)),
        ("rt_sigprocmask", 2) => Some(sigset(out?)),
        ("prlimit64", 2) => rlimit(c.input?),
        ("prlimit64", 3) | ("getrlimit", 1) => rlimit(out?),
        ("wait4", 1) if c.ret > 0 => wait_status(out?),
        ("statfs" | "fstatfs", 1) => system::statfs(out?),
        ("prctl", 1) => match c.raw[0] as i32 {
            libc::PR_SET_NAME => Some(quote::c_string(c.input?)),
            libc::PR_GET_NAME if ok => Some(quote::c_string(c.input?)),
            _ => None,
        },
        ("poll" | "ppoll", 0) => Some(poll::array(c.input?, c.raw[1])),
        ("ioctl", 2) => tty::ioctl_arg(c.raw[1] as u32, c.input?, c.ret),
        ("sysinfo", 0) => system::sysinfo(out?),
        ("clone3", 0) => system::clone_args(c.input?, c.ret),
        ("uname", 0) => {
            let o = out?;
            let (sys, node) = (o.get(..65)?, o.get(65..130)?);
            Some(format!(
                "{{sysname={}, nodename={}, ...}}",
                quote::c_string(sys),
                quote::c_string(node)
            ))
        }
        // As many groups as it returned, of those the copy holds.
        ("getgroups", 1) => {
            let o = out?;
            let n = (c.ret as usize).min(c.raw[0] as usize).min(o.len() / 4);
            let ids: Vec<String> =
                (0..n).filter_map(|k| u32_at(o, k * 4)).map(|g| g.to_string()).collect();
            Some(format!("[{}]", ids.join(", ")))
        }
        ("sched_getaffinity", 2) => {
            let o = out?;
            let bytes = &o[..(c.ret as usize).min(o.len())];
            let cpus: Vec<String> = (0..bytes.len() * 8)
                .filter(|i| bytes[i / 8] & (1 << (i % 8)) != 0)
                .map(|i| i.to_string())
                .collect();
            Some(format!("[{}]", cpus.join(" ")))
        }
        ("pipe" | "pipe2", 0) | ("socketpair", 3) => {
            let o = out?;
            Some(format!("[{}, {}]", int(o, 0)?, int(o, 4)?))
        }
        // The length the kernel wrote is another argument's: the family says how much to read.
        ("getsockname" | "getpeername" | "accept" | "accept4", 1) | ("recvfrom", 4) => {
            sockaddr(out?, u64::MAX)
        }
        ("signalfd4" | "signalfd", 1) => Some(sigset(c.input?)),
        ("sigaltstack", 0) => stack_t(c.input?),
        ("sigaltstack", 1) => stack_t(out?),
        ("getsockopt", 3) => {
            let v = int(out?, 0)?;
            let errno = crate::errno::name(v).filter(|_| v != 0);
            match (c.raw[1] as i32, c.raw[2] as i32, errno) {
                (libc::SOL_SOCKET, libc::SO_ERROR, Some(name)) => Some(format!("[{name}]")),
                _ => Some(format!("[{v}]")),
            }
        }
        ("getsockname" | "getpeername" | "accept" | "accept4", 2)
        | ("getsockopt", 4)
        | ("recvfrom", 5) => {
            let before = int(c.input?, 0)?;
            match out.and_then(|o| int(o, 0)) {
                Some(after) if after != before => Some(format!("[{before} => {after}]")),
                _ => Some(format!("[{before}]")),
            }
        }
        ("clock_nanosleep", 2) | ("nanosleep", 0) => timespec(c.input?),
        ("clock_nanosleep", 3) | ("nanosleep", 1) if c.ret == -libc::EINTR as i64 => {
            timespec(c.output?)
        }
        ("setsockopt", 3) if c.raw[4] == 4 => Some(format!("[{}]", int(c.input?, 0)?)),
        _ => None,
    }
}

/// execve's argv (`["ls", "-la", "/etc"]`) or envp (`0x7ffc0000 /* 25 vars */`, strace's
/// default), from the counts and strings the program copied (indexes of [`crate::memory`]).
pub fn exec_array(argv: bool, raw: u64, strings: &[(usize, Vec<u8>)]) -> Option<String> {
    use crate::memory::{ARGC_INDEX, ARGV_INDEX, ENVC_INDEX};
    let get = |i: usize| strings.iter().find(|(j, _)| *j == i).map(|(_, b)| b.as_slice());
    let packed = u64_at(get(if argv { ARGC_INDEX } else { ENVC_INDEX })?, 0)?;
    let (count, size) = (packed & 0xffff_ffff, (packed >> 32) as usize);
    if !argv {
        return Some(format!("{raw:#x} /* {count} vars */"));
    }
    let mut items = Vec::new();
    for k in 0..count as usize {
        let Some(b) = get(ARGV_INDEX + k) else {
            items.push("...".to_string());
            break;
        };
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        items.push(match end > size {
            true => format!("\"{}\"...", quote::escape(&b[..size])),
            false => format!("\"{}\"", quote::escape(&b[..end])),
        });
    }
    Some(format!("[{}]", items.join(", ")))
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn int(b: &[u8], at: usize) -> Option<i32> {
    u32_at(b, at).map(|v| v as i32)
}

/// `S_IFREG|0644`, as strace's `print_symbolic_mode_t`.
pub fn mode(m: u32) -> String {
    let kind = match m & libc::S_IFMT {
        libc::S_IFREG => "S_IFREG|",
        libc::S_IFDIR => "S_IFDIR|",
        libc::S_IFCHR => "S_IFCHR|",
        libc::S_IFBLK => "S_IFBLK|",
        libc::S_IFIFO => "S_IFIFO|",
        libc::S_IFLNK => "S_IFLNK|",
        libc::S_IFSOCK => "S_IFSOCK|",
        _ => "",
    };
    let special: String =
        [(libc::S_ISUID, "S_ISUID|"), (libc::S_ISGID, "S_ISGID|"), (libc::S_ISVTX, "S_ISVTX|")]
            .iter()
            .filter(|(bit, _)| m & bit != 0)
            .map(|(_, name)| *name)
            .collect();
    let digits = match m & 0o777 {
        0 => "0".to_string(),
        p => format!("0{p:o}"),
    };
    format!("{kind}{special}{digits:0>3}")
}

/// `makedev(0x1, 0x3)`; a 0 is `0`, as C's `%#x` prints it.
pub(crate) fn makedev(dev: u64) -> String {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let hex = |v: u64| if v == 0 { "0".to_string() } else { format!("{v:#x}") };
    format!("makedev({}, {})", hex(major), hex(minor))
}

/// struct stat's prefix: st_mode at 24, st_rdev at 40, st_size at 48.
fn stat(b: &[u8]) -> Option<String> {
    let m = u32_at(b, 24)?;
    let tail = match m & libc::S_IFMT {
        libc::S_IFCHR | libc::S_IFBLK => format!("st_rdev={}", makedev(u64_at(b, 40)?)),
        _ => format!("st_size={}", u64_at(b, 48)? as i64),
    };
    Some(format!("{{st_mode={}, {tail}, ...}}", mode(m)))
}

pub(crate) const STATX_ATTRS: Table = &[
    (0x4, "STATX_ATTR_COMPRESSED"),
    (0x10, "STATX_ATTR_IMMUTABLE"),
    (0x20, "STATX_ATTR_APPEND"),
    (0x40, "STATX_ATTR_NODUMP"),
    (0x800, "STATX_ATTR_ENCRYPTED"),
    (0x1000, "STATX_ATTR_AUTOMOUNT"),
    (0x2000, "STATX_ATTR_MOUNT_ROOT"),
    (0x100000, "STATX_ATTR_VERITY"),
    (0x200000, "STATX_ATTR_DAX"),
];

/// struct statx's prefix: stx_mask at 0, stx_attributes at 8, stx_mode at 28, stx_size at 40.
fn statx(b: &[u8]) -> Option<String> {
    Some(format!(
        "{{stx_mask={}, stx_attributes={}, stx_mode={}, stx_size={}, ...}}",
        flags_or_zero(u32_at(b, 0)? as u64, STATX_MASK),
        flags_or_zero(u64_at(b, 8)?, STATX_ATTRS),
        mode(u32_at(b, 28)? & 0xffff),
        u64_at(b, 40)?
    ))
}

/// A 64-signal set: `[PIPE CHLD]`, or its complement when most are in it: `~[RTMIN RT_1]`.
pub fn sigset(b: &[u8]) -> String {
    let Some(mut bits) = u64_at(b, 0) else { return "[]".into() };
    let mut s = String::new();
    if bits.count_ones() >= 32 {
        s.push('~');
        bits = !bits;
    }
    let names: Vec<String> = (0..64)
        .filter(|i| bits & (1 << i) != 0)
        .map(|i| {
            let name = consts::signal(i + 1);
            name.strip_prefix("SIG").map_or(name.clone(), str::to_string)
        })
        .collect();
    s.push('[');
    s.push_str(&names.join(" "));
    s.push(']');
    s
}

/// strace's order (xlat/sigact_flags.in).
const SA_FLAGS: Table = &[
    (0x0400_0000, "SA_RESTORER"),
    (0x0800_0000, "SA_ONSTACK"),
    (0x1000_0000, "SA_RESTART"),
    (0x4000_0000, "SA_NODEFER"),
    (0x8000_0000, "SA_RESETHAND"),
    (0x4, "SA_SIGINFO"),
    (0x1, "SA_NOCLDSTOP"),
    (0x2, "SA_NOCLDWAIT"),
    (0x400, "SA_UNSUPPORTED"),
    (0x800, "SA_EXPOSE_TAGBITS"),
];

/// The kernel's struct sigaction: handler, flags, restorer, mask.
fn sigaction(b: &[u8]) -> Option<String> {
    let (handler, flags, restorer) = (u64_at(b, 0)?, u64_at(b, 8)?, u64_at(b, 16)?);
    let handler = match handler {
        0 => "SIG_DFL".to_string(),
        1 => "SIG_IGN".to_string(),
        h => format!("{h:#x}"),
    };
    let mut s = format!(
        "{{sa_handler={handler}, sa_mask={}, sa_flags={}",
        sigset(b.get(24..32)?),
        flags_or_zero(flags, SA_FLAGS)
    );
    if flags & 0x0400_0000 != 0 {
        s.push_str(&format!(", sa_restorer={restorer:#x}"));
    }
    s.push('}');
    Some(s)
}

/// `8192*1024`, `RLIM64_INFINITY`, as strace's `sprint_rlim64`.
fn rlim(v: u64) -> String {
    match v {
        u64::MAX => "RLIM64_INFINITY".into(),
        v if v > 0 && v % 1024 == 0 => format!("{}*1024", v / 1024),
        v => v.to_string(),
    }
}

fn rlimit(b: &[u8]) -> Option<String> {
    Some(format!("{{rlim_cur={}, rlim_max={}}}", rlim(u64_at(b, 0)?), rlim(u64_at(b, 8)?)))
}

/// wait4's status, as strace's `printstatus`.
fn wait_status(b: &[u8]) -> Option<String> {
    let s = u32_at(b, 0)?;
    let sig = |n: u32| consts::signal(n as i64);
    let text = if s & 0x7f == 0 {
        format!("WIFEXITED(s) && WEXITSTATUS(s) == {}", (s >> 8) & 0xff)
    } else if s & 0xff == 0x7f {
        format!("WIFSTOPPED(s) && WSTOPSIG(s) == {}", sig((s >> 8) & 0xff))
    } else {
        let core = if s & 0x80 != 0 { " && WCOREDUMP(s)" } else { "" };
        format!("WIFSIGNALED(s) && WTERMSIG(s) == {}{core}", sig(s & 0x7f))
    };
    Some(format!("[{{{text}}}]"))
}

const SS_FLAGS: Table = &[(1, "SS_ONSTACK"), (2, "SS_DISABLE"), (0x8000_0000, "SS_AUTODISARM")];

/// sigaltstack's stack_t: ss_sp, ss_flags (an int), ss_size.
fn stack_t(b: &[u8]) -> Option<String> {
    let sp = match u64_at(b, 0)? {
        0 => "NULL".to_string(),
        p => format!("{p:#x}"),
    };
    Some(format!(
        "{{ss_sp={sp}, ss_flags={}, ss_size={}}}",
        flags_or_zero(u32_at(b, 8)? as u64, SS_FLAGS),
        u64_at(b, 16)?
    ))
}

fn timespec(b: &[u8]) -> Option<String> {
    Some(format!("{{tv_sec={}, tv_nsec={}}}", u64_at(b, 0)? as i64, u64_at(b, 8)? as i64))
}

/// A sockaddr of `len` bytes: unix, inet and inet6 as strace prints them.
pub(super) fn sockaddr(b: &[u8], len: u64) -> Option<String> {
    let len = (len as usize).min(b.len());
    let family = u16::from_le_bytes(b.get(0..2)?.try_into().ok()?) as i32;
    let port = |at: usize| Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?));
    match family {
        libc::AF_UNIX => {
            let path = b.get(2..len.max(2))?;
            let shown = match path.first() {
                Some(0) => format!("@{}", quote::c_string(&path[1..])),
                _ => quote::c_string(path),
            };
            Some(format!("{{sa_family=AF_UNIX, sun_path={shown}}}"))
        }
        libc::AF_INET => {
            let a = b.get(4..8)?;
            Some(format!(
                "{{sa_family=AF_INET, sin_port=htons({}), sin_addr=inet_addr(\"{}.{}.{}.{}\")}}",
                port(2)?,
                a[0],
                a[1],
                a[2],
                a[3]
            ))
        }
        libc::AF_NETLINK => Some(format!(
            "{{sa_family=AF_NETLINK, nl_pid={}, nl_groups={:08x}}}",
            u32_at(b, 4)?,
            u32_at(b, 8)?
        )),
        libc::AF_INET6 => {
            let addr: [u8; 16] = b.get(8..24)?.try_into().ok()?;
            Some(format!(
                "{{sa_family=AF_INET6, sin6_port=htons({}), sin6_flowinfo=htonl({}), \
                 inet_pton(AF_INET6, \"{}\", &sin6_addr), sin6_scope_id={}}}",
                port(2)?,
                u32::from_be_bytes(b.get(4..8)?.try_into().ok()?),
                std::net::Ipv6Addr::from(addr),
                u32_at(b, 24)?
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
