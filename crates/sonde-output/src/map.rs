//! Whole maps as text, bpftrace style: what sonde prints at exit and for `print(@m)`.
//!
//! Every dump ends with a blank line, as bpftrace's does. Entries are sorted ascending: plain
//! maps by value, histograms by their total count, stats by average; ties by key. Map
//! names are printed as given, with `@` prepended if missing.

use crate::hist::{self, Bucket};
use crate::value::{SortKey, Value};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HistKind {
    /// hist()/quantize(): power-of-two buckets.
    Quantize,
    /// bpftrace's hist(v, k), k in 1..=5: each power of two split into 2^k buckets.
    Fine { bits: u8 },
    /// lhist(v, min, max, step).
    Linear { min: i64, max: i64, step: i64 },
}

impl HistKind {
    /// The displayed buckets (lowest to highest non-empty) for one key.
    pub fn buckets(self, counts: &[(u32, u64)]) -> Vec<Bucket> {
        match self {
            HistKind::Quantize => hist::quantize_buckets(counts),
            HistKind::Fine { bits } => hist::fine_buckets(u32::from(bits), counts),
            HistKind::Linear { min, max, step } => hist::lhist_buckets(min, max, step, counts),
        }
    }
}

/// One histogram entry: `(keys, [(bucket index, count)])`, buckets in any order.
pub type HistEntry = (Vec<Value>, Vec<(u32, u64)>);

/// One stats() entry: `(keys, count, average, total)`. avg() maps are plain maps of their
/// average and go through [`map_text`].
pub type StatsEntry = (Vec<Value>, u64, Value, Value);

/// `@name`, adding the `@` if the caller left it off.
pub fn display_name(name: &str) -> String {
    if name.starts_with('@') {
        name.to_string()
    } else {
        format!("@{name}")
    }
}

/// `@name[k1, k2]`, or `@name` with no keys.
pub fn key_text(name: &str, keys: &[Value]) -> String {
    let name = display_name(name);
    if keys.is_empty() {
        return name;
    }
    let keys: Vec<String> = keys.iter().map(Value::to_string).collect();
    format!("{name}[{}]", keys.join(", "))
}

/// Entries in print order: ascending by `rank`, then by key.
pub(crate) fn sorted<T>(
    entries: &[(Vec<Value>, T)],
    rank: impl Fn(&T) -> SortKey,
) -> Vec<&(Vec<Value>, T)> {
    let mut out: Vec<_> = entries.iter().collect();
    out.sort_by(|a, b| rank(&a.1).cmp(&rank(&b.1)).then_with(|| cmp_keys(&a.0, &b.0)));
    out
}

pub(crate) fn cmp_keys(a: &[Value], b: &[Value]) -> Ordering {
    let key = |ks: &[Value]| ks.iter().map(Value::sort_key).collect::<Vec<_>>();
    key(a).cmp(&key(b))
}

pub(crate) fn hist_total(counts: &[(u32, u64)]) -> SortKey {
    SortKey::Int(counts.iter().map(|&(_, c)| c as i128).sum())
}

/// `@name[k1, k2]: value` per entry, then a blank line.
pub fn map_text(name: &str, entries: &[(Vec<Value>, Value)]) -> String {
    let mut out = String::new();
    for (keys, value) in sorted(entries, Value::sort_key) {
        out += &format!("{}: {value}\n", key_text(name, keys));
    }
    out + "\n"
}

/// Per entry `@name[key]:`, the histogram lines, and a blank line.
pub fn hist_map_text(name: &str, entries: &[HistEntry], kind: HistKind) -> String {
    let mut out = String::new();
    for (keys, counts) in sorted(entries, |c| hist_total(c)) {
        out += &format!("{}:\n", key_text(name, keys));
        for line in hist::render(&kind.buckets(counts)) {
            out += &line;
            out.push('\n');
        }
        out.push('\n');
    }
    if entries.is_empty() {
        out.push('\n');
    }
    out
}

/// `@name[k]: count 3, average 2, total 6` per entry, sorted by average, then a blank line.
pub fn stats_text(name: &str, entries: &[StatsEntry]) -> String {
    let mut out = String::new();
    for (keys, count, avg, total) in sorted_stats(entries) {
        // bpftrace's current spelling, a C designated initialiser.
        let line = format!("{{ .count = {count}, .average = {avg}, .total = {total} }}");
        out += &format!("{}: {line}\n", key_text(name, keys));
    }
    out + "\n"
}

/// Stats entries in print order: by average, then by key.
pub(crate) fn sorted_stats(entries: &[StatsEntry]) -> Vec<&StatsEntry> {
    let mut out: Vec<_> = entries.iter().collect();
    out.sort_by(|a, b| a.2.cmp_sort(&b.2).then_with(|| cmp_keys(&a.0, &b.0)));
    out
}

#[cfg(test)]
mod tests;
