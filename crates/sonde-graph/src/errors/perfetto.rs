//! `-m perfetto`: the failed calls as a timeline in the Chrome trace event format (the JSON
//! object form, `{"traceEvents": [...]}`), which ui.perfetto.dev and chrome://tracing open: one
//! complete event (`"ph": "X"`) per frame of each failing path, nested on its thread's track,
//! with the result in its `args`, and the processes' and threads' names as metadata events.

use super::path::FailedCall;
use serde_json::{json, Value};
use std::collections::HashSet;

#[derive(Default)]
pub struct Timeline {
    events: Vec<Value>,
    named: HashSet<(u32, u32)>,
}

impl Timeline {
    pub fn new() -> Timeline {
        Timeline::default()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn add(&mut self, call: &FailedCall, index: u64) {
        if self.named.insert((call.pid, call.tid)) {
            for (what, pid) in [("process_name", call.pid), ("thread_name", call.tid)] {
                self.events.push(json!({
                    "name": what, "ph": "M", "pid": call.pid, "tid": call.tid,
                    "args": { "name": format!("{}-{pid}", call.comm) },
                }));
            }
        }
        for (depth, f) in call.frames.iter().enumerate() {
            let mut args = json!({ "result": f.result_text(), "call": index });
            if depth == 0 {
                for a in &call.args {
                    args[a.name.as_str()] = Value::String(a.text.clone());
                }
            }
            if depth + 1 == call.frames.len() {
                args["origin"] = Value::Bool(true);
            }
            self.events.push(json!({
                "name": f.name,
                "cat": "error",
                "ph": "X",
                "ts": micros(f.start_ns),
                "dur": micros(f.duration_ns),
                "pid": call.pid,
                "tid": call.tid,
                "args": args,
            }));
        }
    }

    /// The whole document.
    pub fn text(&self) -> String {
        let doc = json!({
            "traceEvents": self.events,
            "displayTimeUnit": "ns",
            "otherData": { "producer": "sonde graph --errors" },
        });
        doc.to_string() + "\n"
    }
}

/// The format's timestamps are microseconds; fractions keep the nanoseconds.
fn micros(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

#[cfg(test)]
mod tests;
