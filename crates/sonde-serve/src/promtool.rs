//! Prometheus's own check of an exposition: `promtool check metrics` (Debian's `prometheus`
//! package), which parses the text format and lints it. For the tests and benches that want
//! the real parser's word; sonde itself never runs it.

use std::io::Write;
use std::process::{Command, Stdio};

/// promtool's verdict on `text` in the text format: None when promtool is not installed, else
/// Err with what it said when it refused the exposition.
pub fn check(text: &str) -> Option<Result<(), String>> {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    // A promtool that exits early closes its stdin: its exit status says why.
    let _ = child.stdin.take()?.write_all(text.as_bytes());
    let out = child.wait_with_output().ok()?;
    if out.status.success() {
        return Some(Ok(()));
    }
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    Some(Err(said))
}
