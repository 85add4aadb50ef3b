//! The output lane for the writers: hand-built values in, exact text and JSON out.

use crate::{JsonWriter, MapEntries, TextWriter, Value, Writer};

fn text(f: impl FnOnce(&mut dyn Writer)) -> (String, String) {
    let mut w = TextWriter::new(Vec::new(), Vec::new());
    f(&mut w);
    let (out, err) = w.into_inner();
    (String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn json(f: impl FnOnce(&mut dyn Writer)) -> String {
    let mut w = JsonWriter::new(Vec::new());
    f(&mut w);
    String::from_utf8(w.into_inner()).unwrap()
}

fn counts() -> MapEntries {
    MapEntries::Values(vec![
        (vec![Value::str("b")], Value::uint(2)),
        (vec![Value::str("a")], Value::uint(1)),
    ])
}

#[test]
fn text_goes_to_out_and_notes_to_err() {
    let (out, err) = text(|w| {
        w.attached(1);
        w.printf(b"hello\n");
        w.print(vec![Value::int(-1), Value::str("x")]);
        w.map("@", &counts());
        w.lost(3);
        w.missed("tracepoint:irq:irq_handler_entry", 1);
        w.missed("interval:s:1", 7);
    });
    assert_eq!(out, "hello\n-1, x\n@[a]: 1\n@[b]: 2\n\n");
    let lost = "sonde: warning: 3 events lost (the ring buffer was full)\n";
    let missed = "sonde: warning: tracepoint:irq:irq_handler_entry: 1 run skipped (it fired while another BPF program ran on its CPU)\n\
                  sonde: warning: interval:s:1: 7 runs skipped (it fired while another BPF program ran on its CPU)\n";
    assert_eq!(err, format!("Attached 1 probe\n{lost}{missed}"));
    assert_eq!(text(|w| w.attached(2)).1, "Attached 2 probes\n");
}

#[test]
fn json_is_one_object_a_line() {
    let out = json(|w| {
        w.attached(2);
        w.printf(b"hi\n");
        w.print(vec![Value::int(7)]);
        w.print(vec![Value::int(7), Value::str("x")]);
        w.map("@", &counts());
        w.lost(3);
        w.missed("kprobe:\"odd\"", 2);
    });
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert_eq!(lines[0], r#"{"type": "attached_probes", "count": 2, "data": {"probes": 2}}"#);
    assert_eq!(lines[1], r#"{"type": "printf", "data": "hi\n"}"#);
    assert_eq!(lines[2], r#"{"type": "value", "data": 7}"#);
    assert_eq!(lines[3], r#"{"type": "value", "data": [7,"x"]}"#);
    assert_eq!(lines[4], r#"{"type": "map", "data": {"@": {"a": 1, "b": 2}}}"#);
    assert_eq!(lines[5], r#"{"type": "lost_events", "count": 3, "data": {"events": 3}}"#);
    assert_eq!(
        lines[6],
        r#"{"type": "missed_runs", "data": {"probe": "kprobe:\"odd\"", "runs": 2}}"#
    );
}

#[test]
fn join_system_and_messages_as_bpftrace_writes_them() {
    let at = crate::writer::SourceAt { file: "t.bt".into(), line: 2, col: 3, end_col: 20 };
    let (out, err) = text(|w| {
        w.text("join", b"ls -l");
        w.message("WARNING", "careful", &at);
    });
    assert_eq!(out, "ls -l\n");
    assert_eq!(err, "t.bt:2:3-20: WARNING: careful\n");
    let out = json(|w| {
        w.text("syscall", b"hi\n");
        w.message("ERROR", "bad \"x\"", &at);
    });
    assert_eq!(
        out,
        "{\"type\": \"syscall\", \"data\": \"hi\\n\"}\n\
         {\"type\": \"errorf\", \"msg\": \"bad \\\"x\\\"\", \"filename\": \"t.bt\", \"line\": 2, \"col\": 3}\n"
    );
}

#[test]
fn the_run_ends_with_two_newlines_as_bpftraces_and_the_maps_follow() {
    let (out, _) = text(|w| {
        w.printf(b"ABBB");
        w.end_of_run();
        w.map("@", &counts());
    });
    assert_eq!(out, "ABBB\n\n@[a]: 1\n@[b]: 2\n\n");
    let (out, _) = text(|w| {
        w.printf(b"done\n");
        w.end_of_run();
        w.map("@", &counts());
    });
    assert_eq!(out, "done\n\n\n@[a]: 1\n@[b]: 2\n\n");
}

#[test]
fn time_and_cat_print_as_printf_does_and_are_their_own_json_records() {
    let (out, _) = text(|w| {
        w.printed("time", b"12:00:00\n");
        w.printed("cat", b"0.5 0.4");
    });
    assert_eq!(out, "12:00:00\n0.5 0.4");
    let out = json(|w| {
        w.printed("time", b"12:00:00\n");
        w.printed("cat", b"up 3\n");
    });
    assert_eq!(
        out,
        "{\"type\": \"time\", \"data\": \"12:00:00\\n\"}\n{\"type\": \"cat\", \"data\": \"up 3\\n\"}\n"
    );
}

#[test]
fn averages_print_as_maps_and_are_bpftraces_stats_records_in_json() {
    let (out, _) = text(|w| w.averages("@", &counts()));
    assert_eq!(out, "@[a]: 1\n@[b]: 2\n\n");
    let out = json(|w| w.averages("@", &counts()));
    assert_eq!(out, "{\"type\": \"stats\", \"data\": {\"@\": {\"a\": 1, \"b\": 2}}}\n");
}
