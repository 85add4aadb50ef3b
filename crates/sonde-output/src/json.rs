//! bpftrace-compatible JSON lines (`-f json`): one object per line, spaced exactly as bpftrace
//! writes them (`{"type": "map", "data": {"@": {"bash": 3}}}`: a space after every `:` and
//! after the `,` between members; tuples/arrays of values are `[a,b]` with no space, and
//! lists of objects such as histogram buckets `[{...}, {...}]` with one, both as in bpftrace).
//! That is why this module writes the text itself instead of using serde_json's printer. The
//! envelope and the records every face shares are in [`crate::record`].
//!
//! Functions return the line without its trailing newline. A map with no entries gives
//! `{"@name": {}}` (bpftrace would print nothing; a line is easier to consume).

use crate::hist::Bucket;
use crate::map::{display_name, hist_total, sorted, sorted_stats, HistEntry, HistKind, StatsEntry};
use crate::record::{envelope, Record, Type};
use crate::value::Value;

/// A JSON string literal, escaping as bpftrace does (`\"`, `\\`, `\n`, `\r`, `\t`, other
/// control characters as `\u00XX`).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Any JSON value in bpftrace's spacing: `{"k": v, "k2": v2}`, `[a,b]`, and `[{...}, {...}]`
/// for a list of objects.
pub fn to_string(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "null".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => n.to_string(),
        J::String(s) => quote(s),
        J::Array(items) => {
            let objects = !items.is_empty() && items.iter().all(J::is_object);
            format!("[{}]", join(items.iter().map(to_string), if objects { ", " } else { "," }))
        }
        J::Object(m) => {
            let members = m.iter().map(|(k, v)| format!("{}: {}", quote(k), to_string(v)));
            format!("{{{}}}", join(members, ", "))
        }
    }
}

fn join(items: impl Iterator<Item = String>, sep: &str) -> String {
    items.collect::<Vec<_>>().join(sep)
}

/// A text message of type `kind` (bpftrace uses this for printf, time, cat, join, syscall).
/// printf output is bytes: pass `&String::from_utf8_lossy(&bytes)`.
pub fn message(kind: &str, text: &str) -> String {
    envelope(kind, &quote(text))
}

/// bpftrace's `warnf`/`errorf` object: `{"type": "warnf", "msg": ..., "filename": ...,
/// "line": N, "col": N}`.
pub fn located(level: &str, text: &str, at: &crate::writer::SourceAt) -> String {
    let kind = if level == "ERROR" { "errorf" } else { "warnf" };
    format!(
        "{{\"type\": {}, \"msg\": {}, \"filename\": {}, \"line\": {}, \"col\": {}}}",
        quote(kind),
        quote(text),
        quote(&at.file),
        at.line,
        at.col
    )
}

pub fn printf(text: &str) -> String {
    message(Type::Printf.name(), text)
}

pub fn attached_probes(n: usize) -> String {
    Record::attached_probes(n).to_string()
}

pub fn lost_events(n: u64) -> String {
    Record::lost_events(n).to_string()
}

/// Runs of one probe the kernel skipped (sonde's own record; bpftrace has none).
pub fn missed_runs(probe: &str, runs: u64) -> String {
    Record::missed_runs(probe, runs).to_string()
}

/// A value as [`to_string`] writes its JSON, but a record's fields in the record's own order
/// (serde_json's objects sort their members).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Record(fields) => {
            let members = fields.iter().map(|(n, v)| format!("{}: {}", quote(n), value_text(v)));
            format!("{{{}}}", join(members, ", "))
        }
        Value::Tuple(items) => {
            let objects = !items.is_empty() && items.iter().all(|v| matches!(v, Value::Record(_)));
            format!("[{}]", join(items.iter().map(value_text), if objects { ", " } else { "," }))
        }
        _ => to_string(&v.to_json()),
    }
}

/// `print(expr)` of a non-map value.
pub fn value(v: &Value) -> String {
    envelope(Type::Value.name(), &value_text(v))
}

/// `{"@name": {"k1,k2": v, ...}}`, or `{"@name": v}` when the map has no keys.
fn map_data<'a>(name: &str, entries: impl IntoIterator<Item = (&'a Vec<Value>, String)>) -> String {
    let name = quote(&display_name(name));
    let mut members = Vec::new();
    for (keys, v) in entries {
        if keys.is_empty() {
            return format!("{{{name}: {v}}}");
        }
        let key: Vec<String> = keys.iter().map(Value::json_text).collect();
        members.push(format!("{}: {v}", quote(&key.join(","))));
    }
    format!("{{{name}: {{{}}}}}", members.join(", "))
}

pub fn map(name: &str, entries: &[(Vec<Value>, Value)]) -> String {
    map_as(Type::Map, name, entries)
}

/// A map of values as a record of type `kind`: bpftrace writes `avg()` maps as `stats`.
pub fn map_as(kind: Type, name: &str, entries: &[(Vec<Value>, Value)]) -> String {
    let items = sorted(entries, Value::sort_key).into_iter().map(|(k, v)| (k, value_text(v)));
    envelope(kind.name(), &map_data(name, items))
}

fn buckets_json(buckets: &[Bucket]) -> String {
    let items = buckets.iter().map(|b| {
        let mut fields = Vec::new();
        if let Some(min) = b.min {
            fields.push(format!("\"min\": {min}"));
        }
        if let Some(max) = b.max {
            fields.push(format!("\"max\": {max}"));
        }
        fields.push(format!("\"count\": {}", b.count));
        format!("{{{}}}", fields.join(", "))
    });
    format!("[{}]", join(items, ", "))
}

pub fn hist(name: &str, entries: &[HistEntry], kind: HistKind) -> String {
    let items = sorted(entries, |c| hist_total(c))
        .into_iter()
        .map(|(k, c)| (k, buckets_json(&kind.buckets(c))));
    envelope(Type::Hist.name(), &map_data(name, items))
}

/// `{"count": 3, "average": 2, "total": 6}` per key.
pub fn stats(name: &str, entries: &[StatsEntry]) -> String {
    let items = sorted_stats(entries).into_iter().map(|(k, count, avg, total)| {
        (
            k,
            format!(
                "{{\"count\": {count}, \"average\": {}, \"total\": {}}}",
                to_string(&avg.to_json()),
                to_string(&total.to_json())
            ),
        )
    });
    envelope(Type::Stats.name(), &map_data(name, items))
}

/// tseries() maps as a `map` record: per key, `[interval start (ns since the epoch), value]`
/// for each interval that has a value, oldest first (bpftrace skips the empty ones too).
/// bpftrace's `tseries` record: per key, the intervals that have a value, each
/// `{"interval_start": "YYYY-MM-DD HH:MM:SS.NNNNNNNNN", "value": V}` (UTC, as C++ prints a
/// system_clock time).
pub fn tseries(name: &str, entries: &[crate::tseries::SeriesEntry]) -> String {
    let items = entries.iter().map(|(k, s)| {
        let points: Vec<String> = s
            .points
            .iter()
            .filter_map(|(t, v)| {
                let value = to_string(&v.as_ref()?.to_json());
                Some(format!("{{\"interval_start\": {}, \"value\": {value}}}", quote(&utc(*t))))
            })
            .collect();
        (k, format!("[{}]", points.join(", ")))
    });
    envelope(Type::Tseries.name(), &map_data(name, items))
}

/// Nanoseconds since the epoch as `YYYY-MM-DD HH:MM:SS.NNNNNNNNN`, UTC.
fn utc(unix_ns: u64) -> String {
    let secs = unix_ns / 1_000_000_000;
    let (y, m, d) = crate::calendar::civil_from_days((secs / 86_400) as i64);
    let day = secs % 86_400;
    let (h, min, s) = (day / 3600, day / 60 % 60, day % 60);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{min:02}:{s:02}.{:09}", unix_ns % 1_000_000_000)
}

#[cfg(test)]
mod tests;
