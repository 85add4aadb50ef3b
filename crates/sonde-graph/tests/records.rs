//! `--json` records from the recorded function_graph output (tests/fixtures): every call's
//! `graph_call`, the closing `graph_summary` and `lost_events`, valid against
//! docs/schema/records.schema.json, and one recording's records as its golden
//! (`BLESS=1 cargo test -p sonde-graph` rewrites it).

use sonde_graph::{line, record, Builder};
use sonde_output::Record;
use sonde_schema::Schema;
use std::path::PathBuf;

fn path(dir: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join(dir).join(name)
}

/// The records `sonde graph --json` writes for a recording, as lines.
fn records(kernel: &str, name: &str) -> Vec<String> {
    let p = path("fixtures", &format!("{kernel}/{name}"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut b = Builder::new();
    let calls: Vec<_> = text.lines().filter_map(|l| b.push(&line::parse(l))).collect();
    let mut out: Vec<String> =
        calls.iter().enumerate().map(|(i, c)| record::call(i as u64 + 1, c).to_string()).collect();
    let function = calls.first().map_or("", |c| c.root.name.as_str());
    out.push(record::summary(function, calls.len() as u64, b.broken_calls).to_string());
    out.push(Record::lost_events(b.lost_events).to_string());
    out
}

#[test]
fn every_recording_gives_valid_records() {
    let schema = Schema::records().unwrap_or_else(|e| panic!("{e}"));
    for k in ["6.1", "6.12"] {
        for f in ["pid_read3.txt", "system_tail.txt", "overrun_notail.txt", "sleep.txt"] {
            let lines = records(k, f);
            assert!(lines.len() > 2, "{k}/{f}: no call");
            for l in &lines {
                schema.check_line(l).unwrap_or_else(|e| panic!("{k}/{f}: {e}"));
            }
        }
    }
}

#[test]
fn a_recordings_records_match_their_golden() {
    let got = records("6.12", "pid_read3.txt").join("\n") + "\n";
    let p = path("golden", "6.12_pid_read3.ndjson");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&p, &got).unwrap();
    }
    let want = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert!(got == want, "differs from {} (BLESS=1 to rewrite)\n{got}", p.display());
}
