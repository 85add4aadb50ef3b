use super::*;

fn s(v: &str) -> Value {
    Value::str(v)
}
fn u(v: u64) -> Value {
    Value::uint(v)
}

/// Every line we write must also be valid JSON.
fn valid(line: &str) -> &str {
    serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
    line
}

#[test]
fn messages() {
    assert_eq!(valid(&printf("hello\n")), r#"{"type": "printf", "data": "hello\n"}"#);
    assert_eq!(
        valid(&printf("q\"b\\t\tc\r\x01")),
        r#"{"type": "printf", "data": "q\"b\\t\tc\r\u0001"}"#
    );
    assert_eq!(
        valid(&printf(&String::from_utf8_lossy(b"\xff"))),
        "{\"type\": \"printf\", \"data\": \"\u{fffd}\"}"
    );
    assert_eq!(valid(&message("time", "12:00:00\n")), r#"{"type": "time", "data": "12:00:00\n"}"#);
    assert_eq!(
        valid(&attached_probes(2)),
        r#"{"type": "attached_probes", "count": 2, "data": {"probes": 2}}"#
    );
    assert_eq!(
        valid(&lost_events(17)),
        r#"{"type": "lost_events", "count": 17, "data": {"events": 17}}"#
    );
}

#[test]
fn values() {
    assert_eq!(valid(&value(&Value::int(-3))), r#"{"type": "value", "data": -3}"#);
    assert_eq!(valid(&value(&s("bash"))), r#"{"type": "value", "data": "bash"}"#);
    let t = Value::Tuple(vec![u(1), s("a"), Value::Tuple(vec![u(2)])]);
    assert_eq!(valid(&value(&t)), r#"{"type": "value", "data": [1,"a",[2]]}"#);
}

#[test]
fn records_keep_their_field_order() {
    let r = Value::Record(vec![("z".into(), u(1)), ("a".into(), Value::Tuple(vec![u(2), u(3)]))]);
    assert_eq!(valid(&value(&r)), r#"{"type": "value", "data": {"z": 1, "a": [2,3]}}"#);
    let pair = Value::Tuple(vec![r.clone(), r]);
    let want = r#"{"type": "value", "data": [{"z": 1, "a": [2,3]}, {"z": 1, "a": [2,3]}]}"#;
    assert_eq!(valid(&value(&pair)), want);
    let entries = vec![(vec![u(1)], Value::Record(vec![("y".into(), s("x"))]))];
    assert_eq!(
        valid(&map("@m", &entries)),
        r#"{"type": "map", "data": {"@m": {"1": {"y": "x"}}}}"#
    );
}

#[test]
fn plain_maps() {
    let entries = vec![(vec![s("sshd")], u(5)), (vec![s("bash")], u(3))];
    assert_eq!(
        valid(&map("@", &entries)),
        r#"{"type": "map", "data": {"@": {"bash": 3, "sshd": 5}}}"#
    );
    let entries = vec![(vec![u(1), s("cat")], Value::int(-1))];
    assert_eq!(valid(&map("@m", &entries)), r#"{"type": "map", "data": {"@m": {"1,cat": -1}}}"#);
    assert_eq!(valid(&map("x", &[(vec![], u(9))])), r#"{"type": "map", "data": {"@x": 9}}"#);
    assert_eq!(
        valid(&map("@s", &[(vec![], s("a\"b"))])),
        r#"{"type": "map", "data": {"@s": "a\"b"}}"#
    );
    assert_eq!(valid(&map("@", &[])), r#"{"type": "map", "data": {"@": {}}}"#);
}

#[test]
fn hists() {
    let entries = vec![(vec![], vec![(1, 1), (3, 5)])];
    assert_eq!(
        valid(&hist("@h", &entries, HistKind::Quantize)),
        r#"{"type": "hist", "data": {"@h": [{"min": 0, "max": 0, "count": 1}, {"min": 1, "max": 1, "count": 0}, {"min": 2, "max": 3, "count": 5}]}}"#
    );
    let entries = vec![(vec![s("b")], vec![(0, 2), (65, 1)]), (vec![s("a")], vec![(4, 1)])];
    let line = hist("@h", &entries, HistKind::Quantize);
    assert!(valid(&line).starts_with(r#"{"type": "hist", "data": {"@h": {"a": [{"min": 4, "max": 7, "count": 1}], "b": [{"max": -1, "count": 2}, {"min": 0, "max": 0, "count": 0}, "#));
    assert!(line
        .ends_with(r#"{"min": 9223372036854775808, "max": 18446744073709551615, "count": 1}]}}}"#));
    assert_eq!(
        valid(&hist("@h", &[], HistKind::Quantize)),
        r#"{"type": "hist", "data": {"@h": {}}}"#
    );
    assert_eq!(
        valid(&hist("@h", &[(vec![], vec![])], HistKind::Quantize)),
        r#"{"type": "hist", "data": {"@h": []}}"#
    );
}

#[test]
fn linear_hists() {
    let kind = HistKind::Linear { min: 0, max: 20, step: 10 };
    assert_eq!(
        valid(&hist("@l", &[(vec![], vec![(0, 1), (1, 2), (3, 3)])], kind)),
        r#"{"type": "hist", "data": {"@l": [{"max": -1, "count": 1}, {"min": 0, "max": 9, "count": 2}, {"min": 10, "max": 19, "count": 0}, {"min": 20, "count": 3}]}}"#
    );
}

#[test]
fn stats_maps() {
    let one = vec![(vec![], 3, u(2), u(6))];
    assert_eq!(
        valid(&stats("@s", &one)),
        r#"{"type": "stats", "data": {"@s": {"count": 3, "average": 2, "total": 6}}}"#
    );
    let entries =
        vec![(vec![s("k")], 3, u(2), u(6)), (vec![s("n")], 1, Value::int(-4), Value::int(-4))];
    assert_eq!(
        valid(&stats("@s", &entries)),
        r#"{"type": "stats", "data": {"@s": {"n": {"count": 1, "average": -4, "total": -4}, "k": {"count": 3, "average": 2, "total": 6}}}}"#
    );
    assert_eq!(valid(&stats("@s", &[])), r#"{"type": "stats", "data": {"@s": {}}}"#);
}

#[test]
fn serializer_spacing() {
    let v = serde_json::json!({"a": [1, 2], "b": {"c": null, "d": true}, "e": "x\u{1f}"});
    assert_eq!(to_string(&v), r#"{"a": [1,2], "b": {"c": null, "d": true}, "e": "x\u001f"}"#);
    assert_eq!(quote("é"), "\"é\"");
}

#[test]
fn tseries_maps_as_bpftrace_writes_them() {
    use crate::tseries::Series;
    let series = Series {
        points: vec![
            (500_000_000, Some(u(9))),
            (600_000_000, None),
            (1_764_137_400_000_000_123, Some(u(4))),
        ],
        zone_secs: 3600,
    };
    assert_eq!(
        valid(&tseries("@a", &[(vec![], series.clone())])),
        r#"{"type": "tseries", "data": {"@a": [{"interval_start": "1970-01-01 00:00:00.500000000", "value": 9}, {"interval_start": "2025-11-26 06:10:00.000000123", "value": 4}]}}"#
    );
    let empty = Series { points: vec![(0, None)], zone_secs: 0 };
    assert_eq!(
        valid(&tseries("@a", &[(vec![s("one")], empty)])),
        r#"{"type": "tseries", "data": {"@a": {"one": []}}}"#
    );
}
