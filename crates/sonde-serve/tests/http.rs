//! The server on 127.0.0.1 with an ephemeral port, driven by a raw TCP client.

use sonde_serve::http::{Limits, Server};
use sonde_serve::model::labels;
use sonde_serve::routes::route;
use sonde_serve::{render, Family, Kind, Number};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits { max_head: 1024, timeout: Duration::from_millis(400) };

fn families() -> Vec<Family> {
    let mut f = Family::new("sonde_opens", "Files opened.", Kind::Counter);
    f.push(labels(&[("comm", "wl")]), Number::U(42));
    vec![f]
}

/// A server answering with [`families`] until the returned stopper is used.
fn start() -> (SocketAddr, sonde_serve::http::Stopper, JoinHandle<()>) {
    let server = Server::bind("127.0.0.1:0".parse().unwrap(), LIMITS).expect("bind");
    let addr = server.local_addr().unwrap();
    let stopper = server.stopper().unwrap();
    let t =
        std::thread::spawn(move || server.run(|req| route(req, |f| Some(render(&families(), f)))));
    (addr, stopper, t)
}

/// Sends `raw`, reads the whole answer (the server closes), within 5 s.
fn exchange(addr: SocketAddr, raw: &[u8]) -> String {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(raw).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn get(addr: SocketAddr, path: &str, extra: &str) -> String {
    exchange(addr, format!("GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n").as_bytes())
}

#[test]
fn metrics_as_text_by_default() {
    let (addr, stop, t) = start();
    let r = get(addr, "/metrics", "");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(r.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), "{r}");
    assert!(r.contains("Connection: close\r\n"), "{r}");
    assert!(r.ends_with("\r\n\r\n# HELP sonde_opens_total Files opened.\n# TYPE sonde_opens_total counter\nsonde_opens_total{comm=\"wl\"} 42\n"), "{r}");
    let body_len = r.split("\r\n\r\n").nth(1).unwrap().len();
    assert!(r.contains(&format!("Content-Length: {body_len}\r\n")), "{r}");
    stop.stop();
    t.join().unwrap();
}

#[test]
fn metrics_as_openmetrics_when_asked() {
    let (addr, stop, t) = start();
    let accept =
        "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n";
    let r = get(addr, "/metrics", accept);
    assert!(r.contains("Content-Type: application/openmetrics-text; version=1.0.0"), "{r}");
    assert!(r.contains("# TYPE sonde_opens counter\n"), "{r}");
    assert!(r.ends_with("# EOF\n"), "{r}");
    stop.stop();
    t.join().unwrap();
}

#[test]
fn health_not_found_and_wrong_methods() {
    let (addr, stop, t) = start();
    assert!(get(addr, "/healthz", "").ends_with("\r\n\r\nok\n"));
    assert!(get(addr, "/", "").starts_with("HTTP/1.1 404 Not Found\r\n"));
    assert!(get(addr, "/metrics/x", "").starts_with("HTTP/1.1 404 "));
    let r = exchange(addr, b"POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
    assert!(r.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"), "{r}");
    assert!(r.contains("Allow: GET, HEAD\r\n"), "{r}");
    let r = exchange(addr, b"HEAD /metrics HTTP/1.1\r\n\r\n");
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n") && r.ends_with("\r\n\r\n"), "{r}");
    assert!(!r.contains("Content-Length: 0\r\n"), "HEAD says the GET body's length: {r}");
    stop.stop();
    t.join().unwrap();
}

#[test]
fn bad_requests_are_refused_and_the_server_goes_on() {
    let (addr, stop, t) = start();
    assert!(exchange(addr, b"hello\r\n\r\n").starts_with("HTTP/1.1 400 "));
    let huge = format!("GET /metrics HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(4096));
    assert!(exchange(addr, huge.as_bytes()).starts_with("HTTP/1.1 431 "));
    // A client that connects and leaves without a word.
    drop(TcpStream::connect(addr).unwrap());
    assert!(get(addr, "/healthz", "").starts_with("HTTP/1.1 200 "));
    stop.stop();
    t.join().unwrap();
}

#[test]
fn a_silent_client_is_given_up_on_in_bounded_time() {
    let (addr, stop, t) = start();
    let t0 = Instant::now();
    // Half a request line, then nothing: the next client waits at most the head timeout.
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(b"GET /met").unwrap();
    let r = get(addr, "/healthz", "");
    assert!(r.starts_with("HTTP/1.1 200 "), "{r}");
    assert!(t0.elapsed() < LIMITS.timeout * 5, "took {:?}", t0.elapsed());
    let mut answer = String::new();
    slow.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = slow.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    stop.stop();
    t.join().unwrap();
}

#[test]
fn stopping_ends_the_server() {
    let (addr, stop, t) = start();
    stop.stop();
    let t0 = Instant::now();
    t.join().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    // The listener is closed once run() returns.
    assert!(TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err());
}
