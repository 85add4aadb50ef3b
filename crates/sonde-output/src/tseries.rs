//! bpftrace's `tseries()` maps as text: per key, a graph of the value over the last intervals,
//! one line an interval, as bpftrace draws it (53 columns between the axes, the value's range
//! on top and below, a `.` column for zero when the range spans it, `-` for an interval
//! without a value).

use crate::map::{cmp_keys, key_text};
use crate::value::Value;

/// One key's intervals, oldest first: the start of each (nanoseconds since the epoch, UTC) and
/// its value, `None` for an interval nothing was given in.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub points: Vec<(u64, Option<Value>)>,
    /// The local time zone's offset from UTC, in seconds, for the times printed.
    pub zone_secs: i64,
}

/// One tseries entry: `(keys, series)`.
pub type SeriesEntry = (Vec<Value>, Series);

const WIDTH: usize = 53;
/// The columns the range's minimum takes on the top and bottom lines.
const MIN_COLUMNS: usize = 21;

/// Per entry `@name[key]:`, the graph, and a blank line (entries in key order).
pub fn tseries_map_text(name: &str, entries: &[SeriesEntry]) -> String {
    let mut sorted: Vec<&SeriesEntry> = entries.iter().collect();
    sorted.sort_by(|a, b| cmp_keys(&a.0, &b.0));
    let mut out = String::new();
    for (keys, series) in sorted {
        out += &format!("{}:\n", key_text(name, keys));
        out += &graph(series);
        out.push('\n');
    }
    if entries.is_empty() {
        out.push('\n');
    }
    out
}

/// The graph's lines, each ending in a newline.
pub fn graph(s: &Series) -> String {
    let present: Vec<i128> = s.points.iter().filter_map(|(_, v)| v.as_ref()?.as_i128()).collect();
    let (Some(&lo), Some(&hi)) = (present.iter().min(), present.iter().max()) else {
        return "<no data>\n".into();
    };
    let signed = s.points.iter().any(|(_, v)| matches!(v, Some(Value::Int { signed: true, .. })));
    // A flat line gets room on both sides, within the type's range.
    let (lo, hi) = if lo == hi {
        let (min, max) =
            if signed { (i64::MIN as i128, i64::MAX as i128) } else { (0, u64::MAX as i128) };
        ((lo - 1).max(min), (hi + 1).min(max))
    } else {
        (lo, hi)
    };
    let first = s.points.first().map_or(0, |p| p.0);
    let last = s.points.last().map_or(0, |p| p.0);
    let interval = (last - first) / (s.points.len().max(2) as u64 - 1);
    let digits: u32 = match interval {
        1_000_000_000.. => 0,
        1_000_000.. => 3,
        1_000.. => 6,
        _ => 9,
    };
    let time_fmt = match digits {
        0 => "hh:mm:ss",
        3 => "hh:mm:ss.ms",
        6 => "hh:mm:ss.μs",
        _ => "hh:mm:ss.ns",
    };
    let time_size = 8 + if digits > 0 { 1 + digits as usize } else { 0 };
    let margin = " ".repeat(time_size + 1);
    let range = format!("{:<MIN_COLUMNS$}{:>width$}", lo, hi, width = WIDTH - MIN_COLUMNS);
    let mut out = format!("{margin}{range}\n");
    // The format's name padded by bytes, as bpftrace pads it (μ takes two).
    let pad = (time_size + 1).saturating_sub(time_fmt.len());
    out += &format!("{time_fmt}{}|{}|\n", " ".repeat(pad), "_".repeat(WIDTH - 2));
    let zero = if lo < 0 && hi > 0 {
        (WIDTH as f32 * (-lo) as f32 / (hi - lo) as f32) as usize
    } else {
        0
    };
    for (t, v) in &s.points {
        let mut line = vec![b' '; WIDTH];
        line[0] = b'|';
        line[WIDTH - 1] = b'|';
        if zero > 0 {
            line[zero] = b'.';
        }
        let shown = v.as_ref().and_then(|v| Some((v.as_i128()?, v)));
        let tail = match shown {
            Some((n, v)) => {
                let at = ((WIDTH - 1) as f32 * (n - lo) as f32 / (hi - lo) as f32) as i64;
                line[at.clamp(0, WIDTH as i64 - 1) as usize] = b'*';
                v.to_string()
            }
            None => "-".into(),
        };
        let line = String::from_utf8(line).unwrap_or_default();
        out += &format!("{} {line} {tail}\n", clock(*t, s.zone_secs, digits));
    }
    out += &format!("{margin}v{}v\n", "_".repeat(WIDTH - 2));
    out += &format!("{margin}{range}\n");
    out
}

/// `hh:mm:ss` of `unix_ns` in the zone, then `digits` digits of the second's fraction.
fn clock(unix_ns: u64, zone_secs: i64, digits: u32) -> String {
    let secs = (unix_ns / 1_000_000_000) as i64 + zone_secs;
    let day = secs.rem_euclid(86_400);
    let mut s = format!("{:02}:{:02}:{:02}", day / 3600, day / 60 % 60, day % 60);
    if digits > 0 {
        let frac = unix_ns % 1_000_000_000 / 10u64.pow(9 - digits);
        s += &format!(".{:0width$}", frac, width = digits as usize);
    }
    s
}

#[cfg(test)]
mod tests;
