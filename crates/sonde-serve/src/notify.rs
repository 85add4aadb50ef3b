//! systemd's readiness protocol (sd_notify(3)) without libsystemd: one datagram of
//! `KEY=VALUE` lines to the socket `$NOTIFY_SOCKET` names, a path or, after `@`, an abstract
//! name. Outside systemd the variable is unset and nothing is sent.

use std::io;
use std::os::unix::net::UnixDatagram;

/// The variable systemd sets for a `Type=notify` service.
pub const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";

/// Sends `state` (`READY=1`, `STOPPING=1`...) to `$NOTIFY_SOCKET`; Ok(false) when it is unset.
pub fn notify(state: &str) -> io::Result<bool> {
    match std::env::var_os(NOTIFY_SOCKET) {
        Some(addr) if !addr.is_empty() => notify_to(&addr.to_string_lossy(), state).map(|_| true),
        _ => Ok(false),
    }
}

/// Sends `state` to the socket `addr` (a path, or `@name` for an abstract one).
pub fn notify_to(addr: &str, state: &str) -> io::Result<()> {
    let sock = UnixDatagram::unbound()?;
    match addr.strip_prefix('@') {
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            let a = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
            sock.send_to_addr(state.as_bytes(), &a)?;
        }
        None => {
            sock.send_to(state.as_bytes(), addr)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn received(sock: &UnixDatagram) -> String {
        sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = [0u8; 256];
        let n = sock.recv(&mut buf).unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[test]
    fn a_path_socket_gets_the_state() {
        let path = std::env::temp_dir().join(format!("sonde-notify-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let sock = UnixDatagram::bind(&path).unwrap();
        notify_to(path.to_str().unwrap(), "READY=1").unwrap();
        assert_eq!(received(&sock), "READY=1");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn an_abstract_socket_gets_the_state() {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("sonde-notify-test-{}", std::process::id());
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let sock = UnixDatagram::bind_addr(&addr).unwrap();
        notify_to(&format!("@{name}"), "STOPPING=1").unwrap();
        assert_eq!(received(&sock), "STOPPING=1");
    }

    #[test]
    fn nobody_listening_is_an_error_not_a_panic() {
        assert!(notify_to("/nonexistent/notify.sock", "READY=1").is_err());
    }
}
