use super::*;
use crate::directive::Directive;
use crate::expo::{render, Format};
use crate::model::Bound;
use sonde_output::HistKind;

fn metric(map: &str, agg: Aggregation, labels: &[Option<&str>]) -> MapMetric {
    let source = MapSource {
        labels: labels.iter().map(|l| l.map(String::from)).collect(),
        ..MapSource::default()
    };
    MapMetric::new(map, agg, labels.len(), Some(&source), "t.bt", "t").unwrap().unwrap()
}

fn text(m: &MapMetric, entries: &MapEntries) -> String {
    render(&m.families(entries, &mut BucketMemory::default()), Format::Text)
}

#[test]
fn count_is_a_counter() {
    let m = metric("@opens", Aggregation::Count, &[Some("comm"), Some("flags")]);
    assert_eq!(m.name, "sonde_opens");
    assert_eq!(m.labels, ["comm", "flags"]);
    let e = MapEntries::Values(vec![(vec![Value::str("sh"), Value::uint(0)], Value::uint(3))]);
    assert_eq!(
        text(&m, &e),
        "# HELP sonde_opens_total count() of map @opens by comm, flags in t.bt\n\
         # TYPE sonde_opens_total counter\n\
         sonde_opens_total{comm=\"sh\",flags=\"0\"} 3\n"
    );
}

#[test]
fn a_keyless_counter_starts_at_zero() {
    let m = metric("@n", Aggregation::Count, &[]);
    assert!(text(&m, &MapEntries::Values(vec![])).ends_with("sonde_n_total 0\n"));
    // A gauge has no value before its first event.
    let g = metric("@n", Aggregation::Max, &[]);
    assert!(text(&g, &MapEntries::Values(vec![])).ends_with("gauge\n"));
}

#[test]
fn a_total_suffix_is_not_doubled() {
    assert_eq!(metric("@opens_total", Aggregation::Count, &[]).name, "sonde_opens");
    assert_eq!(metric("@total", Aggregation::Count, &[]).name, "sonde_total");
    assert_eq!(metric("@opens_total", Aggregation::Max, &[]).name, "sonde_opens_total");
}

#[test]
fn a_signed_sum_is_a_gauge() {
    let m = metric("@bytes", Aggregation::Sum { signed: true }, &[]);
    let e = MapEntries::Values(vec![(vec![], Value::int(-4))]);
    assert!(text(&m, &e).ends_with("# TYPE sonde_bytes gauge\nsonde_bytes -4\n"));
    let u = metric("@bytes", Aggregation::Sum { signed: false }, &[]);
    assert!(text(&u, &e).contains("# TYPE sonde_bytes_total counter\n"));
}

#[test]
fn a_string_value_is_a_label() {
    let m = metric("@last", Aggregation::Plain, &[Some("pid")]);
    let e = MapEntries::Values(vec![(vec![Value::uint(7)], Value::str("bash"))]);
    assert!(text(&m, &e).ends_with("sonde_last{pid=\"7\",value=\"bash\"} 1\n"));
}

#[test]
fn stats_is_a_summary_and_an_average() {
    let m = metric("@lat", Aggregation::Stats, &[Some("comm")]);
    let e = MapEntries::Stats(vec![(vec![Value::str("a")], 4, Value::int(5), Value::int(20))]);
    let t = text(&m, &e);
    assert!(t.contains("# TYPE sonde_lat summary\n"), "{t}");
    assert!(t.contains("sonde_lat_count{comm=\"a\"} 4\n"), "{t}");
    assert!(t.contains("sonde_lat_sum{comm=\"a\"} 20\n"), "{t}");
    assert!(t.contains("# TYPE sonde_lat_avg gauge\nsonde_lat_avg{comm=\"a\"} 5\n"), "{t}");
    assert!(m.sample_names().contains(&"sonde_lat_avg".to_string()));
}

#[test]
fn hist_is_a_cumulative_histogram() {
    let m = metric("@size", Aggregation::Hist { signed: false }, &[Some("comm")]);
    // 2 values in [1, 2) (bucket 2), 1 in [4, 8) (bucket 4).
    let e =
        MapEntries::Hist(vec![(vec![Value::str("wl")], vec![(2, 2), (4, 1)])], HistKind::Quantize);
    let t = text(&m, &e);
    let lines: Vec<&str> = t.lines().skip(2).collect();
    assert_eq!(
        lines,
        [
            "sonde_size_bucket{comm=\"wl\",le=\"0\"} 0",
            "sonde_size_bucket{comm=\"wl\",le=\"1\"} 2",
            "sonde_size_bucket{comm=\"wl\",le=\"3\"} 2",
            "sonde_size_bucket{comm=\"wl\",le=\"7\"} 3",
            "sonde_size_bucket{comm=\"wl\",le=\"+Inf\"} 3",
            "sonde_size_count{comm=\"wl\"} 3",
        ]
    );
}

#[test]
fn every_series_of_a_histogram_has_the_same_buckets_and_they_never_shrink() {
    let m = metric("@size", Aggregation::Hist { signed: false }, &[Some("k")]);
    let mut memory = BucketMemory::default();
    let entries = |b: u32| {
        MapEntries::Hist(
            vec![(vec![Value::uint(1)], vec![(2, 1)]), (vec![Value::uint(2)], vec![(b, 1)])],
            HistKind::Quantize,
        )
    };
    let bounds = |fams: Vec<Family>, key: &str| -> Vec<Option<Bound>> {
        let f = &fams[0];
        let of_key = f.samples.iter().filter(|s| s.labels[0].1 == key && s.suffix == "_bucket");
        of_key.map(|s| s.bound).collect()
    };
    let first = m.families(&entries(6), &mut memory);
    assert_eq!(bounds(first.clone(), "1"), bounds(first, "2"));
    let later = m.families(&entries(3), &mut memory);
    assert_eq!(bounds(later.clone(), "1").len(), 7, "le 0, 1, 3, 7, 15, 31 and +Inf");
    assert_eq!(bounds(later, "2").len(), 7);
}

#[test]
fn lhist_bounds_are_linear() {
    let m = metric("@ms", Aggregation::Lhist { min: 0, max: 100, step: 10 }, &[]);
    let kind = HistKind::Linear { min: 0, max: 100, step: 10 };
    let e = MapEntries::Hist(vec![(vec![], vec![(1, 1), (3, 2), (11, 1)])], kind);
    let t = text(&m, &e);
    assert!(t.contains("sonde_ms_bucket{le=\"-1\"} 0\n"), "{t}");
    assert!(t.contains("sonde_ms_bucket{le=\"9\"} 1\n"), "{t}");
    assert!(t.contains("sonde_ms_bucket{le=\"29\"} 3\n"), "{t}");
    assert!(t.contains("sonde_ms_bucket{le=\"99\"} 3\n"), "{t}");
    assert!(t.contains("sonde_ms_bucket{le=\"+Inf\"} 4\n"), "{t}");
}

#[test]
fn unnamed_and_clashing_positions_are_numbered() {
    let m = metric("@m", Aggregation::Count, &[None, Some("comm"), Some("comm"), Some("le")]);
    assert_eq!(m.labels, ["key0", "comm", "key2", "key3"]);
    // No derived names at all (a count that does not match): every position by number.
    let src = MapSource { labels: vec![Some("a".into())], ..MapSource::default() };
    let m = MapMetric::new("@m", Aggregation::Count, 2, Some(&src), "t.bt", "t").unwrap().unwrap();
    assert_eq!(m.labels, ["key0", "key1"]);
}

#[test]
fn directives_rename_and_relabel() {
    let directive = Directive {
        name: Some("opens".into()),
        labels: Some(vec![Some("cmd".into()), None]),
        ..Directive::default()
    };
    let src = MapSource {
        labels: vec![Some("comm".into()), Some("flags".into())],
        help: vec!["Files opened.".into()],
        directive,
        ..MapSource::default()
    };
    let m = MapMetric::new("@o", Aggregation::Count, 2, Some(&src), "t.bt", "t").unwrap().unwrap();
    assert_eq!((m.name.as_str(), m.help.as_str()), ("sonde_opens", "Files opened."));
    assert_eq!(m.labels, ["cmd", "flags"]);
    let wrong = MapSource {
        directive: Directive { labels: Some(vec![Some("a".into())]), ..Directive::default() },
        ..MapSource::default()
    };
    let e = MapMetric::new("@o", Aggregation::Count, 2, Some(&wrong), "t.bt", "t").unwrap_err();
    assert!(e.contains("names 1 label(s) but map @o has 2 key(s)"), "{e}");
    let skip = MapSource {
        directive: Directive { skip: true, ..Directive::default() },
        ..MapSource::default()
    };
    assert_eq!(MapMetric::new("@s", Aggregation::Plain, 1, Some(&skip), "t.bt", "t"), Ok(None));
}

#[test]
fn a_stack_key_is_folded_root_first() {
    let stack =
        Value::Sym { addr: 1, name: Some("\n        inner+0x1\n        outer+0x2\n".into()) };
    assert_eq!(label_value(&stack), "outer+0x2;inner+0x1");
    assert_eq!(label_value(&Value::str("a\nb")), "a\\x0ab");
    assert_eq!(label_value(&Value::int(-3)), "-3");
}

#[test]
fn keys_that_print_alike_are_one_series() {
    // ksym() of two addresses in one function: two kernel keys, one label value.
    let sym = |addr| Value::Sym { addr, name: Some("vfs_read".into()) };
    let m = metric("@calls", Aggregation::Count, &[Some("ksym")]);
    let e =
        MapEntries::Values(vec![(vec![sym(1)], Value::uint(2)), (vec![sym(2)], Value::uint(3))]);
    assert!(text(&m, &e)
        .ends_with("# TYPE sonde_calls_total counter\nsonde_calls_total{ksym=\"vfs_read\"} 5\n"));
    let h = metric("@lat", Aggregation::Hist { signed: false }, &[Some("ksym")]);
    let e = MapEntries::Hist(
        vec![(vec![sym(1)], vec![(2, 1)]), (vec![sym(2)], vec![(2, 2), (3, 1)])],
        HistKind::Quantize,
    );
    let t = text(&h, &e);
    assert_eq!(t.matches("sonde_lat_count{").count(), 1, "{t}");
    assert!(t.contains("sonde_lat_bucket{ksym=\"vfs_read\",le=\"1\"} 3\n"), "{t}");
    assert!(t.contains("sonde_lat_count{ksym=\"vfs_read\"} 4\n"), "{t}");
    let s = metric("@st", Aggregation::Stats, &[Some("ksym")]);
    let e = MapEntries::Stats(vec![
        (vec![sym(1)], 1, Value::uint(4), Value::uint(4)),
        (vec![sym(2)], 3, Value::uint(8), Value::uint(24)),
    ]);
    let t = text(&s, &e);
    assert!(
        t.contains("sonde_st_count{ksym=\"vfs_read\"} 4\n")
            && t.contains("sonde_st_avg{ksym=\"vfs_read\"} 7\n"),
        "{t}"
    );
}
