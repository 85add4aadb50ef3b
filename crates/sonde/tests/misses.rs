//! End-to-end: runs the kernel skips are reported, per probe, in text and JSON (issue 13).
//!
//! The kernel does not run a kprobe/tracepoint program that fires while another BPF program
//! runs on the same CPU; it counts it in `recursion_misses` (5.12+). A timer-interrupt probe
//! beside a probe on every syscall of a syscall-bound loop is skipped whenever the tick lands
//! inside the syscall probe: about a hundred times a second on a 250 Hz host. This file is its
//! own test binary so the load runs alone.

mod common;

use std::time::Duration;

use common::{wl, Output, Sonde};

const TIMER: &str = "tracepoint:irq_vectors:local_timer_entry";

fn run(format: &[&str], prog: &str) -> Output {
    let cmd = wl(&["getpid", "3000000"]);
    let mut args = format.to_vec();
    args.extend(["-c", &cmd, prog]);
    Sonde::new(&args).timeout(Duration::from_secs(120)).run()
}

fn overlapping() -> String {
    format!("tracepoint:raw_syscalls:sys_enter {{ @s = count(); }} {TIMER} {{ @t = count(); }}")
}

/// Why the overlapping probes cannot run here, if they cannot.
fn overlap_unavailable() -> Option<String> {
    common::skip_reason_tracepoints().or_else(|| {
        let timer = common::tracefs()?.join("events/irq_vectors/local_timer_entry");
        (!timer.exists()).then(|| format!("no {TIMER}"))
    })
}

#[test]
fn skipped_runs_are_reported_per_probe_in_text() {
    if let Some(reason) = overlap_unavailable() {
        println!("skipped: {reason}");
        return;
    }
    let o = run(&[], &overlapping());
    o.assert_ok();
    let prefix = format!("sonde: warning: {TIMER}: ");
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(lines.len(), 1, "one line, for the timer probe only\n{}", o.describe());
    let runs: u64 = lines[0]
        .strip_prefix(&prefix)
        .and_then(|r| {
            r.strip_suffix(" runs skipped (it fired while another BPF program ran on its CPU)")
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected line: {}", lines[0]));
    assert!(runs > 0);
}

#[test]
fn skipped_runs_are_a_json_record() {
    if let Some(reason) = overlap_unavailable() {
        println!("skipped: {reason}");
        return;
    }
    let o = run(&["-f", "json"], &overlapping());
    o.assert_ok();
    let schema = sonde_schema::Schema::records().unwrap();
    for line in o.lines() {
        schema.check_line(line).unwrap_or_else(|e| panic!("{e}\n{}", o.describe()));
    }
    let records: Vec<serde_json::Value> =
        o.json().into_iter().filter(|r| r["type"] == "missed_runs").collect();
    assert_eq!(records.len(), 1, "{}", o.describe());
    assert_eq!(records[0]["data"]["probe"], TIMER, "{}", o.describe());
    assert!(records[0]["data"]["runs"].as_u64().is_some_and(|n| n > 0), "{}", o.describe());
}

#[test]
fn a_probe_alone_misses_nothing_and_says_nothing() {
    require_tracepoints!();
    // The counter is read (and is 0): no line, and the run's own output is untouched.
    let o = run(&["-d"], "tracepoint:syscalls:sys_enter_getpid { @s = count(); }");
    o.assert_ok();
    assert!(!o.stderr.contains("skipped"), "{}", o.describe());
    assert!(o.int("@s") >= 3_000_000, "{}", o.describe());
}

/// An `interval:` timer's program skipped the same way is counted nowhere by the kernel: sonde
/// counts the runs in the program and sets them against the periods elapsed. The timer is on
/// CPU 0; a syscall loop pinned there keeps a BPF program running for much of that CPU's time.
#[test]
fn skipped_interval_runs_are_counted_against_the_clock() {
    if let Some(reason) = common::skip_reason_tracepoints() {
        println!("skipped: {reason}");
        return;
    }
    if std::process::Command::new("taskset").arg("-V").output().is_err() {
        println!("skipped: taskset (util-linux) is not installed");
        return;
    }
    let cmd = format!("taskset -c 0 {}", wl(&["getpid", "2000000"]));
    let prog = "tracepoint:raw_syscalls:sys_enter { @s = count(); } interval:5ms { @t = count(); }";
    let started = std::time::Instant::now();
    let o = Sonde::new(&["-c", &cmd, prog]).timeout(Duration::from_secs(120)).run();
    let wall = started.elapsed();
    o.assert_ok();
    let line =
        o.stderr.lines().find(|l| l.starts_with("sonde: warning: interval:5ms: ")).unwrap_or_else(
            || panic!("no skipped runs reported for the interval\n{}", o.describe()),
        );
    let skipped: u64 = line
        .trim_start_matches("sonde: warning: interval:5ms: ")
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected line: {line}"));
    let ran = o.int("@t") as u64;
    assert!(skipped > 0, "{}", o.describe());
    // Runs and skips together never exceed the periods of the whole run's wall time.
    let periods = (wall.as_millis() / 5) as u64;
    assert!(ran + skipped <= periods, "{ran} + {skipped} > {periods}\n{}", o.describe());
}
