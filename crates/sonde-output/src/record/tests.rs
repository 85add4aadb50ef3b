use super::*;
use crate::map::HistKind;
use crate::value::Value as V;
use crate::writer::SourceAt;
use serde_json::json;
use sonde_schema::Schema;

fn schema() -> Schema {
    Schema::records().unwrap_or_else(|e| panic!("{e}"))
}

#[track_caller]
fn valid(schema: &Schema, line: &str) {
    if let Err(e) = schema.check_line(line) {
        panic!("{e}");
    }
}

#[test]
fn the_shared_records_exactly() {
    let s = schema();
    for (record, want) in [
        (
            Record::attached_probes(3),
            r#"{"type": "attached_probes", "count": 3, "data": {"probes": 3}}"#,
        ),
        (
            Record::lost_events(17),
            r#"{"type": "lost_events", "count": 17, "data": {"events": 17}}"#,
        ),
        (
            Record::missed_runs("interval:s:1", 2),
            r#"{"type": "missed_runs", "data": {"probe": "interval:s:1", "runs": 2}}"#,
        ),
        (Record::exit(42, 3), r#"{"type": "exit", "data": {"pid": 42, "status": 3}}"#),
        (
            Record::map_full("@x", 95904, 4096),
            r#"{"type": "map_full", "data": {"dropped": 95904, "map": "@x", "max_entries": 4096}}"#,
        ),
    ] {
        assert_eq!(record.to_string(), want);
        valid(&s, want);
    }
}

#[test]
fn members_in_name_order_and_bpftraces_spacing() {
    // serde_json without preserve_order: every build prints members in name order, so a
    // dev-dependency that turned it on would fail here first.
    let data =
        json!({"z": 1, "a": [1, "x"], "tree": [{"b": null, "a": true}, {}], "e": [], "o": {}});
    assert_eq!(
        Record::new(Type::GraphCall, data).to_string(),
        r#"{"type": "graph_call", "data": {"a": [1,"x"], "e": [], "o": {}, "tree": [{"a": true, "b": null}, {}], "z": 1}}"#
    );
}

/// The schema's record types: the `const` (or `enum`) of each choice's `type` member.
fn schema_types(s: &Schema) -> Vec<String> {
    let root = s.root();
    let mut names = Vec::new();
    for choice in root["oneOf"].as_array().unwrap() {
        let name = choice["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
        let ty = &root["$defs"][name]["properties"]["type"];
        match (&ty["const"], &ty["enum"]) {
            (serde_json::Value::String(c), _) => names.push(c.clone()),
            (_, serde_json::Value::Array(e)) => {
                names.extend(e.iter().map(|n| n.as_str().unwrap().to_string()))
            }
            _ => panic!("{name}: no type"),
        }
    }
    names
}

#[test]
fn the_schema_describes_every_record_type_and_no_other() {
    let mut ours: Vec<String> = Type::ALL.iter().map(|t| t.name().to_string()).collect();
    ours.extend(["warnf".to_string(), "errorf".to_string()]);
    let mut theirs = schema_types(&schema());
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

#[test]
fn every_language_record_is_valid() {
    let s = schema();
    let stats: crate::StatsEntry = (vec![V::str("a")], 2, V::int(3), V::int(6));
    let at = SourceAt { file: "stdin".into(), line: 1, col: 9, end_col: 20 };
    let series =
        crate::tseries::Series { points: vec![(0, Some(V::int(2))), (1, None)], zone_secs: 0 };
    let lines = [
        json::printf("hi\n"),
        json::message("join", "a b"),
        json::message("syscall", "out\n"),
        json::message("time", "12:00:00\n"),
        json::message("cat", "0.5 0.4\n"),
        json::tseries("@t", &[(vec![], series.clone())]),
        json::tseries("@t", &[(vec![V::str("k")], series)]),
        json::value(&V::Tuple(vec![V::int(-1), V::str("x"), V::Tuple(vec![V::uint(2)])])),
        json::map("@", &[(vec![V::str("cat"), V::int(1)], V::uint(3))]),
        json::map("@n", &[(vec![], V::uint(3))]),
        json::map("@", &[]),
        json::hist("@h", &[(vec![], vec![(0, 1), (3, 5)])], HistKind::Quantize),
        json::hist("@h", &[(vec![V::str("k")], vec![(1, 1)])], HistKind::Quantize),
        json::stats("@s", &[stats]),
        json::attached_probes(1),
        json::lost_events(3),
        json::missed_runs("tracepoint:a:b", 1),
        json::located("WARNING", "w", &at),
        json::located("ERROR", "e", &at),
    ];
    for line in lines {
        valid(&s, &line);
    }
}

#[test]
fn a_record_of_the_wrong_shape_is_refused() {
    let s = schema();
    for line in [
        r#"{"type": "lost_events", "data": {"events": -1}}"#,
        r#"{"type": "lost_events", "data": {"events": 1, "more": 2}}"#,
        r#"{"type": "exit", "data": {"pid": 1}}"#,
        r#"{"type": "printf", "data": 1}"#,
        r#"{"type": "map", "data": {"@a": 1, "@b": 2}}"#,
        r#"{"type": "trace_call", "data": {}}"#,
        r#"{"type": "printf"}"#,
    ] {
        assert!(s.check_line(line).is_err(), "accepted: {line}");
    }
}
