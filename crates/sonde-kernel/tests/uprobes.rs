//! uprobes on the real kernel: exact counts on libc's getpid, return probes, `-p PID` filtering,
//! the tracefs fallback, and cleaning up after a SIGKILLed run.

mod common;

use common::elf::{libc_path, symbol_file_offset};
use common::{gettid, read_counter};
use sonde_kernel::attach::pmu::ProbeVia;
use sonde_kernel::attach::uprobe::{attach_uprobe, attach_uprobe_with, UprobeSpec};
use sonde_kernel::error::KernelError;
use sonde_kernel::object::prog::ProgType;
use sonde_kernel::tracefs::leftovers::clean_dead_runs;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn libc_sym(name: &str) -> (PathBuf, u64) {
    let path = libc_path();
    let off = symbol_file_offset(&path, name)
        .unwrap_or_else(|| panic!("no {name} in {}", path.display()));
    (path, off)
}

fn libc_getpid(n: u64) {
    for _ in 0..n {
        unsafe { libc::getpid() };
    }
}

fn uprobe_events() -> String {
    std::fs::read_to_string(common::tracefs().root().join("uprobe_events")).unwrap()
}

#[test]
fn uprobe_counts_every_libc_getpid_of_this_thread_exactly() {
    if common::skip_unless_root() {
        return;
    }
    let (path, offset) = libc_sym("getpid");
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::Kprobe, &map, gettid());
    let spec = UprobeSpec { path: &path, offset, retprobe: false, pid: None };
    let link = attach_uprobe(&prog, spec).unwrap_or_else(|e| panic!("{e}"));
    // The PMU made it: nothing was registered in tracefs.
    assert_eq!(link.tracefs_event(), None);
    libc_getpid(1000);
    drop(link);
    libc_getpid(10); // detached: not counted
    assert_eq!(read_counter(&map), 1000);
}

#[test]
fn uretprobe_counts_every_return_exactly() {
    if common::skip_unless_root() {
        return;
    }
    let (path, offset) = libc_sym("getpid");
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::Kprobe, &map, gettid());
    let spec = UprobeSpec { path: &path, offset, retprobe: true, pid: None };
    let link = attach_uprobe(&prog, spec).unwrap_or_else(|e| panic!("{e}"));
    libc_getpid(700);
    drop(link);
    libc_getpid(10);
    assert_eq!(read_counter(&map), 700);
}

/// `-p PID`: a uprobe opened for this process counts its calls and none of another process's,
/// although the other process calls the same function in the same file while the probe is on.
/// The program itself does no filtering; a second, unfiltered uprobe proves the child's calls hit.
#[test]
fn a_uprobe_for_one_process_ignores_other_processes() {
    if common::skip_unless_root() {
        return;
    }
    // getppid: nothing else in this test binary calls it.
    let (path, offset) = libc_sym("getppid");
    let ours = common::counter_map();
    let everyone = common::counter_map();
    let p_ours = common::counter(ProgType::Kprobe, &ours);
    let p_everyone = common::counter(ProgType::Kprobe, &everyone);

    // A child that calls getppid 50 times once we say go. It only makes raw syscalls and getppid.
    let (mut go_r, mut go_w) = std::io::pipe().unwrap();
    let child = unsafe { libc::fork() };
    assert!(child >= 0);
    if child == 0 {
        let mut b = [0u8; 1];
        let _ = std::io::Read::read(&mut go_r, &mut b);
        for _ in 0..50 {
            unsafe { libc::getppid() };
        }
        unsafe { libc::_exit(0) };
    }
    drop(go_r);

    let spec = |pid| UprobeSpec { path: &path, offset, retprobe: false, pid };
    let l1 = attach_uprobe(&p_ours, spec(Some(std::process::id()))).unwrap();
    let l2 = attach_uprobe(&p_everyone, spec(None)).unwrap();
    go_w.write_all(b"x").unwrap();
    for _ in 0..100 {
        unsafe { libc::getppid() };
    }
    let mut status = 0;
    assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
    assert!(libc::WIFEXITED(status));
    drop((l1, l2));
    assert_eq!(read_counter(&ours), 100, "only this process's calls");
    // Any other process on the machine may add to this one.
    assert!(read_counter(&everyone) >= 150, "{}", read_counter(&everyone));
}

#[test]
fn tracefs_fallback_counts_exactly_and_removes_its_event_on_drop() {
    if common::skip_unless_root() {
        return;
    }
    let (path, offset) = libc_sym("getpid");
    // Before attaching: std::process::id() is itself a getpid.
    let prefix = format!("sonde_{}_", std::process::id());
    for retprobe in [false, true] {
        let map = common::counter_map();
        let prog = common::thread_counter(ProgType::Kprobe, &map, gettid());
        let spec = UprobeSpec { path: &path, offset, retprobe, pid: None };
        let link = attach_uprobe_with(&prog, spec, ProbeVia::Tracefs).unwrap();
        let name = link.tracefs_event().expect("made through tracefs").to_string();
        assert!(name.starts_with(&prefix), "{name}");
        assert!(uprobe_events().contains(&format!("sonde/{name} ")));
        libc_getpid(300);
        drop(link);
        assert_eq!(read_counter(&map), 300, "retprobe {retprobe}");
        assert!(
            !uprobe_events().contains(&format!("sonde/{name} ")),
            "{name} left behind:\n{}",
            uprobe_events()
        );
    }
}

/// Not a test by itself: the process `a_sigkilled_runs_events_are_removed_by_the_next_run` starts
/// and kills. It makes a tracefs uprobe, says its name, and waits to be killed.
#[test]
fn helper_holds_a_tracefs_uprobe_until_killed() {
    if std::env::var_os("SONDE_TEST_HELPER").is_none() {
        return;
    }
    let (path, offset) = libc_sym("getpid");
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    let spec = UprobeSpec { path: &path, offset, retprobe: false, pid: None };
    let link = attach_uprobe_with(&prog, spec, ProbeVia::Tracefs).unwrap();
    println!("EVENT {}", link.tracefs_event().unwrap());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_secs(60));
    drop(link);
}

#[test]
fn a_sigkilled_runs_events_are_removed_by_the_next_run() {
    if common::skip_unless_root() {
        return;
    }
    let tracefs = common::tracefs();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "helper_holds_a_tracefs_uprobe_until_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SONDE_TEST_HELPER", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let name = std::io::BufReader::new(stdout)
        .lines()
        .map(Result::unwrap)
        .find_map(|l| l.split_once("EVENT ").map(|(_, n)| n.trim().to_string()))
        .expect("the helper reports its event");
    assert!(name.starts_with(&format!("sonde_{}_", child.id())), "{name}");
    child.kill().unwrap(); // SIGKILL: no destructor runs
    child.wait().unwrap();
    let listed = |n: &str| uprobe_events().contains(&format!("sonde/{n} "));
    assert!(listed(&name), "the killed run left its event behind");

    // A live run's event must survive the clean-up.
    let (path, offset) = libc_sym("getpid");
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    let spec = UprobeSpec { path: &path, offset, retprobe: false, pid: None };
    let live = attach_uprobe_with(&prog, spec, ProbeVia::Tracefs).unwrap();
    let live_name = live.tracefs_event().unwrap().to_string();

    // The killed process's perf event is released asynchronously: allow it a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    while listed(&name) {
        clean_dead_runs(tracefs).unwrap();
        assert!(Instant::now() < deadline, "{name} was not removed");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(listed(&live_name), "a live run's event was removed");
    drop(live);
    assert!(!listed(&live_name));
}

#[test]
fn a_missing_file_is_named_in_the_error() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    for via in [ProbeVia::Pmu, ProbeVia::Tracefs] {
        let spec = UprobeSpec {
            path: Path::new("/nonexistent/sonde-test"),
            offset: 0x1000,
            retprobe: false,
            pid: None,
        };
        let err = attach_uprobe_with(&prog, spec, via).unwrap_err();
        assert!(matches!(err, KernelError::UprobeTarget { .. }), "{via:?}: {err:?}");
        assert_eq!(
            err.to_string(),
            "cannot probe `/nonexistent/sonde-test`: no such file (ENOENT)",
            "{via:?}"
        );
    }
}

#[test]
fn an_offset_past_the_end_of_the_file_is_refused_clearly() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    let path = libc_path();
    let spec = UprobeSpec { path: &path, offset: 1 << 40, retprobe: false, pid: None };
    let err = attach_uprobe(&prog, spec).unwrap_err();
    assert!(matches!(err, KernelError::UprobeTarget { .. }), "{err:?}");
    assert!(err.to_string().starts_with("cannot put a uprobe at"), "{err}");
}
