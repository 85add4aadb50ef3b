use super::*;
use crate::errors::show::tests::enoent;

/// The rules of the trace event format a viewer relies on, checked on a parsed document.
fn check_trace_events(doc: &Value) -> Result<usize, String> {
    let events = doc["traceEvents"].as_array().ok_or("no traceEvents array")?;
    let mut open: std::collections::HashMap<(u64, u64), Vec<(f64, f64)>> = Default::default();
    let mut complete = 0;
    for e in events {
        let ph = e["ph"].as_str().ok_or(format!("no ph: {e}"))?;
        e["name"].as_str().ok_or(format!("no name: {e}"))?;
        let pid = e["pid"].as_u64().ok_or(format!("pid not an integer: {e}"))?;
        let tid = e["tid"].as_u64().ok_or(format!("tid not an integer: {e}"))?;
        match ph {
            "M" => {
                e["args"]["name"].as_str().ok_or(format!("metadata without args.name: {e}"))?;
            }
            "X" => {
                let ts = e["ts"].as_f64().ok_or(format!("ts not a number: {e}"))?;
                let dur = e["dur"].as_f64().ok_or(format!("dur not a number: {e}"))?;
                if ts < 0.0 || dur < 0.0 {
                    return Err(format!("negative time: {e}"));
                }
                // Complete events on one thread nest: each inside the one still open before it.
                let stack = open.entry((pid, tid)).or_default();
                while stack.last().is_some_and(|&(s, d)| ts >= s + d) {
                    stack.pop();
                }
                if let Some(&(s, d)) = stack.last() {
                    if ts < s || ts + dur > s + d {
                        return Err(format!("{e} overlaps its parent without nesting"));
                    }
                }
                stack.push((ts, dur));
                complete += 1;
            }
            other => return Err(format!("unexpected phase {other}")),
        }
    }
    Ok(complete)
}

#[test]
fn the_timeline_is_a_valid_trace_event_document() {
    let mut t = Timeline::new();
    let call = enoent();
    t.add(&call, 1);
    let mut later = enoent();
    for f in &mut later.frames {
        f.start_ns += 10_000_000;
    }
    t.add(&later, 2);
    let doc: Value = serde_json::from_str(&t.text()).expect("JSON");
    assert_eq!(check_trace_events(&doc), Ok(12));
    assert_eq!(doc["displayTimeUnit"], "ns");
    let events = doc["traceEvents"].as_array().unwrap();
    // Named once per thread.
    assert_eq!(events.iter().filter(|e| e["ph"] == "M").count(), 2);
    let first = events.iter().find(|e| e["ph"] == "X").unwrap();
    assert_eq!(first["name"], "do_sys_openat2");
    assert_eq!(first["ts"], 1000.0);
    assert_eq!(first["dur"], 25.14);
    assert_eq!(first["args"]["filename"], "\"/nonexistent/dir/f\"");
    let origin = events.iter().find(|e| e["args"]["origin"] == true).unwrap();
    assert_eq!(origin["name"], "lookup_slow");
}

#[test]
fn a_path_that_does_not_nest_is_refused_by_the_check() {
    let mut call = enoent();
    call.frames[2].duration_ns = 1_000_000;
    let mut t = Timeline::new();
    t.add(&call, 1);
    let doc: Value = serde_json::from_str(&t.text()).unwrap();
    assert!(check_trace_events(&doc).is_err());
}
