//! strace -yy's socket endpoints, read at print time: the protocol from the socket's
//! `system.sockprotoname` attribute (as strace reads it), the endpoints from the traced process's
//! /proc/PID/net tables (its network namespace), a unix socket's peer from sock_diag. A socket
//! the tables do not list (unbound, or gone) prints `TCP:[INODE]` as strace prints it; one whose
//! protocol strace does not decode prints as -y does (`socket:[INODE]`).

mod proc_net;
mod unix_diag;

use std::collections::HashMap;

/// Settled descriptions kept at most (the table is started again past it).
const MAX_KEPT: usize = 1 << 14;

/// Protocols strace names without finding their endpoints (`RAW:[INODE]`).
const NAMED_ONLY: &[&str] = &[
    "UDPLITE",
    "DCCP",
    "SCTP",
    "L2TP/IP",
    "PING",
    "RAW",
    "UDPLITEv6",
    "DCCPv6",
    "SCTPv6",
    "L2TP/IPv6",
    "PINGv6",
    "RAWv6",
];

/// Descriptions that cannot change while the socket lives (a TCP peer or listener, a unix peer,
/// a netlink port), by inode.
#[derive(Debug, Default)]
pub struct Sockets {
    settled: HashMap<u64, String>,
}

impl Sockets {
    /// `TCP:[127.0.0.1:40000->127.0.0.1:8080]` for `fd` of `pid`, a socket with this inode
    /// (`TCP:[INODE]` when `unbound`); None when strace would print the socket as -y does.
    pub fn describe(&mut self, pid: u32, fd: i64, inode: u64, unbound: bool) -> Option<String> {
        if let Some(t) = self.settled.get(&inode).filter(|_| !unbound) {
            return Some(t.clone());
        }
        let proto = protocol(pid, fd)?;
        if unbound {
            return known(&proto).then(|| format!("{proto}:[{inode}]"));
        }
        let (text, settled) = read(pid, &proto, inode)?;
        if settled {
            if self.settled.len() >= MAX_KEPT {
                self.settled.clear();
            }
            self.settled.insert(inode, text.clone());
        }
        Some(text)
    }
}

/// A protocol strace names (`TCP:[INODE]`) rather than printing `socket:[INODE]`.
fn known(proto: &str) -> bool {
    let found = ["TCP", "TCPv6", "UDP", "UDPv6", "UNIX", "UNIX-STREAM", "NETLINK"];
    found.contains(&proto) || NAMED_ONLY.contains(&proto)
}

/// The inode in a socket's /proc/PID/fd link (`socket:[12345]`).
pub fn inode(link: &str) -> Option<u64> {
    link.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
}

/// The socket's description, and whether it is settled.
fn read(pid: u32, proto: &str, inode: u64) -> Option<(String, bool)> {
    let table = |name: &str| std::fs::read_to_string(format!("/proc/{pid}/net/{name}")).ok();
    let (details, settled) = match proto {
        "TCP" | "TCPv6" | "UDP" | "UDPv6" => {
            let name = proto.to_ascii_lowercase().replace('v', "");
            let t = table(&name).unwrap_or_default();
            let found = proc_net::inet(&t, inode);
            let settled = name.starts_with("tcp")
                && found
                    .as_ref()
                    .is_some_and(|d| d.contains("->") || proc_net::listening(&t, inode));
            (found, settled)
        }
        "UNIX" | "UNIX-STREAM" => {
            let found = unix(inode, || table("unix"));
            let settled = found.as_ref().is_some_and(|d| d.contains("->"));
            (found, settled)
        }
        "NETLINK" => {
            let found = table("netlink").and_then(|t| proc_net::netlink(&t, inode));
            let settled = found.is_some();
            (found, settled)
        }
        p if NAMED_ONLY.contains(&p) => (None, false),
        _ => return None,
    };
    let details = details.unwrap_or_else(|| inode.to_string());
    Some((format!("{proto}:[{details}]"), settled))
}

/// `12345->12346,"/run/foo.sock"`: the kernel's peer and name, else /proc/net/unix's path.
fn unix(inode: u64, table: impl Fn() -> Option<String>) -> Option<String> {
    let (peer, name) = match u32::try_from(inode).ok().and_then(unix_diag::query) {
        Some(u) => (u.peer, u.name.as_deref().map(unix_name)),
        None => {
            (None, table().and_then(|t| proc_net::unix_path(&t, inode)).map(|p| quoted_path(&p)))
        }
    };
    let mut text = inode.to_string();
    if peer.is_none() && name.is_none() {
        return None;
    }
    if let Some(peer) = peer.filter(|&p| p != 0) {
        text += &format!("->{peer}");
    }
    if let Some(name) = name {
        text += &format!(",{name}");
    }
    Some(text)
}

/// `"/run/foo.sock"`, or `@"name"` for an abstract one (its leading NUL).
fn unix_name(name: &[u8]) -> String {
    match name.split_first() {
        Some((0, rest)) => format!("@\"{}\"", sonde_trace::beauty::quote::escape(rest)),
        _ => sonde_trace::beauty::quote::c_string(name),
    }
}

/// /proc/net/unix's path (abstract ones already start with `@`) spelt as strace spells names.
fn quoted_path(path: &str) -> String {
    match path.strip_prefix('@') {
        Some(rest) => format!("@\"{}\"", sonde_trace::beauty::quote::escape(rest.as_bytes())),
        None => format!("\"{}\"", sonde_trace::beauty::quote::escape(path.as_bytes())),
    }
}

/// The socket's protocol name (`TCP`, `UNIX-STREAM`), from the xattr sockfs gives it.
fn protocol(pid: u32, fd: i64) -> Option<String> {
    let path = std::ffi::CString::new(format!("/proc/{pid}/fd/{fd}")).ok()?;
    let mut buf = [0u8; 64];
    // SAFETY: both names are NUL-ended; the buffer is valid for its length.
    let n = unsafe {
        libc::getxattr(
            path.as_ptr(),
            c"system.sockprotoname".as_ptr(),
            buf.as_mut_ptr().cast(),
            buf.len(),
        )
    };
    let n = usize::try_from(n).ok()?;
    let name = sonde_trace::names::until_nul(&buf[..n]);
    (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod tests;
