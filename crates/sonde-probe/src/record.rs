//! `--json`: each trace_pipe line as its record, a `probe_event`, or a `probe_frame` for the
//! lines of the stack printed under an event (`-s`); the stack's own heading line
//! (`<stack trace>`) has none.

use crate::format::parse_event;
use serde_json::{json, Map, Value};
use sonde_output::{Record, Type};

/// One trace_pipe line (without its newline); `labels` as for [`crate::format::format_line`].
pub fn record(line: &str, labels: &[(String, String)]) -> Option<Record> {
    let Some(e) = parse_event(line, labels) else {
        let frame = line.trim().trim_start_matches("=> ");
        return Some(Record::new(Type::ProbeFrame, json!({ "frame": frame })));
    };
    if e.args.is_empty() && e.text.as_deref().is_some_and(is_stack_heading) {
        return None;
    }
    let args: Map<String, Value> = e
        .args
        .into_iter()
        .map(|(name, value)| {
            let v = value.parse::<i64>().map_or(Value::from(value), Value::from);
            (name, v)
        })
        .collect();
    let mut data = json!({
        "time": e.time.parse::<f64>().ok(), "comm": e.comm, "pid": e.pid, "cpu": e.cpu,
        "probe": e.probe, "site": e.site, "args": args,
    });
    if let Some(t) = e.text {
        data["text"] = Value::from(t);
    }
    Some(Record::new(Type::ProbeEvent, data))
}

/// `<stack trace>` (the stacktrace option's), `<user stack trace>` (userstacktrace's).
fn is_stack_heading(text: &str) -> bool {
    text.starts_with('<') && text.ends_with("stack trace>")
}
