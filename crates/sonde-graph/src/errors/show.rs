//! A failed call as text (retsnoop's question answered in the graph's tree style), as a folded
//! stack, and as a `graph_error` JSON record.

use super::path::FailedCall;
use crate::folded::Folded;
use crate::render::duration;
use serde_json::json;
use sonde_output::{Record, Type};
use std::fmt::Write;

/// The `index`th failed call: a heading, the entry function's arguments, then one line per
/// frame of the failing path (total time, result, name), the function it came from marked.
pub fn tree(call: &FailedCall, index: u64) -> String {
    let mut s = String::new();
    let Some(entry) = call.frames.first() else { return s };
    // A slow call (--latency) may have succeeded.
    let outcome = if entry.failed() { "failed with" } else { "returned" };
    let _ = writeln!(
        s,
        "call {index}: {} {outcome} {} in {}-{} (tid {}), cpu {}, after {}",
        entry.name,
        entry.result_text(),
        call.comm,
        call.pid,
        call.tid,
        call.cpu,
        duration(entry.duration_ns)
    );
    if !call.args.is_empty() {
        let args: Vec<String> =
            call.args.iter().map(|a| format!("{}={}", a.name, a.text)).collect();
        let _ = writeln!(s, "  {}({})", entry.name, args.join(", "));
    }
    let width = call.frames.iter().map(|f| f.result_text().len()).max().unwrap_or(0).max(6);
    let _ = writeln!(s, "{:>14}  {:<width$}  function", "total", "result");
    let last = call.frames.len() - 1;
    for (depth, f) in call.frames.iter().enumerate() {
        let mark = if depth == last && last > 0 { "  <- the failure starts here" } else { "" };
        let _ = writeln!(
            s,
            "{:>14}  {:<width$}  {:indent$}{}{mark}",
            duration(f.duration_ns),
            f.result_text(),
            "",
            f.name,
            indent = depth * 2
        );
    }
    if call.unreturned > 0 {
        let _ = writeln!(s, "  ({} recorded function(s) returned unseen)", call.unreturned);
    }
    s
}

/// Folded stacks count failed calls by path; the last frame carries its result
/// (`do_sys_openat2;path_openat;lookup_slow_[-ENOENT] 3`).
pub fn fold(folded: &mut Folded, call: &FailedCall) {
    let mut names: Vec<String> = call.frames.iter().map(|f| f.name.clone()).collect();
    if let (Some(last), Some(f)) = (names.last_mut(), call.frames.last()) {
        let _ = write!(last, " [{}]", f.result_text());
    }
    folded.add_stack(&names, 1);
}

pub fn record(call: &FailedCall, index: u64) -> Record {
    let frames: Vec<_> = call
        .frames
        .iter()
        .enumerate()
        .map(|(depth, f)| {
            json!({
                "name": f.name,
                "depth": depth,
                "result": f.result_text(),
                "errno": f.errno(),
                "value": f.result,
                "duration_ns": f.duration_ns,
                "start_ns": f.start_ns,
            })
        })
        .collect();
    let args: Vec<_> = call
        .args
        .iter()
        .map(|a| json!({ "name": a.name, "type": a.ty, "value": a.text }))
        .collect();
    let entry = call.frames.first();
    Record::new(
        Type::GraphError,
        json!({
            "index": index,
            "function": call.function(),
            "comm": call.comm,
            "pid": call.pid,
            "tid": call.tid,
            "cpu": call.cpu,
            "args": args,
            "result": entry.map(|f| f.result_text()).unwrap_or_default(),
            "errno": entry.and_then(|f| f.errno()),
            "duration_ns": entry.map_or(0, |f| f.duration_ns),
            "origin": call.origin().map(|f| f.name.as_str()).unwrap_or_default(),
            "frames": frames,
            "unreturned": call.unreturned,
        }),
    )
}

#[cfg(test)]
pub(crate) mod tests;
