//! A unix socket's peer and name from the kernel's sock_diag (NETLINK_SOCK_DIAG, as strace and ss
//! ask): /proc/net/unix has no peer. One request for one inode; answered in sonde's own network
//! namespace.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const UDIAG_SHOW_NAME: u32 = 1;
const UDIAG_SHOW_PEER: u32 = 4;
const UNIX_DIAG_NAME: u16 = 0;
const UNIX_DIAG_PEER: u16 = 2;
const NLMSG_ERROR: u16 = 2;
/// nlmsghdr, then unix_diag_msg.
const HEADER: usize = 16;
const MSG: usize = 16;

/// What the kernel says of a unix socket: its peer's inode, its name (a leading NUL is abstract).
#[derive(Debug, Default, PartialEq)]
pub struct Unix {
    pub peer: Option<u32>,
    pub name: Option<Vec<u8>>,
}

/// Ask the kernel about unix socket `inode`; None when it cannot say (no unix_diag, gone).
pub fn query(inode: u32) -> Option<Unix> {
    // SAFETY: socket(2) returns a new fd or -1; the fd is owned from here on.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: fd is a fresh descriptor nothing else owns.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    let req = request(inode);
    // SAFETY: the buffer is valid for its length; the kernel is the default destination.
    let sent = unsafe { libc::send(sock.as_raw_fd(), req.as_ptr().cast(), req.len(), 0) };
    if sent != req.len() as isize {
        return None;
    }
    let mut buf = [0u8; 8192];
    // SAFETY: the buffer is valid for its length.
    let n = unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    let n = usize::try_from(n).ok()?;
    answer(&buf[..n], inode)
}

/// nlmsghdr + unix_diag_req for one inode (NLM_F_REQUEST, any state, no cookie).
fn request(inode: u32) -> Vec<u8> {
    let mut m = Vec::with_capacity(HEADER + 24);
    m.extend_from_slice(&((HEADER + 24) as u32).to_ne_bytes());
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    m.extend_from_slice(&(libc::NLM_F_REQUEST as u16).to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // pid: the kernel
    m.extend_from_slice(&[libc::AF_UNIX as u8, 0, 0, 0]);
    m.extend_from_slice(&u32::MAX.to_ne_bytes()); // every state
    m.extend_from_slice(&inode.to_ne_bytes());
    m.extend_from_slice(&(UDIAG_SHOW_NAME | UDIAG_SHOW_PEER).to_ne_bytes());
    m.extend_from_slice(&[0xff; 8]); // INET_DIAG_NOCOOKIE
    m
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The kernel's answer: one unix_diag_msg of `inode` and its attributes, else None.
fn answer(b: &[u8], inode: u32) -> Option<Unix> {
    let len = (u32_at(b, 0)? as usize).min(b.len());
    if u16_at(b, 4)? == NLMSG_ERROR || u32_at(b, HEADER + 4)? != inode {
        return None;
    }
    let mut unix = Unix::default();
    let mut at = HEADER + MSG;
    while at + 4 <= len {
        let attr_len = u16_at(b, at)? as usize;
        if attr_len < 4 || at + attr_len > len {
            break;
        }
        let data = &b[at + 4..at + attr_len];
        match u16_at(b, at + 2)? {
            UNIX_DIAG_NAME => unix.name = Some(data.to_vec()),
            UNIX_DIAG_PEER => unix.peer = u32_at(data, 0),
            _ => {}
        }
        at += (attr_len + 3) & !3;
    }
    Some(unix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_reads_the_peer_and_the_name() {
        let mut b = Vec::new();
        let attrs: &[(u16, &[u8])] =
            &[(UNIX_DIAG_NAME, b"\0ab"), (UNIX_DIAG_PEER, &7u32.to_ne_bytes())];
        let body: usize = attrs.iter().map(|(_, d)| (4 + d.len() + 3) & !3).sum();
        b.extend_from_slice(&((HEADER + MSG + body) as u32).to_ne_bytes());
        b.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        b.extend_from_slice(&[0; 10]);
        b.extend_from_slice(&[1, 1, 1, 0]);
        b.extend_from_slice(&42u32.to_ne_bytes());
        b.extend_from_slice(&[0; 8]);
        for (t, d) in attrs {
            b.extend_from_slice(&((4 + d.len()) as u16).to_ne_bytes());
            b.extend_from_slice(&t.to_ne_bytes());
            b.extend_from_slice(d);
            b.resize((b.len() + 3) & !3, 0);
        }
        let want = Unix { peer: Some(7), name: Some(b"\0ab".to_vec()) };
        assert_eq!(answer(&b, 42), Some(want));
        assert_eq!(answer(&b, 43), None);
        assert_eq!(answer(&b[..10], 42), None);
    }

    #[test]
    fn a_socketpair_is_each_other_s_peer() {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        let ino = |s: &std::os::unix::net::UnixStream| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(format!("/proc/self/fd/{}", s.as_raw_fd())).unwrap().ino() as u32
        };
        let Some(got) = query(ino(&a)) else {
            eprintln!("skipped: no unix_diag here");
            return;
        };
        assert_eq!(got, Unix { peer: Some(ino(&b)), name: None });
    }
}
