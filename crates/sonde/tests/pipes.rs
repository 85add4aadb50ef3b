//! End-to-end: output that fails says so (issue 22 §2), in every face. A reader that goes away
//! (`sonde ... | head -1`) ends the run at once, quietly, status 0, with everything detached; a
//! full disk or `> /dev/full` is one sentence and status 1; flame graphs and scripts are written
//! whole or not at all (docs/exit-status.md).

mod common;

use common::{spawn_workload, wl, workload, SONDE};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long sonde may take to exit once its reader has gone (a debug build on a busy machine).
const PROMPT: Duration = Duration::from_secs(3);

/// How a `sonde ... | head -1` ended.
struct HeadRun {
    line: String,
    code: Option<i32>,
    stderr: String,
    /// From the reader's close to sonde's exit.
    after_close: Duration,
}

impl HeadRun {
    fn describe(&self) -> String {
        format!(
            "line {:?}, exit {:?} {:?} after the close\n--- stderr\n{}",
            self.line, self.code, self.after_close, self.stderr
        )
    }
}

/// Runs sonde with its stdout read as `head -1` reads it: one line, then the pipe is closed.
fn head_1(args: &[&str]) -> HeadRun {
    let mut child = Command::new(SONDE)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        let mut line = String::new();
        let _ = r.read_line(&mut line);
        // Dropping the reader closes the pipe, as head does once it has its line.
        drop(r);
        let _ = tx.send(line);
    });
    let line = match rx.recv_timeout(common::TIMEOUT) {
        Ok(l) => l,
        Err(_) => {
            let _ = child.kill();
            panic!("sonde {args:?} printed no line");
        }
    };
    let closed = Instant::now();
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if closed.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sonde {args:?} did not exit after its reader went away");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let after_close = closed.elapsed();
    HeadRun { line, code, stderr: stderr.join().unwrap(), after_close }
}

/// Checks a `| head -1` run: its line, status 0 at once, and nothing said but `allowed` lines.
#[track_caller]
fn ended_quietly(r: &HeadRun, line_has: &str, allowed: &[&str]) {
    assert!(r.line.contains(line_has), "{}", r.describe());
    assert_eq!(r.code, Some(0), "{}", r.describe());
    assert!(r.after_close < PROMPT, "{}", r.describe());
    for l in r.stderr.lines() {
        assert!(
            allowed.iter().any(|a| l.starts_with(a)),
            "unexpected line {l:?}\n{}",
            r.describe()
        );
    }
}

/// sonde's tracefs instance of the run with `pid` (`sonde probe`), if it is still there.
fn instance_left(pid_hint: &str) -> Vec<String> {
    let Some(t) = common::tracefs() else { return Vec::new() };
    std::fs::read_dir(t.join("instances"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(pid_hint))
                .collect()
        })
        .unwrap_or_default()
}

// ---------------------------------------------------------------- closed pipes

#[test]
fn the_language_stops_when_its_reader_goes_away() {
    require_tracepoints!();
    // A printf on every call of a command that keeps calling: sonde writes all the time.
    let busy = wl(&["comm", "wl_pipe", "getppid", "100000000"]);
    let program = r#"tracepoint:syscalls:sys_enter_getppid /comm == "wl_pipe"/ { @pipe_busy = count(); printf("call %d\n", pid); }"#;
    let r = head_1(&["-c", &busy, program]);
    ended_quietly(&r, "call ", &["Attached"]);
    common::no_map_named("pipe_busy");
    // One line, then nothing more to write: the closed pipe is noticed all the same.
    let program = r#"BEGIN { printf("once\n"); } interval:s:30 { @pipe_idle = count(); exit(); }"#;
    let r = head_1(&[program]);
    ended_quietly(&r, "once", &["Attached"]);
    common::no_map_named("pipe_idle");
}

#[test]
fn sonde_trace_stops_when_its_reader_goes_away() {
    if common::trace::skip() {
        return;
    }
    let busy = spawn_workload(&["comm", "wl_tpipe", "getppid", "100000000"]);
    let before = common::BpfObjects::now();
    // `-o -`: the lines on stdout (strace's place for them, stderr, is the default).
    let r = head_1(&["trace", "-o", "-", "--all", "-e", "getppid"]);
    drop(busy);
    ended_quietly(&r, "getppid()", &[]);
    let left = common::leftover_bpf_objects(&before);
    // Other processes may load programs meanwhile: only what stays is sonde's.
    if let Some(left) = left {
        std::thread::sleep(Duration::from_secs(2));
        let still = common::BpfObjects::now();
        let kept: Vec<_> = left.progs.iter().filter(|p| still.progs.contains(p)).collect();
        assert!(kept.is_empty(), "programs left behind: {kept:?}\n{}", r.describe());
    }
}

#[test]
fn sonde_probe_stops_when_its_reader_goes_away() {
    if common::trace::skip() {
        return;
    }
    let busy = spawn_workload(&["comm", "wl_ppipe", "getppid", "100000000"]);
    let r = head_1(&["probe", "e syscalls/sys_enter_getppid f:common_pid>0"]);
    drop(busy);
    ended_quietly(&r, "getppid", &["Tracing 1 probe"]);
    // The instance goes with sonde: no `sonde-PID` of a dead run.
    for name in instance_left("sonde-") {
        let pid: u32 = name[6..].split('-').next().unwrap_or("").parse().unwrap_or(0);
        assert!(
            Path::new(&format!("/proc/{pid}")).exists(),
            "{name} left behind\n{}",
            r.describe()
        );
    }
}

// ---------------------------------------------------------------- a full disk

/// A run with stdout going to `/dev/full`.
fn to_dev_full(args: &[&str]) -> (Option<i32>, String, Duration) {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let t = Instant::now();
    let out = Command::new(SONDE).args(args).stdin(Stdio::null()).stdout(full).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), t.elapsed())
}

#[test]
fn stdout_to_dev_full_is_one_sentence_and_status_1() {
    require_tracepoints!();
    let sentence = "sonde: cannot write the output: No space left on device";
    let calls = wl(&["getppid", "1000000"]);
    let program = "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { printf(\"%d\\n\", pid); }";
    let w = workload().to_str().unwrap().to_string();
    let runs: [Vec<&str>; 3] = [
        vec!["-c", &calls, program],
        vec!["trace", "-o", "-", "-e", "getppid", "--", &w, "getppid", "1000000"],
        vec!["probe", "-c", &calls, "e syscalls/sys_enter_getppid"],
    ];
    for args in runs {
        let (code, stderr, took) = to_dev_full(&args);
        assert_eq!(code, Some(1), "{args:?}\n{stderr}");
        assert_eq!(stderr.matches("sonde: ").count(), 1, "one sentence: {args:?}\n{stderr}");
        assert!(stderr.lines().any(|l| l == sentence), "{args:?}\n{stderr}");
        // It stopped on the first failed write, not at the end of a million calls.
        assert!(took < Duration::from_secs(20), "{args:?} took {took:?}");
    }
}

/// A 64 KiB tmpfs, unmounted and removed on drop.
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(tag: &str) -> Option<SmallDisk> {
        let dir = common::temp_path(tag);
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
            println!("skipped: cannot mount a tmpfs");
            return None;
        }
        Some(SmallDisk(dir))
    }

    /// Fills what is left, so the next write of a page fails.
    fn fill(&self) {
        let mut f = std::fs::File::create(self.0.join("filler")).unwrap();
        let _ = std::io::Write::write_all(&mut f, &vec![0u8; 1 << 20]);
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn sonde_trace_to_a_full_disk_says_so() {
    if common::trace::skip() {
        return;
    }
    let Some(disk) = SmallDisk::mount("full-trace") else { return };
    let out = disk.0.join("t.out");
    let w = workload().to_str().unwrap().to_string();
    let o = common::sonde(&[
        "trace",
        "-o",
        out.to_str().unwrap(),
        "-e",
        "getppid",
        "--",
        &w,
        "getppid",
        "5000",
    ]);
    o.assert_code(1);
    let want = format!("sonde: cannot write {}: No space left on device", out.display());
    assert_eq!(o.stderr.trim_end(), want, "{}", o.describe());
}

#[test]
fn a_flame_graph_is_written_whole_or_not_at_all() {
    require_tracepoints!();
    let Some(disk) = SmallDisk::mount("full-svg") else { return };
    let svg = disk.0.join("f.svg");
    std::fs::write(&svg, "old").unwrap();
    disk.fill();
    let calls = wl(&["getppid", "2000"]);
    let program =
        "tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @[ustack, nsecs] = count(); }";
    let o = common::sonde(&["-o", svg.to_str().unwrap(), "-c", &calls, program]);
    o.assert_code(1);
    let want = format!("sonde: cannot write {}: No space left on device", svg.display());
    assert!(o.stderr.lines().any(|l| l == want), "{}", o.describe());
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "old", "the old graph is kept whole");
    assert_eq!(disk.names(), ["f.svg", "filler"], "no temporary file is left");
}

#[test]
fn a_probe_script_is_written_whole_or_not_at_all() {
    if common::trace::skip() {
        return;
    }
    let Some(disk) = SmallDisk::mount("full-script") else { return };
    let script = disk.0.join("p.sh");
    std::fs::write(&script, "old").unwrap();
    disk.fill();
    let o =
        common::sonde(&["probe", "-o", script.to_str().unwrap(), "e syscalls/sys_enter_getppid"]);
    o.assert_code(1);
    let want = format!("sonde: cannot write {}: No space left on device", script.display());
    assert_eq!(o.stderr.trim_end(), want, "{}", o.describe());
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "old");
    assert_eq!(disk.names(), ["filler", "p.sh"], "no temporary file is left");
    // With room, the whole script replaces the old one.
    std::fs::remove_file(disk.0.join("filler")).unwrap();
    let o =
        common::sonde(&["probe", "-o", script.to_str().unwrap(), "e syscalls/sys_enter_getppid"]);
    o.assert_ok();
    assert!(std::fs::read_to_string(&script).unwrap().starts_with("#!/bin/sh\n"));
}
