//! End-to-end: strace's -yy, sockets printed with their endpoints, against strace's own text for
//! a loopback TCP and UDP client and server (python3's, where it is installed).

mod common;

use common::trace::{skip, strace_installed};
use common::{sonde, temp_path};
use std::process::Command;

/// A TCP listener, a client and the accepted socket; a bound UDP socket and a connected one.
/// Sleeps so that lines printed a little after their calls still find the same sockets. Prints
/// what strace -yy shows for each fd (`want 4<TCP:[127.0.0.1:P->127.0.0.1:Q]>`).
const SCRIPT: &str = r#"
import socket, time
def tcp(s, peer=True):
    a, p = s.getsockname()
    if not peer:
        return f"{s.fileno()}<TCP:[{a}:{p}]>"
    b, q = s.getpeername()
    return f"{s.fileno()}<TCP:[{a}:{p}->{b}:{q}]>"
def udp(s, peer):
    a, p = s.getsockname()
    if not peer:
        return f"{s.fileno()}<UDP:[{a}:{p}]>"
    b, q = s.getpeername()
    return f"{s.fileno()}<UDP:[{a}:{p}->{b}:{q}]>"
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.socket(); c.connect(s.getsockname())
a, _ = s.accept()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); v.connect(u.getsockname())
want = [tcp(s, False), tcp(c), tcp(a), udp(u, False), udp(v, True)]
time.sleep(0.5)
s.getsockname(); c.send(b"hi"); a.recv(2); v.send(b"x"); u.recv(1)
time.sleep(0.5)
for o in (c, a, s, v, u):
    o.close()
print("want", *want)
"#;

const CALLS: &str = "socket,bind,listen,connect,accept4,getsockname,sendto,recvfrom,close";

fn python() -> bool {
    let ok = Command::new("python3").arg("-V").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 not installed");
    }
    ok
}

fn collapsed(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Ports and fds differ from run to run: every number is N.
fn numbers_masked(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        match (c.is_ascii_digit(), out.ends_with('N')) {
            (true, true) => {}
            (true, false) => out.push('N'),
            (false, _) => out.push(c),
        }
    }
    out
}

/// The lines naming a TCP or UDP socket, numbers masked.
fn inet_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("<TCP:") || l.contains("<UDP:"))
        .map(|l| numbers_masked(&collapsed(l)))
        .collect()
}

fn strace_text() -> String {
    let file = temp_path("strace-yy");
    let st = Command::new("strace")
        .args(["-qq", "-yy", "-e", &format!("trace={CALLS}"), "-o"])
        .arg(&file)
        .args(["python3", "-c", SCRIPT])
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    text
}

#[test]
fn yy_prints_loopback_tcp_and_udp_endpoints_as_strace_does() {
    if skip() || !python() {
        return;
    }
    let file = temp_path("sonde-yy");
    let path = file.to_str().unwrap();
    let out = sonde(&[
        "trace", "--strace", "-qq", "-yy", "-e", CALLS, "-o", path, "--", "python3", "-c", SCRIPT,
    ]);
    out.assert_ok();
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    let want = out.stdout.lines().find_map(|l| l.strip_prefix("want ")).unwrap_or_default();
    let wants: Vec<&str> = want.split(' ').collect();
    assert_eq!(wants.len(), 5, "{}", out.describe());
    for w in &wants {
        // Each socket's endpoints on its sendto/recvfrom/getsockname line and on its close.
        let n = text.lines().filter(|l| l.contains(&format!("({w}"))).count();
        assert!(n >= 2, "{w} on fewer than two lines:\n{text}");
    }
    let ours = inet_lines(&text);
    if strace_installed() {
        assert_eq!(ours, inet_lines(&strace_text()), "{text}");
    }
}
