//! End-to-end: every face's JSON output is one record a line in the one envelope
//! (`{"type": ..., "data": ...}`), each valid against docs/schema/records.schema.json and spaced
//! as bpftrace spaces its own. `sonde graph` needs the function tracer, which this host lacks:
//! its records are checked from recorded function_graph lines (sonde-graph/tests/records.rs) and
//! in the VM lane (tests/vm/cases/graph_tree.sh).

mod common;

use common::{compat_script, sonde, wl, workload, Output};
use serde_json::Value;
use sonde_schema::Schema;

/// Every stdout line checked against the schema and bpftrace's spacing, parsed.
#[track_caller]
fn records(o: &Output) -> Vec<Value> {
    let schema = Schema::records().unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for line in o.lines() {
        let v = schema.check_line(line).unwrap_or_else(|e| panic!("{e}\n{}", o.describe()));
        assert!(spaced_as_bpftrace(line), "not spaced as bpftrace spaces its records: {line}");
        out.push(v);
    }
    assert!(!out.is_empty(), "no records\n{}", o.describe());
    out
}

/// bpftrace's spacing: outside strings, one space after each `:` and after the `,` between an
/// object's members or an array's objects, and none elsewhere (`[1,"x"]`).
fn spaced_as_bpftrace(line: &str) -> bool {
    let b = line.as_bytes();
    // `{` an object, `o` an array of objects, `[` an array of other values.
    let mut open: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' => open.push(b'{'),
            b'[' => open.push(if b.get(i + 1) == Some(&b'{') { b'o' } else { b'[' }),
            b'}' | b']' => {
                open.pop();
            }
            b':' | b',' => {
                let want = b[i] == b':' || open.last() != Some(&b'[');
                if (b.get(i + 1) == Some(&b' ')) != want {
                    return false;
                }
                i += usize::from(want);
            }
            b' ' => return false,
            _ => {}
        }
        i += 1;
    }
    open.is_empty()
}

#[test]
fn the_spacing_check_knows_bpftraces_spacing() {
    assert!(spaced_as_bpftrace(
        r#"{"type": "hist", "data": {"@h": [{"min": 1, "count": 2}, {"count": 0}]}}"#
    ));
    assert!(spaced_as_bpftrace(r#"{"type": "value", "data": [1,"a, b: c",[2,3]]}"#));
    assert!(!spaced_as_bpftrace(r#"{"type":"value", "data": 1}"#));
    assert!(!spaced_as_bpftrace(r#"{"type": "value", "data": [1, 2]}"#));
    assert!(!spaced_as_bpftrace(
        r#"{"type": "hist", "data": {"@h": [{"count": 2},{"count": 0}]}}"#
    ));
    assert!(!spaced_as_bpftrace(r#"{"type": "value",  "data": 1}"#));
}

fn types(records: &[Value]) -> Vec<&str> {
    records.iter().map(|r| r["type"].as_str().unwrap()).collect()
}

#[track_caller]
fn has_all(records: &[Value], want: &[&str], o: &Output) {
    let got = types(records);
    for t in want {
        assert!(got.contains(t), "no {t} record in {got:?}\n{}", o.describe());
    }
}

#[test]
fn the_languages_records_are_valid() {
    require_tracepoints!();
    let program = r#"tracepoint:syscalls:sys_exit_read /comm == "wl_jsl"/ {
        @calls[comm, pid] = count(); @h = hist(args->ret); @l = lhist(args->ret, 0, 4000, 1000);
        @st = stats(args->ret); @a = avg(args->ret); printf("read %d\n", args->ret);
        print((args->ret, comm)); }"#;
    let o = sonde(&["-f", "json", "-c", &wl(&["comm", "wl_jsl", "read", "3", "1000"]), program]);
    o.assert_ok();
    let r = records(&o);
    assert_eq!(types(&r)[0], "attached_probes", "{}", o.describe());
    has_all(&r, &["printf", "value", "map", "hist", "stats"], &o);
    // warnf/errorf (no data), system()'s output, join().
    let o = sonde(&["--unsafe", "-f", "json", &compat_script("messages.bt")]);
    o.assert_ok();
    has_all(&records(&o), &["warnf", "errorf", "syscall"], &o);
    let cmd = wl(&["comm", "wl_join", "exec", "wl-exec", "getppid", "1"]);
    let o = sonde(&["-f", "json", "-c", &cmd, &compat_script("join.bt")]);
    o.assert_ok();
    has_all(&records(&o), &["join"], &o);
    // Records: objects of their fields, as values, map values and inside tuples.
    let prog = "BEGIN { $r = (a = 1, b = \"x\", c = (d = 2, e = (3, 4))); print($r); print((1, $r)); @m = $r; @k[1] = $r; exit(); }";
    let o = sonde(&["-f", "json", prog]);
    o.assert_ok();
    has_all(&records(&o), &["value", "map"], &o);
    let o = sonde(&["-f", "json", "--mode", "bench", "bench:a { @a = count(); }"]);
    o.assert_ok();
    has_all(&records(&o), &["benchmark_result", "map"], &o);
}

#[test]
fn sonde_traces_records_are_valid() {
    require_tracepoints!();
    let w = workload().to_str().unwrap().to_string();
    let o = sonde(&[
        "trace",
        "-o",
        "-",
        "--json",
        "-C",
        "--max-stack",
        "2",
        "-e",
        "getpid,openat,write,exit_group,sched:sched_process_exit",
        "--",
        &w,
        "openat",
        "1",
        "/nonexistent_sonde",
        "write",
        "1",
        "3",
        "getpid",
        "2",
        "catch",
        "10",
        "raise",
        "10",
        "exit",
        "3",
    ]);
    // (How sonde itself exits when its command fails is not this test's matter.)
    let r = records(&o);
    let t = types(&r);
    assert_eq!(t[0], "attached_probes", "{}", o.describe());
    assert_eq!(t[t.len() - 1], "lost_events", "{}", o.describe());
    let want = ["trace_call", "trace_event", "trace_signal", "trace_exit", "trace_summary", "exit"];
    has_all(&r, &want, &o);
    let exit = r.iter().find(|x| x["type"] == "exit").unwrap();
    assert_eq!(exit["data"]["status"], 3, "{}", o.describe());
    // exit_group never returns; the others carry their stacks.
    let calls: Vec<&Value> =
        r.iter().filter(|x| x["type"] == "trace_call").map(|x| &x["data"]).collect();
    let gone = calls.iter().find(|c| c["syscall"] == "exit_group").expect("exit_group");
    assert!(gone["ret"].is_null() && gone["duration_ns"].is_null(), "{gone}");
    let write = calls.iter().find(|c| c["syscall"] == "write").expect("write");
    assert_eq!(write["args"]["buf"]["value"], "xxx", "{write}");
    assert!(write["stack"].as_array().is_some_and(|s| !s.is_empty()), "{write}");
}

/// A summary whose table was full says so in a `map_full` record, in calls.
#[test]
fn sonde_traces_full_summary_record_is_valid() {
    require_tracepoints!();
    let w = workload().to_str().unwrap().to_string();
    let args = ["trace", "-o", "-", "--json", "-c", "--summary-rows", "1", "-e", "prctl", "--"];
    let mut args = args.to_vec();
    args.extend([w.as_str(), "fork", "wl_a", "fork", "wl_b", "fork", "wl_c"]);
    let o = sonde(&args);
    let r = records(&o);
    has_all(&r, &["trace_summary", "map_full"], &o);
    let full = r.iter().find(|x| x["type"] == "map_full").unwrap();
    assert_eq!(full["data"]["map"], "calls", "{}", o.describe());
    assert_eq!(full["data"]["max_entries"], 1, "{}", o.describe());
}

#[test]
fn sonde_probes_records_are_valid() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_jsp", "getpid", "2"]);
    let o = sonde(&["probe", "--json", "-s", "-c", &cmd, "e syscalls/sys_enter_getpid"]);
    o.assert_ok();
    let r = records(&o);
    has_all(&r, &["probe_event", "probe_frame"], &o);
    let events: Vec<&Value> =
        r.iter().filter(|x| x["type"] == "probe_event").map(|x| &x["data"]).collect();
    assert_eq!(events.len(), 2, "{}", o.describe());
    // The stack's heading line is no event.
    assert!(events.iter().all(|e| e["comm"] == "wl_jsp" && e["pid"].is_u64()), "{}", o.describe());
    assert!(events.iter().all(|e| e["text"] != "<stack trace>"), "{}", o.describe());
}
