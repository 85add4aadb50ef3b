//! A small HTTP/1.1 server on std's `TcpListener`: one thread, one request per connection
//! (`Connection: close`), the request head bounded in size and in time, no body read. Enough
//! for a scraper every few seconds; nothing async.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a client may cost the one serving thread.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The request line and headers, in bytes.
    pub max_head: usize,
    /// From accepting the connection to the end of the head, and for writing the answer.
    pub timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_head: 8 * 1024, timeout: Duration::from_secs(5) }
    }
}

/// A request's head, as far as sonde cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The path without its query string.
    pub path: String,
    pub accept: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// For a 405: the methods the path takes.
    pub allow: Option<&'static str>,
}

impl Response {
    pub fn text(status: u16, body: &str) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: body.as_bytes().to_vec(),
            allow: None,
        }
    }
}

pub struct Server {
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    limits: Limits,
}

/// Ends [`Server::run`] from another thread.
#[derive(Clone)]
pub struct Stopper {
    stop: Arc<AtomicBool>,
    wake: SocketAddr,
}

impl Stopper {
    /// Sets the flag, then connects once so a blocked `accept` returns and sees it.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.wake, Duration::from_secs(1));
    }
}

impl Server {
    pub fn bind(addr: SocketAddr, limits: Limits) -> io::Result<Server> {
        Ok(Server { listener: TcpListener::bind(addr)?, stop: Arc::default(), limits })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn stopper(&self) -> io::Result<Stopper> {
        let mut wake = self.listener.local_addr()?;
        // A wildcard address is reached through the loopback.
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake {
                SocketAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => Ipv6Addr::LOCALHOST.into(),
            });
        }
        Ok(Stopper { stop: self.stop.clone(), wake })
    }

    /// Answers connections one at a time with `handle` until stopped.
    pub fn run(&self, mut handle: impl FnMut(&Request) -> Response) {
        for conn in self.listener.incoming() {
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            match conn {
                Ok(stream) => serve(stream, self.limits, &mut handle),
                // Out of descriptors, say: let some close before trying again.
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

/// Why a request head could not be had.
#[derive(Debug, PartialEq, Eq)]
enum HeadError {
    TooLarge,
    TimedOut,
    Malformed,
    /// The client went away: nothing to answer.
    Closed,
}

fn serve(mut stream: TcpStream, limits: Limits, handle: &mut impl FnMut(&Request) -> Response) {
    let _ = stream.set_write_timeout(Some(limits.timeout));
    let response = match read_head(&mut stream, limits).and_then(|h| parse_head(&h)) {
        Ok(req) => {
            let mut resp = handle(&req);
            if req.method == "HEAD" {
                let len = resp.body.len();
                resp.body.clear();
                write_response(&mut stream, &resp, len);
                return;
            }
            resp
        }
        Err(HeadError::Closed) => return,
        Err(HeadError::TooLarge) => Response::text(431, "request head too large\n"),
        Err(HeadError::TimedOut) => Response::text(408, "request head too slow\n"),
        Err(HeadError::Malformed) => Response::text(400, "not an HTTP/1.x request\n"),
    };
    let len = response.body.len();
    write_response(&mut stream, &response, len);
}

/// Bytes up to the blank line ending the head, within the limits.
fn read_head(stream: &mut TcpStream, limits: Limits) -> Result<Vec<u8>, HeadError> {
    let deadline = Instant::now() + limits.timeout;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(HeadError::TimedOut);
        }
        stream.set_read_timeout(Some(left)).map_err(|_| HeadError::Closed)?;
        let n = match stream.read(&mut buf) {
            Ok(0) if head.is_empty() => return Err(HeadError::Closed),
            Ok(0) => return Err(HeadError::Malformed),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                return Err(HeadError::TimedOut)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(HeadError::Closed),
        };
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = head_end(&head) {
            head.truncate(end);
            return Ok(head);
        }
        if head.len() > limits.max_head {
            return Err(HeadError::TooLarge);
        }
    }
}

/// Where the head ends (`\r\n\r\n`, or `\n\n` from a lax client), if it has.
fn head_end(b: &[u8]) -> Option<usize> {
    let crlf = b.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = b.windows(2).position(|w| w == b"\n\n");
    crlf.into_iter().chain(lf).min()
}

fn parse_head(head: &[u8]) -> Result<Request, HeadError> {
    let text = std::str::from_utf8(head).map_err(|_| HeadError::Malformed)?;
    let mut lines = text.split('\n').map(|l| l.trim_end_matches('\r'));
    let line = lines.next().ok_or(HeadError::Malformed)?;
    let mut words = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(HeadError::Malformed);
    };
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    if !token(method) || !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Err(HeadError::Malformed);
    }
    let path = target.split(['?', '#']).next().unwrap_or(target).to_string();
    let mut accept = None;
    for l in lines {
        if let Some((k, v)) = l.split_once(':') {
            if k.trim().eq_ignore_ascii_case("accept") {
                accept = Some(v.trim().to_string());
            }
        }
    }
    Ok(Request { method: method.to_string(), path, accept })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Internal Server Error",
    }
}

/// The status line, headers and body; `len` is the body's length (a HEAD answer has no body
/// but says how long it would be). A client that stopped reading is given up on.
fn write_response(stream: &mut TcpStream, r: &Response, len: usize) {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        len
    );
    if let Some(allow) = r.allow {
        head.push_str(&format!("Allow: {allow}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&r.body));
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_parse() {
        let r =
            parse_head(b"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nACCEPT: text/plain\r\n").unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/metrics");
        assert_eq!(r.accept.as_deref(), Some("text/plain"));
        for bad in [
            &b"GET /metrics"[..],
            b"GET metrics HTTP/1.1",
            b"G3T / HTTP/1.1",
            b"GET / HTTP/2",
            b"\xff / HTTP/1.1",
        ] {
            assert_eq!(
                parse_head(bad),
                Err(HeadError::Malformed),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn the_head_ends_at_the_first_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n\r\nbody"), Some(20));
        assert_eq!(head_end(b"GET / HTTP/1.1\n\n"), Some(14));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n"), None);
    }
}
