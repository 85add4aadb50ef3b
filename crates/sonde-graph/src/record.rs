//! `--json`: each call as a `graph_call` record, and the closing `graph_summary` (the binary
//! writes `lost_events` after it).

use crate::tree::{Call, Node};
use serde_json::{json, Value};
use sonde_output::{Record, Type};

/// The `index`th call (from 1), with its tree.
pub fn call(index: u64, call: &Call) -> Record {
    Record::new(
        Type::GraphCall,
        json!({
            "index": index,
            "comm": call.task.comm,
            "pid": call.task.pid,
            "cpus": call.cpus,
            "switches": call.switches,
            "tree": node(&call.root),
        }),
    )
}

/// After the calls: how many of `function` were written, and how many were left out because
/// entries of theirs were lost.
pub fn summary(function: &str, calls: u64, incomplete_calls: u64) -> Record {
    let data =
        json!({ "function": function, "calls": calls, "incomplete_calls": incomplete_calls });
    Record::new(Type::GraphSummary, data)
}

fn node(n: &Node) -> Value {
    let mut v = json!({
        "name": n.name,
        "total_ns": n.total_ns,
        "own_ns": n.own_ns(),
        "irq": n.irq,
        "children": n.children.iter().map(node).collect::<Vec<_>>(),
    });
    // Only where the kernel gives return values (funcgraph-retval, 6.5+).
    if let Some(r) = &n.retval {
        v["retval"] = Value::String(r.clone());
    }
    v
}
