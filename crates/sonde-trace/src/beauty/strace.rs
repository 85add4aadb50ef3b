//! What strace prints of a call beyond one argument at a time: the arguments a command uses
//! (fcntl's third, futex's last ones), clone's named arguments, options named after another
//! argument (setsockopt's name by its level), results it decodes (fcntl's flags).

use super::consts::{self, flags_or_zero, FD_FLAGS};
use super::{one, open_flags};

/// The arguments' texts as strace prints them, given each one's own text and the raw values.
pub fn shape(name: &str, raw: &[u64; 6], mut texts: Vec<String>) -> Vec<String> {
    match name {
        "fcntl" => {
            let cmd = raw[1] as i32;
            match fcntl_arg(cmd, raw[2]) {
                Some(t) => texts[2] = t,
                None => texts.truncate(2),
            }
        }
        "futex" => texts = futex(raw, texts),
        "clone" => texts = clone(raw),
        "prctl" => texts = super::prctl::args(raw, texts),
        "ioctl" if matches!(raw[1], 0x5450 | 0x5451) => texts.truncate(2),
        // FICLONE's argument is the source fd, TIOCSCTTY's and TCFLSH's an int.
        "ioctl" if matches!(raw[1], 0x40049409 | 0x540e | 0x540b | 0x540a) => {
            if let Some(t) = texts.get_mut(2) {
                *t = (raw[2] as i32).to_string();
            }
        }
        "socket" | "socketpair" => {
            let table = match raw[0] as i32 {
                libc::AF_INET | libc::AF_INET6 => consts::IP_PROTOCOLS,
                libc::AF_NETLINK => consts::NETLINK_PROTOCOLS,
                _ => return texts,
            };
            if let Some(t) = texts.get_mut(2) {
                *t = one(raw[2] as i64, table);
            }
        }
        "setsockopt" | "getsockopt" => {
            if let Some(t) = texts.get_mut(2) {
                *t = sockopt_name(raw[1] as i32, raw[2] as i32);
            }
        }
        _ => {}
    }
    texts
}

/// Not in the libc crate for Linux.
const F_GETSIG: i32 = 11;

/// fcntl's third argument, or None when the command takes none.
fn fcntl_arg(cmd: i32, arg: u64) -> Option<String> {
    match cmd {
        libc::F_GETFD
        | libc::F_GETFL
        | libc::F_GETOWN
        | F_GETSIG
        | libc::F_GETLEASE
        | libc::F_GETPIPE_SZ
        | libc::F_GET_SEALS => None,
        libc::F_SETFD => Some(flags_or_zero(arg, FD_FLAGS)),
        libc::F_SETFL => Some(open_flags(arg as u32)),
        libc::F_DUPFD | libc::F_DUPFD_CLOEXEC | libc::F_SETOWN | libc::F_SETPIPE_SZ => {
            Some((arg as i32).to_string())
        }
        _ => Some(format!("{arg:#x}")),
    }
}

/// What strace prints of a successful call's return value, when it decodes it.
pub fn result(name: &str, raw: &[u64; 6], ret: i64) -> Option<String> {
    match (name, raw[1] as i32) {
        ("fcntl", libc::F_GETFD) if ret != 0 => {
            Some(format!("{ret:#x} (flags {})", flags_or_zero(ret as u64, FD_FLAGS)))
        }
        ("fcntl", libc::F_GETFL) => Some(format!("{ret:#x} (flags {})", open_flags(ret as u32))),
        _ => None,
    }
}

/// futex's arguments as its operation uses them.
fn futex(raw: &[u64; 6], texts: Vec<String>) -> Vec<String> {
    let op = raw[1] as i32 & libc::FUTEX_CMD_MASK;
    let bitset = |v: u64| match v as u32 {
        u32::MAX => "FUTEX_BITSET_MATCH_ANY".to_string(),
        b => format!("{b:#x}"),
    };
    let keep = |n: usize| texts.iter().take(n).cloned().collect::<Vec<_>>();
    match op {
        libc::FUTEX_WAKE => keep(3),
        libc::FUTEX_WAIT => keep(4),
        libc::FUTEX_WAIT_BITSET => {
            let mut t = keep(4);
            t.push(bitset(raw[5]));
            t
        }
        libc::FUTEX_WAKE_BITSET => {
            let mut t = keep(3);
            t.push(bitset(raw[5]));
            t
        }
        libc::FUTEX_LOCK_PI | libc::FUTEX_LOCK_PI2 => {
            let mut t = keep(2);
            t.extend(texts.get(3).cloned());
            t
        }
        libc::FUTEX_UNLOCK_PI | libc::FUTEX_TRYLOCK_PI => keep(2),
        libc::FUTEX_REQUEUE => {
            let mut t = keep(3);
            t.push((raw[3] as u32).to_string());
            t.extend(texts.get(4).cloned());
            t
        }
        libc::FUTEX_CMP_REQUEUE => {
            let mut t = keep(3);
            t.push((raw[3] as u32).to_string());
            t.extend(texts.get(4).cloned());
            t.push((raw[5] as u32).to_string());
            t
        }
        _ => texts,
    }
}

/// x86-64's clone(flags, stack, parent_tid, child_tid, tls) with strace's names.
fn clone(raw: &[u64; 6]) -> Vec<String> {
    let ptr = |v: u64| if v == 0 { "NULL".to_string() } else { format!("{v:#x}") };
    let flags = raw[0];
    let mut t = vec![
        format!("child_stack={}", ptr(raw[1])),
        format!("flags={}", super::format(super::Kind::CloneFlags, flags, false, 8)),
    ];
    if flags & libc::CLONE_PARENT_SETTID as u64 != 0 {
        t.push(format!("parent_tid={}", ptr(raw[2])));
    }
    if flags & libc::CLONE_SETTLS as u64 != 0 {
        t.push(format!("tls={}", ptr(raw[4])));
    }
    if flags & (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID) as u64 != 0 {
        t.push(format!("child_tidptr={}", ptr(raw[3])));
    }
    t
}

fn sockopt_name(level: i32, name: i32) -> String {
    let table = match level {
        libc::SOL_SOCKET => consts::SOL_SOCKET_OPTS,
        libc::IPPROTO_TCP => consts::TCP_OPTS,
        libc::SOL_NETLINK => consts::NETLINK_OPTS,
        libc::IPPROTO_IP => consts::IP_OPTS,
        libc::IPPROTO_IPV6 => consts::IPV6_OPTS,
        _ => return name.to_string(),
    };
    one(name as i64, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("a{i}")).collect()
    }

    #[test]
    fn fcntl_as_strace_prints_it() {
        let raw = [3, libc::F_GETFD as u64, 0, 0, 0, 0];
        assert_eq!(shape("fcntl", &raw, texts(3)), ["a0", "a1"]);
        assert_eq!(result("fcntl", &raw, 1).unwrap(), "0x1 (flags FD_CLOEXEC)");
        assert_eq!(result("fcntl", &raw, 0), None);
        let raw = [3, libc::F_GETFL as u64, 0, 0, 0, 0];
        assert_eq!(result("fcntl", &raw, 0x8000).unwrap(), "0x8000 (flags O_RDONLY|O_LARGEFILE)");
        let raw = [3, libc::F_SETFD as u64, 1, 0, 0, 0];
        assert_eq!(shape("fcntl", &raw, texts(3))[2], "FD_CLOEXEC");
        let raw = [3, libc::F_SETFL as u64, 0o4002, 0, 0, 0];
        assert_eq!(shape("fcntl", &raw, texts(3))[2], "O_RDWR|O_NONBLOCK");
    }

    #[test]
    fn futex_prints_the_arguments_its_operation_uses() {
        let wake = [0x1000, 0x81, 2147483647, 0, 0, 0];
        assert_eq!(shape("futex", &wake, texts(6)).len(), 3);
        let wait = [0x1000, 0x109, 6123, 0, 0, u32::MAX as u64];
        let t = shape("futex", &wait, texts(6));
        assert_eq!(t[3..], ["a3".to_string(), "FUTEX_BITSET_MATCH_ANY".to_string()]);
    }

    #[test]
    fn clone_names_its_arguments() {
        let raw = [0x1200011, 0, 0, 0x7f00_0000_0a10, 0, 0];
        assert_eq!(
            shape("clone", &raw, texts(5)).join(", "),
            "child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, \
             child_tidptr=0x7f0000000a10"
        );
    }

    #[test]
    fn socket_options_by_level() {
        let raw = [3, 1, 2, 0, 4, 0];
        assert_eq!(shape("setsockopt", &raw, texts(5))[2], "SO_REUSEADDR");
        let raw = [3, 6, 1, 0, 4, 0];
        assert_eq!(shape("setsockopt", &raw, texts(5))[2], "TCP_NODELAY");
    }
}
