//! struct msghdr and iovec arrays as strace prints them: `{msg_name={sa_family=AF_INET, ...},
//! msg_namelen=16, msg_iov=[{iov_base="hello ", iov_len=6}], msg_iovlen=1, msg_controllen=0,
//! msg_flags=0}`, readv/writev's `[{iov_base="abc", iov_len=3}]`. An iovec's bytes are those
//! the call wrote or, at its exit, the part of its result that landed there; on a NETLINK_ROUTE
//! socket they are decoded as netlink messages ([`super::netlink`]).

use super::consts::{flags_or_zero, MSG_FLAGS, SOCK_LEVELS};
use super::structs::{sockaddr, u32_at, u64_at};
use super::{netlink, one, quote};
use crate::memory::{IOVEC, IOV_COPIED};

/// What the program copied through a msghdr's or an iovec array's pointers.
pub struct Nested<'a> {
    /// The name a msghdr points to.
    pub name: Option<&'a [u8]>,
    /// The iovec array (a msghdr's; an iovec argument's is the argument's own copy).
    pub iov: Option<&'a [u8]>,
    /// recvmsg's msg_namelen before the call (strace's `110 => 0`).
    pub namelen_before: Option<u32>,
    /// The ancillary data a msghdr points to (its first bytes).
    pub control: Option<&'a [u8]>,
    /// The first iovecs' buffers, by position.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// `-s`: the bytes of a buffer shown.
    pub shown: usize,
    /// The call's result in bytes, at its exit (what the buffers hold), else None: each
    /// buffer holds its whole length.
    pub filled: Option<u64>,
    /// The socket is NETLINK_ROUTE: its buffers are netlink messages.
    pub netlink: bool,
}

/// A msghdr's copy `b` and what its pointers led to.
pub fn msghdr(b: &[u8], n: &Nested) -> Option<String> {
    let namelen = u32_at(b, 8)?;
    let name = match u64_at(b, 0)? {
        0 => "NULL".to_string(),
        // No name filled in (a connected socket's): its address.
        p if namelen == 0 => format!("{p:#x}"),
        p => n.name.and_then(|s| sockaddr(s, namelen as u64)).unwrap_or(format!("{p:#x}")),
    };
    let iov_ptr = u64_at(b, 16)?;
    let iovlen = u64_at(b, 24)?;
    let iov = match (iov_ptr, n.iov) {
        (0, _) => "NULL".to_string(),
        (_, Some(a)) => iovec(a, iovlen, n),
        (p, None) => format!("{p:#x}"),
    };
    let controllen = u64_at(b, 40)?;
    let control = match (u64_at(b, 32)?, n.control) {
        (0, _) => String::new(),
        (_, Some(c)) if controllen > 0 => format!("msg_control={}, ", cmsgs(c, controllen)),
        (p, _) => format!("msg_control={p:#x}, "),
    };
    Some(format!(
        "{{msg_name={name}, msg_namelen={}, msg_iov={iov}, msg_iovlen={iovlen}, \
         {control}msg_controllen={}, msg_flags={}}}",
        match n.namelen_before {
            Some(before) if before != namelen => format!("{before} => {namelen}"),
            _ => namelen.to_string(),
        },
        controllen,
        flags_or_zero(u32_at(b, 48)? as u64, MSG_FLAGS)
    ))
}

/// The control messages of `len` bytes, of which `c` holds the copied first ones:
/// `[{cmsg_len=20, cmsg_level=SOL_SOCKET, cmsg_type=SCM_RIGHTS, cmsg_data=[5]}]`.
fn cmsgs(c: &[u8], len: u64) -> String {
    let c = &c[..c.len().min(len as usize)];
    let mut items = Vec::new();
    let mut at = 0;
    while let (Some(cmsg_len), Some(level), Some(ty)) =
        (u64_at(c, at), u32_at(c, at + 8), u32_at(c, at + 12))
    {
        let end = (at as u64).saturating_add(cmsg_len).min(c.len() as u64) as usize;
        let data = c.get(at + 16..end).unwrap_or(&[]);
        items.push(cmsg(cmsg_len, level as i32, ty as i32, data));
        if cmsg_len < 16 {
            break;
        }
        // Each message is aligned to 8 bytes.
        at += ((cmsg_len + 7) & !7) as usize;
    }
    format!("[{}]", items.join(", "))
}

fn cmsg(len: u64, level: i32, ty: i32, data: &[u8]) -> String {
    let head = format!("{{cmsg_len={len}, cmsg_level={}", one(level as i64, SOCK_LEVELS));
    let ints = |d: &[u8]| -> Vec<i32> {
        d.chunks_exact(4).map(|w| i32::from_le_bytes(w.try_into().unwrap_or([0; 4]))).collect()
    };
    match (level, ty) {
        (libc::SOL_SOCKET, libc::SCM_RIGHTS) => {
            let fds: Vec<String> = ints(data).iter().map(|f| f.to_string()).collect();
            format!("{head}, cmsg_type=SCM_RIGHTS, cmsg_data=[{}]}}", fds.join(", "))
        }
        (libc::SOL_SOCKET, libc::SCM_CREDENTIALS) if data.len() >= 12 => {
            let v = ints(data);
            format!(
                "{head}, cmsg_type=SCM_CREDENTIALS, cmsg_data={{pid={}, uid={}, gid={}}}}}",
                v[0], v[1] as u32, v[2] as u32
            )
        }
        _ => format!("{head}, cmsg_type={ty:#x}, cmsg_data=\"{}\"}}", quote::escape(data)),
    }
}

/// An iovec array of `count` entries, of which `a` holds the copied first ones.
pub fn iovec(a: &[u8], count: u64, n: &Nested) -> String {
    let mut left = n.filled;
    let mut items = Vec::new();
    for k in 0..(count as usize).min(IOV_COPIED).min(a.len() / IOVEC) {
        let (Some(base), Some(len)) = (u64_at(a, k * IOVEC), u64_at(a, k * IOVEC + 8)) else {
            break;
        };
        // What this buffer holds: all of it, or at exit its part of the result.
        let holds = match left {
            Some(l) => {
                let h = l.min(len);
                left = Some(l - h);
                h
            }
            None => len,
        };
        let data = match (base, n.buffers.get(k).and_then(|b| b.as_deref())) {
            (0, _) => "NULL".to_string(),
            (_, Some(b)) => buffer(b, holds, n.shown, n.netlink),
            (p, None) => format!("{p:#x}"),
        };
        items.push(format!("{{iov_base={data}, iov_len={len}}}"));
    }
    if count as usize > items.len() {
        items.push("...".into());
    }
    format!("[{}]", items.join(", "))
}

/// A buffer holding `holds` bytes, of which `b` is the copy: netlink messages on a
/// NETLINK_ROUTE socket, else its first `shown` bytes quoted.
pub fn buffer(b: &[u8], holds: u64, shown: usize, netlink: bool) -> String {
    if netlink {
        if let Some(text) = netlink::messages(b, holds as usize) {
            return text;
        }
    }
    quote::buffer(&b[..b.len().min(shown)], holds)
}

#[cfg(test)]
mod tests;
