//! bpftrace's `--mode bench` on this host: each `bench:NAME` probe run by hand until a round of
//! runs takes a millisecond, its average time a run printed in bpftrace's table or JSON record,
//! between BEGIN and END; what a bench prints itself is dropped.

mod common;

use common::{sonde, Output};

fn require_bpf() -> bool {
    match common::skip_reason() {
        Some(reason) => {
            println!("skipped: {reason}");
            false
        }
        None => true,
    }
}

/// (name, average ns, runs) of each row of the table.
fn rows(o: &Output) -> Vec<(String, u64, u64)> {
    let lines: Vec<&str> = o.stdout.lines().collect();
    let head = lines.iter().position(|l| l.starts_with("Benchmark")).expect("no table");
    assert_eq!(lines[head], format!("Benchmark{}Time(ns)       Iterations", " ".repeat(32)));
    assert_eq!(lines[head + 1], "-".repeat(66));
    let row = |l: &&str| {
        let w: Vec<&str> = l.split_whitespace().collect();
        (w[0].to_string(), w[1].parse().unwrap(), w[2].parse().unwrap())
    };
    lines[head + 2..].iter().take_while(|l| l.split_whitespace().count() == 3).map(row).collect()
}

/// The last round's runs took a millisecond at least (bpftrace's rule), and the rounds before it
/// ran too: every run counted, and `count` holds more than the last round.
fn check_round(o: &Output, average: u64, runs: u64, count: i64) {
    assert!(runs >= 2, "{}", o.describe());
    assert!((average + 1) * runs >= 1_000_000, "{average} ns x {runs}\n{}", o.describe());
    assert!(count as u64 > runs, "{count} runs counted, {runs} in the last round");
}

#[test]
fn each_bench_runs_between_begin_and_end_in_bpftraces_table() {
    if !require_bpf() {
        return;
    }
    let o = sonde(&[
        "--mode",
        "bench",
        "BEGIN { printf(\"begin\\n\"); } bench:a { @a = count(); } \
         bench:second { if (@b == 0) { printf(\"dropped\\n\"); } @b = count(); } \
         END { printf(\"end\\n\"); }",
    ]);
    o.assert_ok();
    assert!(o.stdout.starts_with("begin\nBenchmark"), "{}", o.describe());
    assert!(!o.stdout.contains("dropped"), "{}", o.describe());
    assert!(!o.stderr.contains("Attached"), "{}", o.describe());
    let rows = rows(&o);
    let names: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["a", "second"], "{}", o.describe());
    let end = o.stdout.find("end\n").expect("END ran");
    assert!(end > o.stdout.find("second").unwrap(), "{}", o.describe());
    check_round(&o, rows[0].1, rows[0].2, o.int("@a"));
    check_round(&o, rows[1].1, rows[1].2, o.int("@b"));
}

#[test]
fn each_bench_is_one_json_record() {
    if !require_bpf() {
        return;
    }
    let o = sonde(&["-f", "json", "--mode", "bench", "bench:a { @a = count(); } bench:b { }"]);
    o.assert_ok();
    let records = o.json();
    let results: Vec<&serde_json::Value> =
        records.iter().filter(|r| r["type"] == "benchmark_result").collect();
    assert_eq!(results.len(), 2, "{}", o.describe());
    let a = &results[0]["data"]["a"];
    let (average, runs) = (a["average"].as_u64().unwrap(), a["iters"].as_u64().unwrap());
    let count = records.iter().find(|r| r["type"] == "map").unwrap()["data"]["@a"].as_i64();
    check_round(&o, average, runs, count.unwrap());
    assert!(results[1]["data"]["b"]["iters"].as_u64().unwrap() >= 2, "{}", o.describe());
}

#[test]
fn a_bench_needs_bench_mode_and_bench_mode_a_bench() {
    if !require_bpf() {
        return;
    }
    let o = sonde(&["bench:a { @a = count(); }"]);
    o.assert_code(2);
    assert!(
        o.stderr.contains("the program's `bench:` probes run only with --mode bench"),
        "{}",
        o.describe()
    );
    let o = sonde(&["--mode", "bench", "BEGIN { exit(); }"]);
    o.assert_code(2);
    assert!(o
        .stderr
        .contains("--mode bench runs the program's `bench:NAME` probes, and it has none"));
}
