//! The differential test against bpftrace (docs/compat.md): every one-liner of
//! tests/compat/differential.txt runs with the same text under sonde and under Debian's bpftrace,
//! against the same workload, and both outputs are compared with the values the data file works
//! out from the workload's source. sonde must print them; where bpftrace does not, the report says
//! so (and whether the data file records it) without failing. bpftrace is installed with apt when
//! it is missing and this runs as root; without it, sonde is still checked alone.

mod common;

use std::path::Path;
use std::process::Command;

use common::{sonde, workload};

/// One one-liner of the data file.
#[derive(Debug, Default)]
struct Case {
    name: String,
    prog: String,
    /// Run with `-c` of the workload (false for BEGIN-only programs).
    with_workload: bool,
    want: Vec<String>,
    /// What bpftrace 0.17 prints instead, when the data file records that it is wrong.
    bpftrace: Vec<String>,
}

/// The data file: the workload's command line and the cases.
fn load_cases() -> (String, Vec<Case>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/compat/differential.txt");
    let text = std::fs::read_to_string(path).expect("read tests/compat/differential.txt");
    let mut workload_args = None;
    let mut cases = Vec::new();
    let mut case: Option<Case> = None;
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            cases.extend(case.take());
            continue;
        }
        let (key, value) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("differential.txt:{}: not `key: value`: {line}", n + 1));
        if key == "workload" {
            workload_args = Some(value.to_string());
            continue;
        }
        let c = case.get_or_insert_with(|| Case { with_workload: true, ..Case::default() });
        match key {
            "name" => c.name = value.to_string(),
            "prog" => c.prog = value.to_string(),
            "run" if value == "none" => c.with_workload = false,
            "want" => c.want.push(value.to_string()),
            "bpftrace" => c.bpftrace.push(value.to_string()),
            "why" => {}
            _ => panic!("differential.txt:{}: unknown key {key:?}", n + 1),
        }
    }
    cases.extend(case);
    for c in &cases {
        assert!(!c.name.is_empty() && !c.prog.is_empty(), "a case without name or prog: {c:?}");
    }
    (workload_args.expect("differential.txt has a `workload:` line"), cases)
}

/// A printed output as the data file writes it: sorted lines with runs of spaces as one,
/// histogram bars left out, each bucket after its map's name, and no blank or `Attaching` lines.
fn normalise(stdout: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut hist_map: Option<String> = None;
    for line in stdout.lines().map(str::trim_end) {
        let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.trim().is_empty() {
            hist_map = None;
            continue;
        }
        if line.starts_with("Attaching ") {
            continue;
        }
        if line.starts_with('@') && line.ends_with(':') {
            hist_map = Some(words(line));
            continue;
        }
        match &hist_map {
            Some(map) if line.starts_with('[') || line.starts_with('(') => {
                let bucket = line.split_once('|').map_or(line, |(b, _)| b);
                lines.push(format!("{map} {}", words(bucket)));
            }
            _ => {
                hist_map = None;
                lines.push(words(line));
            }
        }
    }
    lines.sort();
    lines
}

fn sorted(lines: &[String]) -> Vec<String> {
    normalise(&lines.join("\n"))
}

/// The program text with `{wl}` as the workload's path.
fn program(c: &Case) -> String {
    c.prog.replace("{wl}", &workload().display().to_string())
}

/// The command line a tool runs with `-c`.
fn command_line(workload_args: &str) -> String {
    format!("{} {workload_args}", workload().display())
}

/// What a tool printed, or why it printed nothing useful.
type Run = Result<Vec<String>, String>;

fn run_sonde(c: &Case, workload_args: &str) -> (Run, String) {
    let prog = program(c);
    let cmd = command_line(workload_args);
    let mut args = Vec::new();
    if c.with_workload {
        args.extend(["-c", &cmd]);
    }
    args.push(&prog);
    let o = sonde(&args);
    let got = match o.code {
        Some(0) => Ok(normalise(&o.stdout)),
        _ => Err(format!("exit {:?}: {}", o.code, o.stderr.lines().next().unwrap_or(""))),
    };
    (got, o.describe())
}

fn run_bpftrace(bpftrace: &str, c: &Case, workload_args: &str) -> Run {
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", "60", bpftrace, "-q"]);
    if c.with_workload {
        cmd.args(["-c", &command_line(workload_args)]);
    }
    let o = cmd.args(["-e", &program(c)]).output().map_err(|e| format!("cannot run: {e}"))?;
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        let first = stderr.lines().find(|l| l.contains("ERROR")).or(stderr.lines().next());
        return Err(format!("{}: {}", o.status, first.unwrap_or("")));
    }
    Ok(normalise(&String::from_utf8_lossy(&o.stdout)))
}

/// Debian's bpftrace: `$SONDE_BPFTRACE`, the one on PATH, or installed now with apt-get (as root).
fn find_bpftrace() -> Result<String, String> {
    let runs =
        |bin: &str| Command::new(bin).arg("--version").output().is_ok_and(|o| o.status.success());
    if let Some(bin) = std::env::var_os("SONDE_BPFTRACE") {
        let bin = bin.to_string_lossy().into_owned();
        return if runs(&bin) {
            Ok(bin)
        } else {
            Err(format!("SONDE_BPFTRACE={bin} does not run"))
        };
    }
    if runs("bpftrace") {
        return Ok("bpftrace".into());
    }
    if unsafe { libc::geteuid() } != 0 || !Path::new("/usr/bin/apt-get").exists() {
        return Err(
            "bpftrace is not installed (and this is not root on Debian to install it)".into()
        );
    }
    let install = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
                   apt-get install -y -qq --no-install-recommends bpftrace";
    let o = Command::new("sh").args(["-c", install]).output();
    match o {
        Ok(_) if runs("bpftrace") => Ok("bpftrace".into()),
        Ok(o) => Err(format!(
            "apt-get could not install bpftrace: {}",
            String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("")
        )),
        Err(e) => Err(format!("cannot run apt-get: {e}")),
    }
}

/// bpftrace's column of the report.
fn judge_bpftrace(c: &Case, want: &[String], got: &Run) -> String {
    match got {
        Ok(lines) if lines == want => "== expected".into(),
        Ok(lines) if !c.bpftrace.is_empty() && lines == &sorted(&c.bpftrace) => {
            "differs (as recorded)".into()
        }
        Ok(lines) => format!("differs, not recorded: {}", lines.join(" | ")),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn one_liners_against_bpftrace_and_the_workloads_values() {
    require_tracepoints!();
    let no_uprobes = common::skip_reason_uprobes();
    let (workload_args, cases) = load_cases();
    let bpftrace = find_bpftrace();
    if let Err(reason) = &bpftrace {
        println!("skipped: the bpftrace side: {reason} (sonde is checked alone)");
    }
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for c in &cases {
        let uprobe = c.prog.contains("uprobe:") || c.prog.contains("uretprobe:");
        if let (true, Some(reason)) = (uprobe, &no_uprobes) {
            report.push(format!("{:<26} skipped: {reason}", c.name));
            continue;
        }
        let want = sorted(&c.want);
        let (got, described) = run_sonde(c, &workload_args);
        let sonde_col = match &got {
            Ok(lines) if *lines == want => "== expected".to_string(),
            Ok(lines) => {
                failures.push(format!("{}: want {want:?}, got {lines:?}\n{described}", c.name));
                "WRONG".to_string()
            }
            Err(e) => {
                failures.push(format!("{}: {e}\n{described}", c.name));
                "ERROR".to_string()
            }
        };
        let bpftrace_col = match &bpftrace {
            Ok(bin) => judge_bpftrace(c, &want, &run_bpftrace(bin, c, &workload_args)),
            Err(_) => "not run".to_string(),
        };
        report.push(format!("{:<26} sonde {sonde_col:<12} bpftrace {bpftrace_col}", c.name));
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "sonde printed other values:\n{}", failures.join("\n\n"));
}

#[test]
fn normalise_groups_buckets_under_their_map() {
    let text = "Attaching 1 probe...\n\n@h:\n[512, 1K)   5 |@@@@   |\n(..., 0)  2 |@|\n\n@n: 3\n";
    assert_eq!(normalise(text), ["@h: (..., 0) 2", "@h: [512, 1K) 5", "@n: 3"]);
    assert_eq!(normalise("@h:\n@n: 3\n[1, 2) 4\n"), ["@n: 3", "[1, 2) 4"]);
}
