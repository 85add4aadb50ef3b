//! The terminal view of one call: an indented tree, total and own time per function, the
//! branches that took at least half of the call's time marked with `!` so the slow path stands
//! out (the heading gives task, CPUs and context switches).

use crate::tree::{Call, Node};
use std::fmt::Write;

/// A duration for people: `812 ns`, `18.030 us`, `4.200 ms`, `1.500 s`.
pub fn duration(ns: u64) -> String {
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{}.{:03} us", ns / 1_000, ns % 1_000),
        1_000_000..=999_999_999 => format!("{}.{:03} ms", ns / 1_000_000, ns / 1_000 % 1_000),
        _ => format!("{}.{:03} s", ns / 1_000_000_000, ns / 1_000_000 % 1_000),
    }
}

/// One call as text: a heading, then `total own  [!]name` lines.
pub fn tree(call: &Call, index: u64) -> String {
    let mut s = String::new();
    let cpus: Vec<String> = call.cpus.iter().map(u32::to_string).collect();
    let _ = write!(
        s,
        "call {index}: {} in {}-{}, cpu {}",
        call.root.name,
        call.task.comm,
        call.task.pid,
        cpus.join(",")
    );
    if call.switches > 0 {
        let _ = write!(
            s,
            ", {} context switch{}",
            call.switches,
            if call.switches == 1 { "" } else { "es" }
        );
    }
    s.push_str("\n         total          own\n");
    let slow = call.root.total_ns.unwrap_or(0) / 2;
    node(&mut s, &call.root, 0, slow);
    s
}

fn node(s: &mut String, n: &Node, depth: usize, slow: u64) {
    let total = n.total_ns.map(duration).unwrap_or_else(|| "?".into());
    let mark = if depth > 0 && n.total_ns.unwrap_or(0) >= slow && slow > 0 { '!' } else { ' ' };
    let irq = if n.irq { "  [irq]" } else { "" };
    let ret = n.retval.as_deref().map(|r| format!(" = {}", retval(r))).unwrap_or_default();
    let _ = writeln!(
        s,
        "{total:>14} {:>12} {mark}{:indent$}{}{ret}{irq}",
        duration(n.own_ns()),
        "",
        n.name,
        indent = depth * 2
    );
    for c in &n.children {
        node(s, c, depth + 1, slow);
    }
}

/// A return value as the tracer prints it (errors in signed decimal, the rest in hex), with
/// errors named: `-2` -> `-ENOENT`.
pub fn retval(r: &str) -> String {
    let named = r.parse::<i64>().ok().and_then(sonde_trace::errno::of_return);
    match named.and_then(sonde_trace::errno::name) {
        Some(n) => format!("-{n}"),
        None => r.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_values_name_their_errors() {
        assert_eq!(retval("-2"), "-ENOENT");
        assert_eq!(retval("0x10"), "0x10");
        assert_eq!(retval("-4096"), "-4096");
    }

    #[test]
    fn durations_read_in_the_right_unit() {
        assert_eq!(duration(812), "812 ns");
        assert_eq!(duration(18_030), "18.030 us");
        assert_eq!(duration(4_200_000), "4.200 ms");
        assert_eq!(duration(1_500_000_000), "1.500 s");
    }
}
