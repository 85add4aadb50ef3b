//! End-to-end: `sonde serve` on the loopback with a tracepoint program, the workload's exact
//! syscall counts read back from /metrics, then from a real Prometheus that scraped it
//! (Debian's `prometheus` package; skipped when it is not installed). Every wait is bounded;
//! only 127.0.0.1 is used.

mod common;

use common::{Running, Sonde, ATTACH_TIMEOUT};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// getpid() calls and reads of READ_SIZE bytes the workload makes under its comm.
const GETPIDS: u64 = 1234;
const READS: u64 = 40;
/// In sonde's bucket [2048, 4096): `le="4095"` for integers.
const READ_SIZE: u64 = 3000;

/// A program counting the workload's calls, by comm, in a file of its own.
fn program(dir: &Path, comm: &str) -> PathBuf {
    let text = format!(
        "// getpid() calls, by command.\n\
         tracepoint:syscalls:sys_enter_getpid /comm == \"{comm}\"/ {{ @calls[comm] = count(); }}\n\
         tracepoint:syscalls:sys_exit_read /comm == \"{comm}\"/ {{\n\
         \x20   // Bytes per read, by command.\n\
         \x20   @read_bytes[comm] = hist(args->ret);\n\
         }}\n"
    );
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("calls.bt");
    std::fs::write(&path, text).unwrap();
    path
}

fn workload(comm: &str) {
    let (n, r, size) = (GETPIDS.to_string(), READS.to_string(), READ_SIZE.to_string());
    common::run_workload(&["comm", comm, "getpid", &n, "read", &r, &size]);
}

/// `sonde serve` on an ephemeral loopback port, once it says where.
fn serve(file: &Path) -> (Running, SocketAddr) {
    serve_with(file, &[])
}

fn serve_with(file: &Path, flags: &[&str]) -> (Running, SocketAddr) {
    let mut args = vec!["serve", "--listen", "127.0.0.1:0"];
    args.extend(flags);
    args.push(file.to_str().unwrap());
    let mut sonde = Sonde::new(&args).spawn();
    sonde.wait_stderr("/metrics", ATTACH_TIMEOUT);
    let err = sonde.stderr_so_far();
    let addr = err
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in sonde's stderr:\n{err}"));
    (sonde, addr)
}

/// GET `target` from `addr` (the server closes the connection), within 10 s.
#[track_caller]
fn get(addr: SocketAddr, target: &str, accept: Option<&str>) -> (u16, String) {
    try_get(addr, target, accept).unwrap_or_else(|e| panic!("GET http://{addr}{target}: {e}"))
}

fn try_get(addr: SocketAddr, target: &str, accept: Option<&str>) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let accept = accept.map(|a| format!("Accept: {a}\r\n")).unwrap_or_default();
    let req = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\n{accept}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    Ok((status, body.to_string()))
}

fn sample<'a>(text: &'a str, series: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' '))
}

#[test]
fn metrics_hold_the_workloads_exact_counts() {
    require_tracepoints!();
    let dir = common::temp_path("serve");
    let (sonde, addr) = serve(&program(&dir, "wl_serve"));
    workload("wl_serve");
    let (status, text) = get(addr, "/metrics", None);
    assert_eq!(status, 200, "{text}");
    let l = "{comm=\"wl_serve\"";
    assert_eq!(sample(&text, &format!("sonde_calls_total{l}}}")), Some("1234"), "{text}");
    assert!(text.contains("# HELP sonde_calls_total getpid() calls, by command.\n"), "{text}");
    let bucket = |le: &str| sample(&text, &format!("sonde_read_bytes_bucket{l},le=\"{le}\"}}"));
    assert_eq!(bucket("2047"), Some("0"), "{text}");
    assert_eq!(bucket("4095"), Some("40"), "{text}");
    assert_eq!(bucket("+Inf"), Some("40"), "{text}");
    assert_eq!(sample(&text, &format!("sonde_read_bytes_count{l}}}")), Some("40"), "{text}");
    assert!(text.contains("sonde_serve_build_info{version="), "{text}");
    match sonde_serve::promtool::check(&text) {
        None => println!("promtool not installed: the exposition is not checked by it"),
        Some(Err(said)) => panic!("promtool check metrics refused the exposition:\n{said}\n{text}"),
        Some(Ok(())) => {}
    }
    let (_, om) = get(addr, "/metrics", Some("application/openmetrics-text; version=1.0.0"));
    assert!(om.contains("le=\"4095.0\"} 40\n") && om.ends_with("# EOF\n"), "{om}");
    assert_eq!(get(addr, "/healthz", None), (200, "ok\n".into()));
    assert_eq!(get(addr, "/nope", None).0, 404);
    sonde.signal(libc::SIGTERM);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn max_series_bounds_a_map_keyed_by_pid() {
    require_tracepoints!();
    let dir = common::temp_path("serve-lru");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("exits.bt");
    let prog = "tracepoint:syscalls:sys_enter_exit_group /comm == \"wl_lru\"/ { @exits[pid] = count(); }\n";
    std::fs::write(&file, prog).unwrap();
    // 20 children named wl_lru, each exiting once: 20 pids.
    let forks: Vec<&str> = std::iter::repeat_n(["fork", "wl_lru"], 20).flatten().collect();
    let series = |flags: &[&str]| {
        let (sonde, addr) = serve_with(&file, flags);
        common::run_workload(&forks);
        let (_, text) = get(addr, "/metrics", None);
        sonde.signal(libc::SIGTERM);
        sonde.wait().assert_ok();
        let n = text.lines().filter(|l| l.starts_with("sonde_exits_total{")).count();
        (n, text)
    };
    let (all, text) = series(&[]);
    assert_eq!(all, 20, "{text}");
    let (bounded, text) = series(&["--max-series", "8"]);
    assert!((1..=8).contains(&bounded), "{bounded} series\n{text}");
    let at = format!("{{program=\"{}\",map=\"@exits\"}}", file.display());
    assert_eq!(sample(&text, &format!("sonde_serve_map_max_entries{at}")), Some("8"), "{text}");
    // Every pid was inserted once: those not held were evicted.
    let evicted = sample(&text, &format!("sonde_serve_map_evictions_total{at}"));
    assert_eq!(evicted, Some((20 - bounded).to_string().as_str()), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A program with an LRU map (keys without bound), a hash it sizes itself, a map keyed by
/// CPU, one sized by `// metric: max=N` and a declared one resized by it, each fed `GETPIDS`
/// distinct keys.
const CARDINALITY: &str = "let @own = hash(10);\n\
    // metric: max=30\n\
    let @resized = lruhash(10);\n\
    tracepoint:syscalls:sys_enter_getpid /comm == \"wl_card\"/ {\n\
    \x20   @recent[nsecs] = count();\n\
    \x20   @own[nsecs] = count();\n\
    \x20   @resized[nsecs] = count();\n\
    \x20   @by_cpu[cpu] = count();\n\
    \x20   // metric: max=50\n\
    \x20   @small[nsecs] = count();\n\
    }\n";

/// `NAME{program=...,map="MAP"}`'s value in `text`.
fn map_sample<'a>(text: &'a str, name: &str, file: &Path, map: &str) -> Option<&'a str> {
    sample(text, &format!("{name}{{program=\"{}\",map=\"{map}\"}}", file.display()))
}

#[test]
fn evictions_and_refused_inserts_are_counted_exactly() {
    require_tracepoints!();
    let dir = common::temp_path("serve-card");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("card.bt");
    std::fs::write(&file, CARDINALITY).unwrap();
    let (sonde, addr) = serve_with(&file, &["--max-series", "100"]);
    common::run_workload(&["comm", "wl_card", "getpid", &GETPIDS.to_string()]);
    let (_, text) = get(addr, "/metrics", None);
    let m = |name: &str, map: &str| map_sample(&text, name, &file, map).map(str::to_string);
    let n = |v: u64| Some(v.to_string());
    let num = |name: &str, map: &str| m(name, map).and_then(|v| v.parse::<u64>().ok());
    // nsecs is a new key at every call: an LRU map evicts, a hash refuses. The kernel's LRU
    // takes from per-CPU free lists, so it may evict before it holds its maximum: what it
    // holds and what it evicted make up every key.
    let evicted_and_held = |map: &str, max: u64| {
        let held = num("sonde_serve_map_entries", map).unwrap();
        assert!(held <= max, "{map}: {held} held\n{text}");
        assert_eq!(num("sonde_serve_map_evictions_total", map), Some(GETPIDS - held), "{text}");
    };
    assert_eq!(m("sonde_serve_map_max_entries", "@recent"), n(100), "{text}");
    evicted_and_held("@recent", 100);
    assert_eq!(m("sonde_serve_map_refused_inserts_total", "@recent"), None, "{text}");
    assert_eq!(m("sonde_serve_map_max_entries", "@own"), n(10), "{text}");
    assert_eq!(m("sonde_serve_map_refused_inserts_total", "@own"), n(GETPIDS - 10), "{text}");
    assert_eq!(m("sonde_serve_map_evictions_total", "@own"), None, "{text}");
    assert_eq!(m("sonde_serve_map_max_entries", "@small"), n(50), "{text}");
    evicted_and_held("@small", 50);
    // A declared map keeps its kind; `max=N` above its declaration sizes it.
    assert_eq!(m("sonde_serve_map_max_entries", "@resized"), n(30), "{text}");
    evicted_and_held("@resized", 30);
    // The CPUs are bounded: a plain hash, which nothing overfills.
    assert_eq!(m("sonde_serve_map_refused_inserts_total", "@by_cpu"), n(0), "{text}");
    assert_eq!(m("sonde_serve_map_evictions_total", "@by_cpu"), None, "{text}");
    if let Some(Err(said)) = sonde_serve::promtool::check(&text) {
        panic!("promtool check metrics refused the exposition:\n{said}\n{text}");
    }
    if prometheus_installed() {
        let prom = Prometheus::start(addr, &dir.join("prometheus"));
        let q = "sonde_serve_map_evictions_total{map=\"@recent\"}";
        let want = (GETPIDS - num("sonde_serve_map_entries", "@recent").unwrap()) as f64;
        assert_eq!(prom.wait_for(q, Duration::from_secs(60), |v| v == want), want);
        let q = "sonde_serve_map_refused_inserts_total{map=\"@own\"}";
        let want = (GETPIDS - 10) as f64;
        assert_eq!(prom.wait_for(q, Duration::from_secs(30), |v| v == want), want);
    }
    sonde.signal(libc::SIGTERM);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}

/// Bit `cap` of the `CapEff:` line of a /proc status text.
fn has_cap(status: &str, cap: u32) -> bool {
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:")).unwrap().trim();
    u64::from_str_radix(hex, 16).unwrap() & (1 << cap) != 0
}

#[test]
fn after_attach_only_what_a_reload_needs_is_kept() {
    require_tracepoints!();
    let dir = common::temp_path("serve-caps");
    std::fs::create_dir_all(&dir).unwrap();
    counter(&dir, "pids", "getpid", "wl_caps");
    let (mut sonde, addr) = serve(&dir);
    // Every thread: the HTTP thread (answering now) starts after the drop and inherits it.
    assert_eq!(get(addr, "/healthz", None).0, 200);
    let tasks = std::fs::read_dir(format!("/proc/{}/task", sonde.pid())).unwrap();
    let mut threads = 0;
    for t in tasks {
        let status = std::fs::read_to_string(t.unwrap().path().join("status")).unwrap();
        // CAP_DAC_OVERRIDE, CAP_KILL, CAP_NET_ADMIN, CAP_SYS_RESOURCE: gone.
        for gone in [1, 5, 12, 24] {
            assert!(!has_cap(&status, gone), "capability {gone} kept:\n{status}");
        }
        // CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF: a reload needs them.
        for kept in [21, 38, 39] {
            assert!(has_cap(&status, kept), "capability {kept} dropped:\n{status}");
        }
        threads += 1;
    }
    assert!(threads >= 2, "the HTTP thread is missing");
    // With only those, a reload still loads and attaches a new program.
    counter(&dir, "tids", "gettid", "wl_caps");
    reload(&mut sonde, 1);
    common::run_workload(&["comm", "wl_caps", "gettid", "9"]);
    let (_, text) = get(addr, "/metrics", None);
    assert_eq!(sample(&text, "sonde_tids_total"), Some("9"), "{text}");
    assert_eq!(sample(&text, "sonde_serve_last_reload_successful"), Some("1"), "{text}");
    sonde.signal(libc::SIGTERM);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_program_that_only_prints_is_refused() {
    // Compiling a tracepoint reads its format in tracefs.
    require_tracepoints!();
    let dir = common::temp_path("serve-print");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("print.bt");
    std::fs::write(&file, "tracepoint:syscalls:sys_enter_getpid { printf(\"%d\\n\", pid); }\n")
        .unwrap();
    let o = common::sonde(&["serve", file.to_str().unwrap()]);
    o.assert_code(2);
    assert!(o.stderr.contains("its only output is printing"), "{}", o.describe());
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------- a real Prometheus

/// A Prometheus scraping `target` every second, in a temp dir; killed when dropped.
struct Prometheus {
    child: Child,
    api: SocketAddr,
    dir: PathBuf,
}

impl Prometheus {
    fn start(target: SocketAddr, dir: &Path) -> Prometheus {
        let api = free_port();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: sonde\n    static_configs:\n      - targets: ['{target}']\n"
        );
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("prometheus.yml"), config).unwrap();
        let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", dir.join("prometheus.yml").display()))
            .arg(format!("--storage.tsdb.path={}", dir.join("data").display()))
            .arg(format!("--web.listen-address={api}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start prometheus");
        Prometheus { child, api, dir: dir.to_path_buf() }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("prometheus.log")).unwrap_or_default()
    }

    /// The result vector of an instant query (`/api/v1/query`), or None while the API is not up.
    fn query(&self, promql: &str) -> Option<Vec<serde_json::Value>> {
        let target = format!("/api/v1/query?query={}", percent_encode(promql));
        let (status, body) = try_get(self.api, &target, None).ok()?;
        let v: serde_json::Value = serde_json::from_str(&body).ok()?;
        (status == 200 && v["status"] == "success")
            .then(|| v["data"]["result"].as_array().cloned())?
    }

    /// Waits (at most `within`) until `promql` has a result whose value `ok` accepts; that value.
    fn wait_for(&self, promql: &str, within: Duration, ok: impl Fn(f64) -> bool) -> f64 {
        let deadline = Instant::now() + within;
        let mut last = None;
        while Instant::now() < deadline {
            if let Some(r) = self.query(promql) {
                let v = r.first().and_then(|s| s["value"][1].as_str()?.parse::<f64>().ok());
                if v.is_some_and(&ok) {
                    return v.unwrap();
                }
                last = Some(r);
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("`{promql}` never came right within {within:?} (last: {last:?})\n{}", self.log());
    }
}

impl Prometheus {
    /// Waits (at most `within`) until `promql` has no result: its series are stale.
    fn wait_until_gone(&self, promql: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.query(promql).is_some_and(|r| r.is_empty()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        panic!("`{promql}` still has a value after {within:?}\n{}", self.log());
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port nobody listens on now.
fn free_port() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn prometheus_installed() -> bool {
    Command::new("prometheus")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_real_prometheus_stores_the_exact_count_the_right_bucket_and_staleness() {
    require_tracepoints!();
    if !prometheus_installed() {
        println!("skipped: prometheus not installed (apt-get install prometheus)");
        return;
    }
    let dir = common::temp_path("serve-prometheus");
    let programs = program(&dir, "wl_prom").parent().unwrap().to_path_buf();
    counter(&programs, "extra", "getppid", "wl_prom");
    let (mut sonde, addr) = serve(&programs);
    let prom = Prometheus::start(addr, &dir.join("prometheus"));
    // Scraped, and read without error (Prometheus asks for OpenMetrics).
    prom.wait_for("up{job=\"sonde\"}", Duration::from_secs(60), |v| v == 1.0);
    workload("wl_prom");
    let want = GETPIDS as f64;
    let calls = "sonde_calls_total{comm=\"wl_prom\"}";
    assert_eq!(prom.wait_for(calls, Duration::from_secs(30), |v| v == want), want);
    // The labels are the key's name and Prometheus's own, nothing else.
    let series = prom.query(calls).unwrap();
    let mut names: Vec<&str> =
        series[0]["metric"].as_object().unwrap().keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(names, ["__name__", "comm", "instance", "job"], "{series:?}");
    // Every read was in [2048, 4096): the median lies in the bucket (2047, 4095].
    let q = "histogram_quantile(0.5, sonde_read_bytes_bucket{comm=\"wl_prom\"})";
    let median = prom.wait_for(q, Duration::from_secs(30), |v| v.is_finite());
    assert!(median > 2047.0 && median <= 4095.0, "median {median}");
    // Prometheus scraped OpenMetrics, whose `le` is a float: the bucket is stored as "4095.0".
    let bucket = "sonde_read_bytes_bucket{comm=\"wl_prom\",le=\"4095.0\"}";
    assert_eq!(prom.wait_for(bucket, Duration::from_secs(30), |v| v == READS as f64), 40.0);
    let count = "sonde_read_bytes_count{comm=\"wl_prom\"}";
    assert_eq!(prom.wait_for(count, Duration::from_secs(30), |v| v == READS as f64), 40.0);
    // A program removed by a reload: its series go stale, the others stay.
    prom.wait_for("sonde_extra_total", Duration::from_secs(30), |v| v == 0.0);
    std::fs::remove_file(programs.join("extra.bt")).unwrap();
    reload(&mut sonde, 1);
    prom.wait_until_gone("sonde_extra_total", Duration::from_secs(30));
    assert_eq!(prom.wait_for(calls, Duration::from_secs(30), |v| v == want), want);
    drop(prom);
    sonde.signal(libc::SIGINT);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------- SIGHUP

/// A keyless counter of `syscall` calls by the workload named `comm`, as `NAME.bt` in `dir`.
fn counter(dir: &Path, name: &str, syscall: &str, comm: &str) {
    let text = format!(
        "tracepoint:syscalls:sys_enter_{syscall} /comm == \"{comm}\"/ {{ @{name} = count(); }}\n"
    );
    std::fs::write(dir.join(format!("{name}.bt")), text).unwrap();
}

/// Sends SIGHUP and waits for the `reloaded` line it makes (the `n`th).
fn reload(sonde: &mut Running, n: usize) {
    sonde.signal(libc::SIGHUP);
    let deadline = Instant::now() + ATTACH_TIMEOUT;
    while sonde.stderr_so_far().matches("sonde: reloaded").count() < n {
        assert!(Instant::now() < deadline, "no reload:\n{}", sonde.stderr_so_far());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sighup_reloads_the_directory_keeping_unchanged_programs() {
    require_tracepoints!();
    let dir = common::temp_path("serve-hup");
    std::fs::create_dir_all(&dir).unwrap();
    counter(&dir, "pids", "getpid", "wl_hup");
    counter(&dir, "ppids", "getppid", "wl_hup");
    let (mut sonde, addr) = serve(&dir);
    let wl = |args: &[&str]| {
        let mut all = vec!["comm", "wl_hup"];
        all.extend(args);
        common::run_workload(&all);
    };
    wl(&["getpid", "100", "getppid", "50"]);
    let metrics = || get(addr, "/metrics", None).1;
    let text = metrics();
    assert_eq!(sample(&text, "sonde_pids_total"), Some("100"), "{text}");
    assert_eq!(sample(&text, "sonde_ppids_total"), Some("50"), "{text}");
    // One program removed, one added, one that does not compile.
    std::fs::remove_file(dir.join("ppids.bt")).unwrap();
    counter(&dir, "tids", "gettid", "wl_hup");
    std::fs::write(dir.join("broken.bt"), "tracepoint:syscalls:sys_enter_getpid { @x = ; }\n")
        .unwrap();
    reload(&mut sonde, 1);
    wl(&["getpid", "100", "gettid", "30"]);
    let text = metrics();
    assert_eq!(sample(&text, "sonde_pids_total"), Some("200"), "kept its count\n{text}");
    assert_eq!(sample(&text, "sonde_ppids_total"), None, "removed\n{text}");
    assert_eq!(sample(&text, "sonde_tids_total"), Some("30"), "added\n{text}");
    let broken = format!(
        "sonde_serve_reload_failures_total{{program=\"{}\"}}",
        dir.join("broken.bt").display()
    );
    assert_eq!(sample(&text, &broken), Some("1"), "{text}");
    assert_eq!(sample(&text, "sonde_serve_last_reload_successful"), Some("0"), "{text}");
    assert!(sonde.stderr_so_far().contains("broken.bt"), "{}", sonde.stderr_so_far());
    // A changed program starts again; the broken one gone, the reload succeeds.
    std::fs::remove_file(dir.join("broken.bt")).unwrap();
    let changed = std::fs::read_to_string(dir.join("pids.bt")).unwrap();
    std::fs::write(dir.join("pids.bt"), format!("// getpid() calls.\n{changed}")).unwrap();
    reload(&mut sonde, 2);
    wl(&["getpid", "7"]);
    let text = metrics();
    assert_eq!(sample(&text, "sonde_pids_total"), Some("7"), "{text}");
    assert_eq!(sample(&text, "sonde_tids_total"), Some("30"), "{text}");
    assert_eq!(sample(&text, "sonde_serve_last_reload_successful"), Some("1"), "{text}");
    assert_eq!(sample(&text, "sonde_serve_reloads_total"), Some("2"), "{text}");
    sonde.signal(libc::SIGTERM);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}

// ---------------------------------------------------------------- systemd

#[test]
fn systemd_hears_ready_reloading_and_stopping() {
    require_tracepoints!();
    use std::os::unix::net::UnixDatagram;
    let dir = common::temp_path("serve-notify");
    std::fs::create_dir_all(&dir).unwrap();
    counter(&dir, "pids", "getpid", "wl_notify");
    let sock_path = dir.join("notify.sock");
    let sock = UnixDatagram::bind(&sock_path).unwrap();
    sock.set_read_timeout(Some(ATTACH_TIMEOUT)).unwrap();
    let child = Command::new(common::sonde_bin())
        .args(["serve", "--listen", "127.0.0.1:0"])
        .arg(&dir)
        .env("NOTIFY_SOCKET", &sock_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed if the test fails half-way.
    let mut child = KillOnDrop(child);
    let pid = child.0.id() as i32;
    let next = || {
        let mut buf = [0u8; 256];
        let n = sock.recv(&mut buf).expect("a notification within the timeout");
        String::from_utf8_lossy(&buf[..n]).into_owned()
    };
    assert_eq!(next(), "READY=1");
    unsafe { libc::kill(pid, libc::SIGHUP) };
    let reloading = next();
    assert!(reloading.starts_with("RELOADING=1\nMONOTONIC_USEC="), "{reloading:?}");
    assert_eq!(next(), "READY=1");
    unsafe { libc::kill(pid, libc::SIGTERM) };
    assert_eq!(next(), "STOPPING=1");
    let deadline = Instant::now() + ATTACH_TIMEOUT;
    let status = loop {
        if let Some(st) = child.0.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < deadline, "sonde serve did not exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(dir);
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_contrib_unit_file_verifies() {
    let unit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contrib/sonde-serve.service");
    let text = std::fs::read_to_string(&unit).unwrap();
    assert!(text.contains("Type=notify") && text.contains("ExecReload=/bin/kill -HUP $MAINPID"));
    // Checked with the binary under test in place of the installed one.
    let dir = common::temp_path("serve-unit");
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("sonde-serve.service");
    std::fs::write(&copy, text.replace("/usr/local/bin/sonde", &common::sonde_bin())).unwrap();
    let out = match Command::new("systemd-analyze").arg("verify").arg(&copy).output() {
        Ok(o) => o,
        Err(_) => {
            println!("skipped: systemd-analyze not installed");
            return;
        }
    };
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.trim().is_empty(), "systemd-analyze verify:\n{said}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn serve_answers_help_with_its_flags() {
    let o = common::sonde(&["serve", "--help"]);
    o.assert_ok();
    for flag in ["--listen", "--max-series", "127.0.0.1:19435", "PROGRAM-FILE|DIR"] {
        assert!(o.stdout.contains(flag), "{flag}\n{}", o.describe());
    }
}

#[test]
fn bpf_stats_count_each_probes_runs() {
    require_tracepoints!();
    let dir = common::temp_path("serve-stats");
    std::fs::create_dir_all(&dir).unwrap();
    counter(&dir, "pids", "getpid", "wl_stats");
    let (sonde, addr) = serve_with(&dir, &["--bpf-stats"]);
    common::run_workload(&["comm", "wl_stats", "getpid", "500"]);
    let (_, text) = get(addr, "/metrics", None);
    let at = format!(
        "{{program=\"{}\",probe=\"tracepoint:syscalls:sys_enter_getpid\"}}",
        dir.join("pids.bt").display()
    );
    // The probe runs on every getpid() of the system; the filter is inside it.
    let runs: u64 = sample(&text, &format!("sonde_serve_probe_runs_total{at}"))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no run count\n{text}"));
    assert!(runs >= 500, "{runs} runs\n{text}");
    let seconds: f64 = sample(&text, &format!("sonde_serve_probe_run_seconds_total{at}"))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no run time\n{text}"));
    assert!(seconds > 0.0, "{text}");
    assert_eq!(sample(&text, "sonde_pids_total"), Some("500"), "{text}");
    sonde.signal(libc::SIGTERM);
    sonde.wait().assert_ok();
    let _ = std::fs::remove_dir_all(dir);
}
