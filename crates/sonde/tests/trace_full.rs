//! End-to-end: `sonde trace -c` whose tables fill (`--summary-rows`) counts every call it could
//! not put in a row, says so in calls, and fails the run unless `--keep-going`.

mod common;

use common::trace::skip;
use common::{sonde, workload, Output};

/// The workload's `GETPPIDS` getppid calls, then `FORKS` children that make one prctl each: each
/// child's is a (thread, syscall) row of its own, in tables of `ROWS`.
const FORKS: u64 = 6;
const ROWS: u64 = 2;
const GETPPIDS: u64 = 3;
/// More syscalls than have tracepoints of their own: the hand-built summary (`fast`), where the
/// workload's first call, on its one CPU, makes that CPU's rows its own (no table at all).
const MANY: &str = "prctl,getppid,gettid,vhangup,acct,swapon,swapoff,syncfs,pivot_root";
/// Each on its tracepoints: the compiled summary, where the parent's getppid takes a row.
const FEW: &str = "prctl,getppid";

fn run(set: &str, opts: &[&str]) -> Output {
    let w = workload().to_str().unwrap().to_string();
    let rows = ROWS.to_string();
    let mut args = vec!["trace", "-o", "-", "-c", "-e", set, "--summary-rows", &rows];
    args.extend_from_slice(opts);
    let (getppids, mut wl) = (GETPPIDS.to_string(), vec!["cpu", "0", "getppid"]);
    wl.push(&getppids);
    for _ in 0..FORKS {
        wl.extend(["fork", "wl_kid"]);
    }
    args.push("--");
    args.push(&w);
    args.extend(wl);
    sonde(&args)
}

/// Calls in the summary's rows, and the `map_full` records' calls not counted.
fn counted(out: &Output) -> (u64, u64) {
    let records: Vec<serde_json::Value> =
        out.lines().iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let calls = records
        .iter()
        .filter(|r| r["type"] == "trace_summary" && r["data"]["tid"].is_null())
        .map(|r| r["data"]["calls"].as_u64().unwrap())
        .sum();
    let full: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["type"] == "map_full").map(|r| &r["data"]).collect();
    let dropped = full
        .iter()
        .filter(|d| d["map"] == "calls")
        .inspect(|d| assert_eq!(d["max_entries"].as_u64(), Some(ROWS), "{}", out.describe()))
        .map(|d| d["dropped"].as_u64().unwrap())
        .sum();
    (calls, dropped)
}

#[test]
fn calls_a_full_summary_table_refused_are_counted_and_fail_the_run() {
    if skip() {
        return;
    }
    // (the syscall set, extra flags, calls not counted)
    let cases: [(&str, &[&str], u64); 3] = [
        (MANY, &[], FORKS - ROWS),
        (FEW, &[], FORKS + 1 - ROWS),
        // A filter: the compiled summary over every syscall's raw tracepoints.
        (MANY, &["--filter", "uid >= 0"], FORKS + 1 - ROWS),
    ];
    for (set, flags, not_counted) in cases {
        let mut opts = vec!["--json"];
        opts.extend_from_slice(flags);
        let out = run(set, &opts);
        let (calls, dropped) = counted(&out);
        assert_eq!(calls + dropped, GETPPIDS + FORKS, "{}", out.describe());
        assert_eq!(dropped, not_counted, "{}", out.describe());
        assert_eq!(out.code, Some(1), "lost calls fail the run: {}", out.describe());
    }

    let text = run(MANY, &["--keep-going"]);
    assert_eq!(text.code, Some(0), "{}", text.describe());
    let said = format!(
        "sonde: {} calls not counted: the summary's table of {ROWS} (thread, syscall) rows was full",
        FORKS - ROWS
    );
    assert!(text.stderr.lines().any(|l| l == said), "{said}: {}", text.describe());
}
