//! The lines of /proc/net/{tcp,tcp6,udp,udp6,unix,netlink} that describe one socket inode, spelt
//! as strace -yy spells a socket's endpoints (`127.0.0.1:40000->127.0.0.1:8080`).

use std::net::{Ipv4Addr, Ipv6Addr};

/// The endpoints in /proc/net/{tcp,udp}[6] of socket `inode`: `127.0.0.1:53` when only bound,
/// `SRC->DST` when it has a peer (strace prints the peer when its port or address is not zero).
pub fn inet(table: &str, inode: u64) -> Option<String> {
    let fields = row(table, 9, inode)?;
    let local = endpoint(fields[1])?;
    let (remote_addr, remote_port) = address(fields[2])?;
    match remote_port != 0 || !remote_addr.is_unspecified() {
        true => Some(format!("{local}->{}", spelt(remote_addr, remote_port))),
        false => Some(local),
    }
}

/// Is socket `inode` a listening TCP socket (state 0A) in this /proc/net/tcp[6] table?
pub fn listening(table: &str, inode: u64) -> bool {
    row(table, 9, inode).is_some_and(|f| f[3] == "0A")
}

/// The path /proc/net/unix gives socket `inode`, if it is bound (abstract names start with `@`).
pub fn unix_path(table: &str, inode: u64) -> Option<String> {
    table.lines().skip(1).find_map(|line| {
        let mut rest = line.trim_start();
        for i in 0..7 {
            let (field, tail) = rest.split_once(' ').unwrap_or((rest, ""));
            if i == 6 && field.parse::<u64>().ok()? != inode {
                return None;
            }
            rest = tail.trim_start_matches(' ');
        }
        (!rest.is_empty()).then(|| rest.to_string())
    })
}

/// Socket `inode`'s protocol and port id in /proc/net/netlink: `ROUTE:1234`.
pub fn netlink(table: &str, inode: u64) -> Option<String> {
    let fields = row(table, 9, inode)?;
    let protocol: u64 = fields[1].parse().ok()?;
    let port: u32 = fields[2].parse().ok()?;
    let names = sonde_trace::beauty::consts::NETLINK_PROTOCOLS;
    match names.iter().find(|(n, _)| *n == protocol) {
        Some((_, name)) => Some(format!("{}:{port}", name.trim_start_matches("NETLINK_"))),
        None => Some(format!("{protocol}:{port}")),
    }
}

/// The whitespace-separated fields of the row whose field `at` is `inode` (after the header).
fn row(table: &str, at: usize, inode: u64) -> Option<Vec<&str>> {
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let found = fields.get(at)?.parse::<u64>().ok()? == inode;
        found.then_some(fields)
    })
}

fn endpoint(hex: &str) -> Option<String> {
    let (addr, port) = address(hex)?;
    Some(spelt(addr, port))
}

#[derive(Clone, Copy)]
enum Addr {
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl Addr {
    fn is_unspecified(self) -> bool {
        match self {
            Addr::V4(a) => a.is_unspecified(),
            Addr::V6(a) => a.is_unspecified(),
        }
    }
}

/// `0100007F:1F90`: the kernel prints each 32-bit word of the address as the host reads it.
fn address(hex: &str) -> Option<(Addr, u16)> {
    let (addr, port) = hex.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |i: usize| -> Option<[u8; 4]> {
        let w = addr.get(i * 8..i * 8 + 8)?;
        Some(u32::from_str_radix(w, 16).ok()?.to_ne_bytes())
    };
    let addr = match addr.len() {
        8 => Addr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut b = [0u8; 16];
            for i in 0..4 {
                b[i * 4..i * 4 + 4].copy_from_slice(&word(i)?);
            }
            Addr::V6(Ipv6Addr::from(b))
        }
        _ => return None,
    };
    Some((addr, port))
}

/// `127.0.0.1:53`, `[::1]:22` (inet_ntop's text, as strace prints it).
fn spelt(addr: Addr, port: u16) -> String {
    match addr {
        Addr::V4(a) => format!("{a}:{port}"),
        Addr::V6(a) => format!("[{}]:{port}", ntop6(a)),
    }
}

/// glibc's inet_ntop: as Rust's, but `::1.2.3.4` for an IPv4-compatible address.
fn ntop6(a: Ipv6Addr) -> String {
    let s = a.segments();
    match s[..6] == [0; 6] && s[6] != 0 {
        true => format!(
            "::{}",
            Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8)
        ),
        false => a.to_string(),
    }
}

#[cfg(test)]
mod tests;
