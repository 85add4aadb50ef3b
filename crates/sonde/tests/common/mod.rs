//! Shared harness for sonde's end-to-end tests.
//!
//! * [`sonde`] / [`Sonde`]: run the built `sonde` binary with a timeout, capturing
//!   stdout, stderr and the exit code; a run that outlives its timeout is killed and
//!   the test fails showing everything it printed.
//! * [`Running`]: a sonde in the background: wait for a line on stderr (`Attached`),
//!   then drive a workload, send it a signal, and collect its output.
//! * [`workload`] / [`wl`]: the `sonde-workload` binary (exact syscall counts).
//! * [`skip_reason`] and the `require_bpf!` / `require_tracepoints!` macros: print
//!   `skipped: <reason>` and return when not root, without BPF or without tracefs.
//! * Parsers for bpftrace-style text output (scalars, keyed maps, histograms).
//! * [`bpf_ids`]: the kernel's BPF program/map/link ids, to check a clean detach.
//!
//! Each test binary only uses part of this module.
#![allow(dead_code)]

pub mod trace;

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long one sonde run may take before it is killed (CI machines are small).
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// How long sonde may take to say `Attached ...` on stderr.
pub const ATTACH_TIMEOUT: Duration = Duration::from_secs(30);

pub const SONDE: &str = env!("CARGO_BIN_EXE_sonde");

/// The sonde binary to test: `$SONDE_BIN` if set (an installed build, or a
/// stand-in), else the one cargo built.
pub fn sonde_bin() -> String {
    std::env::var("SONDE_BIN").unwrap_or_else(|_| SONDE.to_string())
}

// ---------------------------------------------------------------- skipping

/// Why BPF tracing tests cannot run here, if they cannot.
pub fn skip_reason() -> Option<String> {
    static R: OnceLock<Option<String>> = OnceLock::new();
    R.get_or_init(|| {
        if unsafe { libc::geteuid() } != 0 {
            return Some("not root (sonde needs CAP_BPF and CAP_PERFMON)".into());
        }
        let mut attr = [0u32; 4];
        let r = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                BPF_PROG_GET_NEXT_ID,
                attr.as_mut_ptr(),
                std::mem::size_of_val(&attr),
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::ENOENT) {
                return Some(format!("no BPF: bpf(BPF_PROG_GET_NEXT_ID) failed: {e}"));
            }
        }
        None
    })
    .clone()
}

/// Why tracepoint tests cannot run here: [`skip_reason`], or no tracefs.
pub fn skip_reason_tracepoints() -> Option<String> {
    if let Some(r) = skip_reason() {
        return Some(r);
    }
    if tracefs().is_none() {
        return Some("tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)".into());
    }
    None
}

/// Where tracefs is mounted, if it is (and has syscall tracepoints).
pub fn tracefs() -> Option<&'static Path> {
    ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .into_iter()
        .map(Path::new)
        .find(|p| p.join("events/syscalls/sys_enter_getpid").exists())
}

/// Returns from the test (after printing `skipped: <reason>`) unless BPF works here.
#[macro_export]
macro_rules! require_bpf {
    () => {
        if let Some(reason) = common::skip_reason() {
            println!("skipped: {reason}");
            return;
        }
    };
}

/// Returns from the test (after printing `skipped: <reason>`) unless BPF and the
/// syscall tracepoints work here.
#[macro_export]
macro_rules! require_tracepoints {
    () => {
        if let Some(reason) = common::skip_reason_tracepoints() {
            println!("skipped: {reason}");
            return;
        }
    };
}

// ---------------------------------------------------------------- workload

/// The `sonde-workload` binary: `$SONDE_WORKLOAD`, else the sibling of the `sonde`
/// binary under test (`target/<profile>/sonde-workload`, which `cargo test
/// --workspace` builds), else built here once with `cargo build -p sonde-workload`.
pub fn workload() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        if let Some(p) = std::env::var_os("SONDE_WORKLOAD") {
            let p = PathBuf::from(p);
            assert!(p.exists(), "SONDE_WORKLOAD={} does not exist", p.display());
            return p;
        }
        let sonde = Path::new(SONDE);
        let sibling = sonde.with_file_name("sonde-workload");
        if sibling.exists() {
            return sibling;
        }
        build_workload(sonde)
    })
}

fn build_workload(sonde: &Path) -> PathBuf {
    let profile_dir = sonde.parent().expect("sonde has a parent dir");
    let release = profile_dir.file_name().is_some_and(|n| n == "release");
    // A separate target dir: the outer `cargo test` may hold the lock on its own.
    let target = profile_dir.parent().expect("target dir").join("sonde-e2e-workload");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-q", "-p", "sonde-workload", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target);
    if release {
        cmd.arg("--release");
    }
    let st = cmd.status().expect("run cargo build -p sonde-workload");
    assert!(st.success(), "cargo build -p sonde-workload failed: {st}");
    let p = target.join(if release { "release" } else { "debug" }).join("sonde-workload");
    assert!(p.exists(), "{} was not built", p.display());
    p
}

/// A `-c` command line running the workload: `wl(&["comm", "wl_a", "getpid", "100"])`.
pub fn wl(args: &[&str]) -> String {
    let mut s = workload().to_str().expect("utf-8 workload path").to_string();
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

/// Runs the workload to completion (not under sonde) and asserts it succeeded.
pub fn run_workload(args: &[&str]) {
    let st = Command::new(workload()).args(args).status().expect("run sonde-workload");
    assert!(st.success(), "sonde-workload {args:?}: {st}");
}

/// A workload running in the background; killed if dropped still running (so a
/// failing test leaves nothing behind).
pub struct Workload(Child);

impl Workload {
    pub fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Waits for the workload to exit, failing the test after `timeout`.
    #[track_caller]
    pub fn wait(&mut self, timeout: Duration) -> ExitStatus {
        let t0 = Instant::now();
        loop {
            if let Some(st) = self.0.try_wait().expect("wait") {
                return st;
            }
            if t0.elapsed() > timeout {
                let _ = self.0.kill();
                let _ = self.0.wait();
                panic!("workload pid {} still running after {timeout:?}", self.0.id());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Workload {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// Starts the workload in the background.
pub fn spawn_workload(args: &[&str]) -> Workload {
    Workload(
        Command::new(workload())
            .args(args)
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn sonde-workload"),
    )
}

/// A unique path under the temp dir (not created).
/// The compatibility lane's script `tests/compat/NAME`.
pub fn compat_script(name: &str) -> String {
    format!("{}/../../tests/compat/{}", env!("CARGO_MANIFEST_DIR"), name)
}

pub fn temp_path(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("sonde-e2e-{}-{n}-{tag}", std::process::id()))
}

/// sonde-symbols' C program with a `struct pt` of its own (tests/fixtures/tprog.c), built by
/// the system's C compiler with `flag` (`-g`, `-g0`) at `path`.
pub fn build_tprog(path: &Path, flag: &str) -> String {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/../sonde-symbols/tests/fixtures/tprog.c");
    let mut cc = std::process::Command::new("cc");
    assert!(cc.args([flag, "-O1", "-o"]).arg(path).arg(source).status().unwrap().success());
    path.display().to_string()
}

/// Why uprobes cannot be tested here, if they cannot.
pub fn skip_reason_uprobes() -> Option<String> {
    skip_reason_tracepoints().or_else(|| {
        let events = tracefs()?.join("uprobe_events");
        (!events.exists()).then(|| format!("no {}", events.display()))
    })
}

// ---------------------------------------------------------------- running sonde

/// What a finished sonde run printed and how it ended.
#[derive(Debug)]
pub struct Output {
    pub args: Vec<String>,
    pub status: ExitStatus,
    /// The exit code; None if killed by a signal.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Output {
    /// Everything about the run, for assertion messages.
    pub fn describe(&self) -> String {
        describe(&self.args, &format!("{}", self.status), self.elapsed, &self.stdout, &self.stderr)
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(self.code, Some(code), "wrong exit code\n{}", self.describe());
        self
    }

    #[track_caller]
    pub fn assert_ok(&self) -> &Self {
        self.assert_code(0)
    }

    /// stdout's non-empty lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().filter(|l| !l.trim().is_empty()).collect()
    }

    /// The value printed for a non-keyed map: `@n: 100` -> "100".
    #[track_caller]
    pub fn scalar(&self, map: &str) -> String {
        scalar(&self.stdout, map)
            .unwrap_or_else(|| panic!("no `{map}: ...` line\n{}", self.describe()))
    }

    /// The integer printed for a non-keyed map.
    #[track_caller]
    pub fn int(&self, map: &str) -> i64 {
        let v = self.scalar(map);
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("`{map}: {v}` is not an integer\n{}", self.describe()))
    }

    /// The value printed for one key of a map: `@[wl_a]: 100` -> "100".
    #[track_caller]
    pub fn keyed(&self, map: &str, key: &str) -> String {
        keyed(&self.stdout, map, key)
            .unwrap_or_else(|| panic!("no `{map}[{key}]: ...` line\n{}", self.describe()))
    }

    /// The buckets printed for a hist/lhist map.
    #[track_caller]
    pub fn hist(&self, map: &str) -> Vec<Bucket> {
        hist(&self.stdout, map).unwrap_or_else(|e| panic!("{e}\n{}", self.describe()))
    }

    /// stdout's non-empty lines parsed as JSON (for `-f json`).
    #[track_caller]
    pub fn json(&self) -> Vec<serde_json::Value> {
        self.lines()
            .iter()
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| {
                    panic!("stdout line is not JSON ({e}): {l}\n{}", self.describe())
                })
            })
            .collect()
    }
}

fn describe(
    args: &[String],
    status: &str,
    elapsed: Duration,
    stdout: &str,
    stderr: &str,
) -> String {
    // Long output: its first and last 4000 bytes.
    const HALF: usize = 4000;
    let cut = |s: &str| -> String {
        if s.len() <= 2 * HALF {
            return s.to_string();
        }
        let mut head = HALF;
        while !s.is_char_boundary(head) {
            head -= 1;
        }
        let mut tail = s.len() - HALF;
        while !s.is_char_boundary(tail) {
            tail += 1;
        }
        format!("{}\n... ({} bytes left out) ...\n{}", &s[..head], tail - head, &s[tail..])
    };
    format!(
        "--- sonde {}\n--- status: {status} after {:.2}s\n--- stdout:\n{}\n--- stderr:\n{}\n---",
        args.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" "),
        elapsed.as_secs_f64(),
        cut(stdout),
        cut(stderr)
    )
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Runs sonde to completion with [`TIMEOUT`].
#[track_caller]
pub fn sonde(args: &[&str]) -> Output {
    Sonde::new(args).run()
}

/// A sonde command line being set up.
pub struct Sonde {
    args: Vec<String>,
    timeout: Duration,
    stdout_delay: Duration,
    envs: Vec<(String, String)>,
}

impl Sonde {
    pub fn new(args: &[&str]) -> Sonde {
        Sonde {
            args: args.iter().map(|s| s.to_string()).collect(),
            timeout: TIMEOUT,
            stdout_delay: Duration::ZERO,
            envs: Vec::new(),
        }
    }

    /// Runs sonde with `name=value` in its environment.
    pub fn env(mut self, name: &str, value: &str) -> Sonde {
        self.envs.push((name.to_string(), value.to_string()));
        self
    }

    pub fn timeout(mut self, t: Duration) -> Sonde {
        self.timeout = t;
        self
    }

    /// Don't read sonde's stdout for this long (the pipe fills and sonde blocks on it).
    pub fn stdout_delay(mut self, d: Duration) -> Sonde {
        self.stdout_delay = d;
        self
    }

    /// Starts sonde in the background.
    pub fn spawn(self) -> Running {
        let bin = sonde_bin();
        let mut child = Command::new(&bin)
            .args(&self.args)
            .envs(self.envs.iter().map(|(n, v)| (n, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
        let out = Arc::new(Stream::default());
        let err = Arc::new(Stream::default());
        let t_out = reader(child.stdout.take().unwrap(), out.clone(), self.stdout_delay);
        let t_err = reader(child.stderr.take().unwrap(), err.clone(), Duration::ZERO);
        Running {
            args: self.args,
            timeout: self.timeout,
            started: Instant::now(),
            child: Some(child),
            out,
            err,
            threads: vec![t_out, t_err],
        }
    }

    /// Runs sonde to completion.
    #[track_caller]
    pub fn run(self) -> Output {
        self.spawn().wait()
    }
}

#[derive(Default)]
struct Stream {
    buf: Mutex<(Vec<u8>, bool)>, // (bytes so far, reached EOF)
    cv: Condvar,
}

fn reader(mut r: impl Read + Send + 'static, s: Arc<Stream>, delay: Duration) -> JoinHandle<()> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            match r.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    s.buf.lock().unwrap().0.extend_from_slice(&chunk[..n]);
                    s.cv.notify_all();
                }
            }
        }
        s.buf.lock().unwrap().1 = true;
        s.cv.notify_all();
    })
}

/// A sonde running in the background. Dropping it kills sonde.
pub struct Running {
    args: Vec<String>,
    timeout: Duration,
    started: Instant,
    child: Option<Child>,
    out: Arc<Stream>,
    err: Arc<Stream>,
    threads: Vec<JoinHandle<()>>,
}

impl Running {
    pub fn pid(&self) -> i32 {
        self.child.as_ref().unwrap().id() as i32
    }

    pub fn stdout_so_far(&self) -> String {
        String::from_utf8_lossy(&self.out.buf.lock().unwrap().0).into_owned()
    }

    pub fn stderr_so_far(&self) -> String {
        String::from_utf8_lossy(&self.err.buf.lock().unwrap().0).into_owned()
    }

    fn describe_now(&self, what: &str) -> String {
        describe(
            &self.args,
            what,
            self.started.elapsed(),
            &self.stdout_so_far(),
            &self.stderr_so_far(),
        )
    }

    fn wait_for(&mut self, stream: &Arc<Stream>, which: &str, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let stream = stream.clone();
        let mut g = stream.buf.lock().unwrap();
        loop {
            if String::from_utf8_lossy(&g.0).contains(needle) {
                return;
            }
            let now = Instant::now();
            if g.1 || now >= deadline {
                let eof = g.1;
                drop(g);
                // Let a dying sonde finish so its exit status shows.
                std::thread::sleep(Duration::from_millis(100));
                let st = match self.child.as_mut().unwrap().try_wait() {
                    Ok(Some(st)) => format!("exited: {st}"),
                    _ => "still running".into(),
                };
                let msg = self.describe_now(&st);
                self.kill();
                panic!(
                    "sonde's {which} never said {needle:?} ({}):\n{msg}",
                    if eof { "it closed it" } else { "timed out" }
                );
            }
            g = stream.cv.wait_timeout(g, deadline - now).unwrap().0;
        }
    }

    /// Waits until stderr contains `needle`; fails the test (killing sonde) if sonde
    /// exits or `timeout` passes first.
    #[track_caller]
    pub fn wait_stderr(&mut self, needle: &str, timeout: Duration) {
        let s = self.err.clone();
        self.wait_for(&s, "stderr", needle, timeout)
    }

    /// Waits until stdout contains `needle`.
    #[track_caller]
    pub fn wait_stdout(&mut self, needle: &str, timeout: Duration) {
        let s = self.out.clone();
        self.wait_for(&s, "stdout", needle, timeout)
    }

    /// Waits for sonde's `Attached N probe(s)` line on stderr.
    #[track_caller]
    pub fn wait_attached(&mut self) {
        self.wait_stderr("Attached", ATTACH_TIMEOUT)
    }

    /// Sends a signal to sonde.
    pub fn signal(&self, sig: i32) {
        let r = unsafe { libc::kill(self.pid(), sig) };
        assert_eq!(r, 0, "kill({}, {sig}): {}", self.pid(), std::io::Error::last_os_error());
    }

    /// Has sonde exited (without reaping it for good: wait() still works)?
    pub fn exited(&mut self) -> bool {
        matches!(self.child.as_mut().unwrap().try_wait(), Ok(Some(_)))
    }

    fn kill(&mut self) {
        if let Some(c) = self.child.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Waits for sonde to exit (killing it and failing the test after the timeout)
    /// and for its output to be read to the end.
    #[track_caller]
    pub fn wait(mut self) -> Output {
        let deadline = self.started + self.timeout;
        let status = loop {
            if let Some(st) = self.child.as_mut().unwrap().try_wait().expect("wait for sonde") {
                break st;
            }
            if Instant::now() >= deadline {
                let msg = self.describe_now("killed: timed out");
                self.kill();
                panic!("sonde did not exit within {:?}:\n{msg}", self.timeout);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let elapsed = self.started.elapsed();
        // Children of sonde (a -c command) may hold the pipes open: give them a moment.
        let pipe_deadline = Instant::now() + Duration::from_secs(10);
        for t in self.threads.drain(..) {
            while !t.is_finished() && Instant::now() < pipe_deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
        self.child = None;
        Output {
            args: std::mem::take(&mut self.args),
            code: status.code(),
            status,
            stdout: String::from_utf8_lossy(&self.out.buf.lock().unwrap().0).into_owned(),
            stderr: String::from_utf8_lossy(&self.err.buf.lock().unwrap().0).into_owned(),
            elapsed,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

// ---------------------------------------------------------------- text output parsing

/// The value of a non-keyed map line `@n: 100` -> "100" (the last such line).
pub fn scalar(stdout: &str, map: &str) -> Option<String> {
    let prefix = format!("{map}: ");
    stdout.lines().rev().find_map(|l| l.strip_prefix(&prefix).map(|v| v.trim_end().to_string()))
}

/// The value of a keyed map line `@[wl_a]: 100` / `@m[wl_a]: 100` (the last such line).
pub fn keyed(stdout: &str, map: &str, key: &str) -> Option<String> {
    scalar(stdout, &format!("{map}[{key}]"))
}

/// One histogram line: `[512, 1K)    5 |@@@@@   |`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The bucket label as printed: `[512, 1K)`, `[1000, 2000)`, `[10000, ...)`.
    pub label: String,
    pub count: u64,
    /// The bar between the `|`s, as printed.
    pub bar: String,
}

/// Parses the histogram printed for `map`: the `@h:` line, then bucket lines up to
/// the first blank line.
pub fn hist(stdout: &str, map: &str) -> Result<Vec<Bucket>, String> {
    let header = format!("{map}:");
    let mut lines = stdout.lines();
    lines.by_ref().find(|l| l.trim_end() == header).ok_or_else(|| format!("no `{header}` line"))?;
    let mut out = Vec::new();
    for l in lines {
        if l.trim().is_empty() {
            break;
        }
        out.push(parse_bucket(l).ok_or_else(|| format!("not a histogram line: {l:?}"))?);
    }
    if out.is_empty() {
        return Err(format!("`{header}` has no buckets"));
    }
    Ok(out)
}

fn parse_bucket(l: &str) -> Option<Bucket> {
    let l = l.trim_end();
    if !(l.starts_with('[') || l.starts_with('(')) {
        return None;
    }
    let close = l.find([')', ']'])?;
    let label = l[..=close].to_string();
    let rest = l[close + 1..].trim_start();
    let (count, rest) = rest.split_once(char::is_whitespace)?;
    let count = count.parse().ok()?;
    let rest = rest.trim_start();
    let bar = rest.strip_prefix('|')?.strip_suffix('|')?.to_string();
    Some(Bucket { label, count, bar })
}

/// (label, count) pairs, for comparing with an expected list.
pub fn counts(b: &[Bucket]) -> Vec<(String, u64)> {
    b.iter().map(|b| (b.label.clone(), b.count)).collect()
}

/// Checks the bars: all of one width, empty for 0, longest for the largest count,
/// and never longer for a smaller count.
#[track_caller]
pub fn check_bars(b: &[Bucket]) {
    let width = b[0].bar.chars().count();
    let max = b.iter().map(|b| b.count).max().unwrap();
    let len = |b: &Bucket| b.bar.chars().filter(|&c| c == '@').count();
    for x in b {
        assert_eq!(x.bar.chars().count(), width, "bars of different widths: {b:#?}");
        assert!(x.bar.chars().all(|c| c == '@' || c == ' '), "odd bar: {x:?}");
        if x.count == 0 {
            assert_eq!(len(x), 0, "bar for a 0 count: {x:?}");
        } else {
            assert!(len(x) > 0, "no bar for a count: {x:?}");
        }
        if x.count == max {
            assert_eq!(len(x), width, "the largest count should fill the bar: {x:?}");
        }
        for y in b {
            if x.count < y.count {
                assert!(len(x) <= len(y), "bars out of proportion: {x:?} vs {y:?}");
            }
        }
    }
}

// ---------------------------------------------------------------- kernel BPF objects

pub const BPF_PROG_GET_NEXT_ID: libc::c_long = 11;
pub const BPF_MAP_GET_NEXT_ID: libc::c_long = 12;
pub const BPF_LINK_GET_NEXT_ID: libc::c_long = 31;

/// The ids of all BPF objects of one kind in the kernel (`cmd` is one of the
/// `BPF_*_GET_NEXT_ID` commands).
pub fn bpf_ids(cmd: libc::c_long) -> BTreeSet<u32> {
    let mut ids = BTreeSet::new();
    let mut start = 0u32;
    loop {
        // union bpf_attr { struct { __u32 start_id; __u32 next_id; __u32 open_flags; } }
        let mut attr = [start, 0u32, 0, 0];
        let r = unsafe {
            libc::syscall(libc::SYS_bpf, cmd, attr.as_mut_ptr(), std::mem::size_of_val(&attr))
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::ENOENT) => return ids,
                // Old kernels lack BPF_LINK_GET_NEXT_ID.
                Some(libc::EINVAL) if cmd == BPF_LINK_GET_NEXT_ID => return ids,
                _ => panic!("bpf(cmd {cmd}, start {start}): {e}"),
            }
        }
        start = attr[1];
        ids.insert(start);
    }
}

/// The names of every BPF map in the kernel now (the first 15 bytes of each), to find a test's
/// own map among what other processes load meanwhile.
pub fn bpf_map_names() -> Vec<String> {
    const BPF_MAP_GET_FD_BY_ID: libc::c_long = 14;
    const BPF_OBJ_GET_INFO_BY_FD: libc::c_long = 15;
    let mut names = Vec::new();
    for id in bpf_ids(BPF_MAP_GET_NEXT_ID) {
        // union bpf_attr { struct { __u32 map_id; __u32 next_id; __u32 open_flags; } }
        let mut attr = [id, 0u32, 0];
        let fd = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                BPF_MAP_GET_FD_BY_ID,
                attr.as_mut_ptr(),
                std::mem::size_of_val(&attr),
            )
        };
        if fd < 0 {
            continue; // gone meanwhile
        }
        // struct bpf_map_info: the name is the 16 bytes at offset 24.
        let mut info = [0u8; 96];
        let mut attr = [0u64; 2];
        attr[0] = fd as u64 | ((info.len() as u64) << 32);
        attr[1] = info.as_mut_ptr() as u64;
        let r = unsafe {
            libc::syscall(
                libc::SYS_bpf,
                BPF_OBJ_GET_INFO_BY_FD,
                attr.as_mut_ptr(),
                std::mem::size_of_val(&attr),
            )
        };
        unsafe { libc::close(fd as i32) };
        if r == 0 {
            let name = &info[24..40];
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            names.push(String::from_utf8_lossy(&name[..end]).into_owned());
        }
    }
    names
}

/// Waits (up to 5 s: the kernel frees maps after an RCU grace period) until no BPF map is named
/// `name` (a test's own user map, `@name`): what held it, sonde's programs and links, is gone.
#[track_caller]
pub fn no_map_named(name: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while bpf_map_names().iter().any(|n| n == name) {
        assert!(Instant::now() < deadline, "a BPF map named {name} is still in the kernel");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// All BPF programs, maps and links in the kernel now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpfObjects {
    pub progs: BTreeSet<u32>,
    pub maps: BTreeSet<u32>,
    pub links: BTreeSet<u32>,
}

impl BpfObjects {
    pub fn now() -> BpfObjects {
        BpfObjects {
            progs: bpf_ids(BPF_PROG_GET_NEXT_ID),
            maps: bpf_ids(BPF_MAP_GET_NEXT_ID),
            links: bpf_ids(BPF_LINK_GET_NEXT_ID),
        }
    }

    /// The objects here that `before` did not have.
    pub fn new_since(&self, before: &BpfObjects) -> BpfObjects {
        BpfObjects {
            progs: self.progs.difference(&before.progs).copied().collect(),
            maps: self.maps.difference(&before.maps).copied().collect(),
            links: self.links.difference(&before.links).copied().collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.progs.is_empty() && self.maps.is_empty() && self.links.is_empty()
    }
}

/// Waits (up to 5s: the kernel frees BPF objects after an RCU grace period) until no
/// BPF object that `before` lacked remains; returns the leftovers otherwise.
pub fn leftover_bpf_objects(before: &BpfObjects) -> Option<BpfObjects> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let extra = BpfObjects::now().new_since(before);
        if extra.is_empty() {
            return None;
        }
        if Instant::now() >= deadline {
            return Some(extra);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Fails the test if BPF objects made since `before` are still there after `what` (see
/// [`leftover_bpf_objects`]), showing sonde's run `o`.
#[track_caller]
pub fn assert_no_bpf_objects_left(what: &str, before: &BpfObjects, o: &Output) {
    if let Some(left) = leftover_bpf_objects(before) {
        panic!("after {what}, BPF objects remain: {left:?}\n{}", o.describe());
    }
}

/// `sonde -c 'sonde-workload WORKLOAD...' PROGRAM`, which must succeed.
#[track_caller]
pub fn traced_ok(workload: &[&str], program: &str) -> Output {
    let o = sonde(&["-c", &wl(workload), program]);
    o.assert_ok();
    o
}

/// Workloads that wait (`waitfile`) until [`Gated::go`], so a tracer can attach first. Each is
/// `sonde-workload comm NAME waitfile GO REST...`.
pub struct Gated {
    go: PathBuf,
    pub procs: Vec<Workload>,
}

impl Gated {
    pub fn spawn(each: &[(&str, &[&str])]) -> Gated {
        let go = temp_path("go");
        let gos = go.to_str().expect("utf-8 temp path").to_string();
        let procs = each
            .iter()
            .map(|(comm, rest)| {
                let mut args = vec!["comm", comm, "waitfile", &gos];
                args.extend_from_slice(rest);
                spawn_workload(&args)
            })
            .collect();
        Gated { go, procs }
    }

    pub fn pid(&self, i: usize) -> u32 {
        self.procs[i].pid()
    }

    /// Lets every workload run.
    pub fn go(&self) {
        std::fs::write(&self.go, b"").expect("write the go file");
    }

    /// Waits for every workload to exit successfully.
    #[track_caller]
    pub fn wait_all(&mut self) {
        for p in &mut self.procs {
            assert!(p.wait(Duration::from_secs(30)).success());
        }
    }
}

impl Drop for Gated {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.go);
    }
}

/// `setpriv` runs sonde as `nobody` with the given extra capabilities (`",+bpf,+perfmon"`; none
/// when empty); None (said as skipped) where that cannot be done.
pub fn as_nobody(caps: &str, sonde_args: &[&str]) -> Option<Output> {
    if unsafe { libc::geteuid() } != 0
        || std::process::Command::new("setpriv").arg("--version").output().is_err()
    {
        println!("skipped: needs root and setpriv to run sonde as another user");
        return None;
    }
    let mut args = vec!["--reuid=65534", "--regid=65534", "--clear-groups"];
    let inh = format!("--inh-caps=-all{caps}");
    let amb = format!("--ambient-caps=-all{caps}");
    args.extend([inh.as_str(), amb.as_str(), SONDE]);
    args.extend_from_slice(sonde_args);
    let t = Instant::now();
    let out = std::process::Command::new("setpriv").args(&args).output().unwrap();
    Some(Output {
        args: args.iter().map(|s| s.to_string()).collect(),
        status: out.status,
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: t.elapsed(),
    })
}
