//! End-to-end: strace's flags in `sonde trace` mean what they mean in strace: `-f`, `-c`/`-C`,
//! `-t`/`-tt`/`-ttt`/`-r`, `-T`, `-s`, `-e trace=`/`status=failed`, the lines on stderr unless `-o`,
//! and JSON spelled `--json` or `--format json`.

mod common;

use common::trace::{skip, trace, trace_as_typed};
use common::{sonde, Output};

/// The workload's getpid lines.
fn getpids(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("getpid() = ")).collect()
}

#[test]
fn the_lines_go_to_stderr_unless_o_says_otherwise() {
    if skip() {
        return;
    }
    // The command's output stays on stdout, alone: `sonde trace -- cmd > out` keeps it apart.
    let out = sonde(&["trace", "-f", "-e", "write", "--", "echo", "sonde_out"]);
    out.assert_ok();
    assert_eq!(out.stdout, "sonde_out\n", "{}", out.describe());
    assert!(out.stderr.contains(" write("), "{}", out.describe());
    let out = sonde(&["trace", "-o", "-", "-e", "write", "--", "echo", "sonde_out"]);
    out.assert_ok();
    assert!(
        out.stdout.contains(" write(") && out.stdout.contains("sonde_out"),
        "{}",
        out.describe()
    );
    assert!(!out.stderr.contains(" write("), "{}", out.describe());
    let out = trace_as_typed(&["-e", "getpid"], &["getpid", "2"]);
    assert_eq!(getpids(&out.stderr).len(), 2, "{}", out.describe());
}

#[test]
fn timestamps_are_strace_s() {
    if skip() {
        return;
    }
    let stamp_of = |flag: &str| -> String {
        let out = trace(&["--strace", flag, "-e", "getpid"], &["getpid", "1"]);
        let line = getpids(&out.stdout).last().copied().unwrap_or_default().to_string();
        assert!(!line.is_empty(), "{flag}: {}", out.describe());
        line.split_once(' ').map(|(s, _)| s.to_string()).unwrap_or_default()
    };
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let t = stamp_of("-t");
    let hms: Vec<&str> = t.split(':').collect();
    assert!(hms.len() == 3 && hms.iter().all(|p| p.len() == 2 && digits(p)), "-t: {t}");
    let tt = stamp_of("-tt");
    let (hms, us) = tt.split_once('.').unwrap_or_default();
    assert!(hms.len() == 8 && us.len() == 6 && digits(us), "-tt: {tt}");
    let ttt = stamp_of("-ttt");
    let (secs, us) = ttt.split_once('.').unwrap_or_default();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let secs: u64 = secs.parse().unwrap_or_else(|_| panic!("-ttt: {ttt}"));
    assert!(secs.abs_diff(now.as_secs()) < 120 && us.len() == 6, "-ttt: {ttt}");
    let out = trace(&["--strace", "-r", "-e", "getpid"], &["getpid", "2"]);
    for l in getpids(&out.stdout) {
        let (secs, us) = l.trim_start().split_once(' ').unwrap().0.split_once('.').unwrap();
        assert!(digits(secs) && us.len() == 6, "-r: {l}");
        assert!(l.starts_with("     "), "-r pads its seconds to 6 places: {l}");
    }
}

#[test]
fn t_capital_ends_strace_lines_with_the_call_s_time() {
    if skip() {
        return;
    }
    let out = trace(&["--strace", "-T", "-e", "getpid"], &["getpid", "2"]);
    let lines = getpids(&out.stdout);
    assert_eq!(lines.len(), 2, "{}", out.describe());
    for l in lines {
        let (_, took) = l.rsplit_once(" <").unwrap_or_else(|| panic!("{l}"));
        let took = took.strip_suffix('>').unwrap_or_else(|| panic!("{l}"));
        let (s, us) = took.split_once('.').unwrap();
        assert!(s == "0" && us.len() == 6, "{l}");
    }
}

#[test]
fn c_prints_the_summary_only_and_capital_c_the_lines_and_the_summary() {
    if skip() {
        return;
    }
    let out = trace(&["-c", "-e", "getpid"], &["getpid", "4"]);
    assert!(out.stdout.contains("Summary of events"), "{}", out.describe());
    assert!(getpids(&out.stdout).is_empty(), "{}", out.describe());
    let out = trace(&["-C", "-e", "getpid"], &["getpid", "4"]);
    assert!(out.stdout.contains("Summary of events"), "{}", out.describe());
    assert!(getpids(&out.stdout).len() >= 4, "{}", out.describe());
}

#[test]
fn e_takes_strace_s_qualifiers() {
    if skip() {
        return;
    }
    let wl = ["getpid", "2", "openat", "1", "/nonexistent_sonde"];
    let out = trace(&["--strace", "-e", "trace=openat,getpid", "-e", "status=failed"], &wl);
    let opens: Vec<&str> = out.stdout.lines().filter(|l| l.contains("openat(")).collect();
    assert!(opens.iter().any(|l| l.contains("/nonexistent_sonde")), "{}", out.describe());
    assert!(opens.iter().all(|l| l.contains("= -1 ")), "{}", out.describe());
    assert!(getpids(&out.stdout).is_empty(), "{}", out.describe());
    let z = trace(&["--strace", "-Z", "-e", "trace=openat,getpid"], &wl);
    let z_opens: Vec<&str> = z.stdout.lines().filter(|l| l.contains("openat(")).collect();
    assert_eq!(z_opens.len(), opens.len(), "{}", z.describe());
}

#[test]
fn s_limits_the_bytes_of_a_buffer() {
    if skip() {
        return;
    }
    // `write 1 40` writes 40 `x`: strace's -s 10 shows 10 of them and `...`.
    let out = trace(&["--strace", "-s", "10", "-e", "write"], &["write", "1", "40"]);
    let want = format!("\"{}\"...", "x".repeat(10));
    assert!(out.stdout.lines().any(|l| l.contains(&want)), "{}", out.describe());
    let out = trace(&["--strace", "-e", "write"], &["write", "1", "40"]);
    let want = format!("\"{}\"...", "x".repeat(32));
    assert!(out.stdout.lines().any(|l| l.contains(&want)), "{}", out.describe());
}

#[test]
fn json_and_format_json_write_the_same_records() {
    if skip() {
        return;
    }
    let kinds = |out: &Output| -> Vec<String> {
        out.json().iter().map(|r| r["type"].as_str().unwrap_or("").to_string()).collect()
    };
    let wl = ["getpid", "3"];
    let a = trace(&["--json", "-e", "getpid"], &wl);
    let b = trace(&["--format", "json", "-e", "getpid"], &wl);
    assert_eq!(kinds(&a), kinds(&b), "{}\n{}", a.describe(), b.describe());
    assert!(kinds(&a).iter().filter(|k| *k == "trace_call").count() >= 3, "{}", a.describe());
}
