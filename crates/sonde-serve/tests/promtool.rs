//! Prometheus's own parser and linter (`promtool check metrics`, Debian's `prometheus`
//! package) on expositions of every kind of map, hostile label values included.

use sonde_output::value::Value;
use sonde_output::{HistKind, MapEntries};
use sonde_serve::promtool;
use sonde_serve::source::map_sources;
use sonde_serve::{render, Aggregation, BucketMemory, Family, Format, MapMetric};

const PROGRAM: &str = "\
// Files opened, by command and flags.
tracepoint:syscalls:sys_enter_openat { @opens[comm, args->flags] = count(); }
tracepoint:syscalls:sys_exit_read {
    // Bytes read per call.
    @read_bytes[comm] = hist(args->ret);
    // Bytes read, summed (a failed read subtracts).
    @net_read = sum(args->ret);
    // Read sizes.
    @read_stats[comm] = stats(args->ret);
    // Read sizes in 100-byte steps.
    @read_linear = lhist(args->ret, 0, 1000, 100);
    // Largest read.
    @read_max[pid] = max(args->ret);
    // Last command to read, by pid.
    @last_comm[pid] = comm;
}
";

fn metric(map: &str, agg: Aggregation, keys: usize) -> MapMetric {
    let ast = sonde_syntax::parse(PROGRAM).unwrap();
    let sources = map_sources(&ast, PROGRAM).unwrap();
    MapMetric::new(map, agg, keys, sources.get(map), "reads.bt", "reads").unwrap().unwrap()
}

/// Families for every kind of map, with label values a hostile process could choose.
fn exposition() -> Vec<Family> {
    let evil = Value::str("a\"b\\c\nd}{x=\"1\"} 9");
    let comm = Value::str("wl_reader");
    let mut memory = BucketMemory::default();
    let mut out = Vec::new();
    let opens = metric("@opens", Aggregation::Count, 2);
    let e = vec![
        (vec![comm.clone(), Value::uint(0)], Value::uint(12)),
        (vec![evil.clone(), Value::uint(524288)], Value::uint(1)),
    ];
    out.extend(opens.families(&MapEntries::Values(e), &mut memory));
    let hist = metric("@read_bytes", Aggregation::Hist { signed: true }, 1);
    let h = vec![
        (vec![comm.clone()], vec![(0, 1), (1, 2), (11, 5)]),
        (vec![evil.clone()], vec![(3, 1)]),
    ];
    out.extend(hist.families(&MapEntries::Hist(h, HistKind::Quantize), &mut memory));
    let sum = metric("@net_read", Aggregation::Sum { signed: true }, 0);
    out.extend(sum.families(&MapEntries::Values(vec![(vec![], Value::int(-3))]), &mut memory));
    let stats = metric("@read_stats", Aggregation::Stats, 1);
    let s = vec![(vec![comm.clone()], 4, Value::int(256), Value::int(1024))];
    out.extend(stats.families(&MapEntries::Stats(s), &mut memory));
    let lin = metric("@read_linear", Aggregation::Lhist { min: 0, max: 1000, step: 100 }, 0);
    let kind = HistKind::Linear { min: 0, max: 1000, step: 100 };
    let l = MapEntries::Hist(vec![(vec![], vec![(1, 3), (4, 1), (11, 2)])], kind);
    out.extend(lin.families(&l, &mut memory));
    let max = metric("@read_max", Aggregation::Max, 1);
    let m = vec![(vec![Value::uint(42)], Value::int(4096))];
    out.extend(max.families(&MapEntries::Values(m), &mut memory));
    let last = metric("@last_comm", Aggregation::Plain, 1);
    let v = vec![(vec![Value::uint(42)], evil)];
    out.extend(last.families(&MapEntries::Values(v), &mut memory));
    out
}

#[test]
fn promtool_accepts_every_kind_of_map() {
    let text = render(&exposition(), Format::Text);
    // What is checked, visibly: one family of each kind.
    for needle in [
        "# TYPE sonde_opens_total counter",
        "# TYPE sonde_read_bytes histogram",
        "sonde_read_bytes_bucket{comm=\"wl_reader\",le=\"1023\"} 8",
        "# TYPE sonde_net_read gauge",
        "# TYPE sonde_read_stats summary",
        "# TYPE sonde_read_linear histogram",
        "# HELP sonde_opens_total Files opened, by command and flags.",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    match promtool::check(&text) {
        None => println!("skipped: promtool not installed (apt-get install prometheus)"),
        Some(Err(said)) => {
            panic!("promtool check metrics refused:\n{said}\n--- exposition:\n{text}")
        }
        Some(Ok(())) => {}
    }
}

#[test]
fn promtool_finds_what_is_wrong() {
    // The check is not vacuous: promtool does refuse a broken exposition.
    let broken = "# TYPE x counter\nx{a=\"b} 1\n";
    match promtool::check(broken) {
        None => println!("skipped: promtool not installed (apt-get install prometheus)"),
        Some(verdict) => assert!(verdict.is_err()),
    }
}

#[test]
fn openmetrics_has_the_same_samples() {
    let text = render(&exposition(), Format::Text);
    let om = render(&exposition(), Format::OpenMetrics);
    assert!(om.ends_with("# EOF\n"));
    let samples = |t: &str| t.lines().filter(|l| !l.starts_with('#')).count();
    assert_eq!(samples(&text), samples(&om));
    assert!(om.contains("sonde_read_bytes_bucket{comm=\"wl_reader\",le=\"1023.0\"} 8\n"), "{om}");
}
