use super::*;
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixDatagram;

fn own(fd: &impl AsRawFd) -> (u32, i64, u64) {
    let fd = fd.as_raw_fd() as i64;
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
    (std::process::id(), fd, inode(&link.to_string_lossy()).unwrap())
}

fn described(s: &mut Sockets, fd: &impl AsRawFd) -> Option<String> {
    let (pid, fd, ino) = own(fd);
    s.describe(pid, fd, ino, false)
}

#[test]
fn inode_from_the_fd_link() {
    assert_eq!(inode("socket:[12345]"), Some(12345));
    assert_eq!(inode("/etc/hostname"), None);
    assert_eq!(inode("socket:[x]"), None);
}

#[test]
fn this_process_s_sockets_as_strace_yy_prints_them() {
    let mut s = Sockets::default();
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    assert_eq!(described(&mut s, &l), Some(format!("TCP:[127.0.0.1:{port}]")));
    let c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let cport = c.local_addr().unwrap().port();
    let want = format!("TCP:[127.0.0.1:{cport}->127.0.0.1:{port}]");
    assert_eq!(described(&mut s, &c), Some(want.clone()));
    let (pid, fd, ino) = own(&l);
    assert_eq!(s.describe(pid, fd, ino, true), Some(format!("TCP:[{ino}]")));
    let u = UdpSocket::bind("127.0.0.1:0").unwrap();
    let uport = u.local_addr().unwrap().port();
    assert_eq!(described(&mut s, &u), Some(format!("UDP:[127.0.0.1:{uport}]")));
    let (a, b) = UnixDatagram::pair().unwrap();
    let (_, _, bino) = own(&b);
    let got = described(&mut s, &a).unwrap();
    // Without unix_diag the peer is unknown: the inode alone.
    assert!(got.ends_with(&format!("->{bino}]")) || !got.contains("->"), "{got}");
    assert!(got.starts_with("UNIX:["), "{got}");
    // Settled: the same text once the socket is gone from the tables.
    let (pid, fd, ino) = own(&c);
    drop(c);
    assert_eq!(s.describe(pid, fd, ino, false), Some(want));
}

#[test]
fn unix_names_as_strace_quotes_them() {
    assert_eq!(unix_name(b"/run/a\"b"), r#""/run/a\"b""#);
    assert_eq!(unix_name(b"\0abs x"), r#"@"abs x""#);
    assert_eq!(quoted_path("@abs x"), r#"@"abs x""#);
    assert_eq!(quoted_path("/tmp/a b"), r#""/tmp/a b""#);
}
