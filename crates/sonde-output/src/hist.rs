//! Histograms as bpftrace prints them.
//!
//! Bucket indices (the BPF side computes them; [`quantize_index`] and [`lhist_index`] are the
//! reference):
//! - quantize/hist: 0 = negative values, 1 = 0, k >= 2 = values in [2^(k-2), 2^(k-1)):
//!   1 -> 2, 2..3 -> 3, 4..7 -> 4, ..., 2^63..2^64-1 -> 65. So 66 buckets.
//! - lhist(min, max, step), n = (max - min) / step: 0 = below min, i in 1..=n =
//!   [min + (i-1)*step, min + i*step), n+1 = max and above.
//!
//! Text lines copy bpftrace's `std::setw(16) << left << label << setw(8) << right << count
//! << " |" << setw(52) << left << bar << "|"`: label left-aligned in 16 columns (longer labels
//! push the rest right), count right-aligned in 8, then ` |`, 52 columns of `@` scaled to the
//! largest bucket (computed in f32 and truncated, as bpftrace does), and `|`. Only the buckets
//! from the lowest to the highest non-empty one are shown.

use std::collections::BTreeMap;

/// Width of the `@` bar for the largest bucket.
pub const BAR_WIDTH: usize = 52;
/// Buckets a quantize histogram can have (indices 0..=65).
pub const QUANTIZE_BUCKETS: u32 = 66;

/// One displayed bucket: its label and the inclusive value range JSON reports (`None` = open).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub index: u32,
    pub label: String,
    pub min: Option<i128>,
    pub max: Option<i128>,
    pub count: u64,
}

/// The quantize bucket for a value (see the module docs).
pub fn quantize_index(v: u64, signed: bool) -> u32 {
    if signed && (v as i64) < 0 {
        0
    } else if v == 0 {
        1
    } else {
        65 - v.leading_zeros()
    }
}

/// The lhist bucket for a value (see the module docs). As in bpftrace, when `step` does not
/// divide `max - min`, values from `min + n*step` up also land in the last bucket.
pub fn lhist_index(v: i64, min: i64, max: i64, step: i64) -> u32 {
    let (v, min, max, step) = (v as i128, min as i128, max as i128, step as i128);
    let n = (max - min) / step;
    if v < min {
        0
    } else {
        (1 + (v.min(max) - min) / step).min(n + 1) as u32
    }
}

/// Non-empty buckets by index, summing repeated indices and dropping those past `last`.
fn sparse(buckets: &[(u32, u64)], last: i128) -> BTreeMap<u32, u64> {
    let mut counts = BTreeMap::new();
    for &(i, c) in buckets {
        if c > 0 && i as i128 <= last {
            let slot = counts.entry(i).or_insert(0u64);
            *slot = slot.saturating_add(c);
        }
    }
    counts
}

/// Indices lowest..=highest non-empty, each through `describe`.
fn trimmed(
    counts: &BTreeMap<u32, u64>,
    describe: impl Fn(u32) -> (String, Option<i128>, Option<i128>),
) -> Vec<Bucket> {
    let (Some((&lo, _)), Some((&hi, _))) = (counts.first_key_value(), counts.last_key_value())
    else {
        return Vec::new();
    };
    (lo..=hi)
        .map(|i| {
            let (label, min, max) = describe(i);
            let count = counts.get(&i).copied().unwrap_or(0);
            Bucket { index: i, label, min, max, count }
        })
        .collect()
}

/// `1 << power` with a K/M/G/T/P/E suffix for each factor of 1024, like bpftrace.
fn pow2_label(power: u32) -> String {
    let decade = (power / 10) as usize;
    let suffix = ["", "K", "M", "G", "T", "P", "E"][decade.min(6)];
    format!("{}{suffix}", 1u64 << (power - 10 * decade.min(6) as u32))
}

pub fn quantize_buckets(buckets: &[(u32, u64)]) -> Vec<Bucket> {
    trimmed(&sparse(buckets, QUANTIZE_BUCKETS as i128 - 1), |i| match i {
        0 => ("(..., 0)".into(), None, Some(-1)),
        1 => ("[0]".into(), Some(0), Some(0)),
        2 => ("[1]".into(), Some(1), Some(1)),
        k => {
            let label = format!("[{}, {})", pow2_label(k - 2), pow2_label(k - 1));
            (label, Some(1i128 << (k - 2)), Some((1i128 << (k - 1)) - 1))
        }
    })
}

/// bpftrace's hist(v, k): index 0 holds the negative values; value n below 2^k has index n + 1;
/// a larger n, its highest set bit at `l + k`, has index `((l + 1) << k) + x + 1` where x is the
/// k bits below that bit, so each power of two is split into 2^k buckets of 2^l values.
pub fn fine_index(v: u64, signed: bool, k: u32) -> u32 {
    let mask = (1u64 << k) - 1;
    if signed && (v as i64) < 0 {
        return 0;
    }
    if v <= mask {
        return v as u32 + 1;
    }
    let l = 63 - v.leading_zeros() - k;
    let x = (v >> l) & mask;
    (((l + 1) << k) as u64 + x + 1) as u32
}

/// The smallest value of fine bucket `i` (i >= 1), as a label and a number: bpftrace's
/// `hist_index_label` of i - 1, with a K/M/G/T/P/E suffix for each factor of 1024.
fn fine_low(i: u32, k: u32) -> (String, i128) {
    let j = i - 1;
    let n = 1u32 << k;
    if j < n {
        return (j.to_string(), j as i128);
    }
    let interval = j & (n - 1);
    let power = (j >> k) - 1;
    let value = (1i128 << power) * (n + interval) as i128;
    let decade = (power / 10).min(6);
    let suffix = ["", "K", "M", "G", "T", "P", "E"][decade as usize];
    let label = (1i128 << (power - 10 * decade)) * (n + interval) as i128;
    (format!("{}{}", label, suffix), value)
}

/// The buckets of hist(v, k): `[lo, hi)` between one bucket's smallest value and the next's,
/// `[n]` for a bucket of one value, as bpftrace labels them.
pub fn fine_buckets(k: u32, buckets: &[(u32, u64)]) -> Vec<Bucket> {
    let last = ((65 - k as i128) << k) + 1;
    trimmed(&sparse(buckets, last), |i| {
        if i == 0 {
            return ("(..., 0)".into(), None, Some(-1));
        }
        let (lo_label, lo) = fine_low(i, k);
        let (hi_label, hi) = fine_low(i + 1, k);
        let label = if hi == lo + 1 {
            format!("[{}]", lo_label)
        } else {
            format!("[{}, {})", lo_label, hi_label)
        };
        (label, Some(lo), Some(hi - 1))
    })
}

/// bpftrace (0.20+) uses K/M suffixes only when the step is a multiple of 1024, so all the
/// labels of one histogram are in the same style.
fn lhist_label(x: i128, step: i128) -> String {
    const K: i128 = 1024;
    const M: i128 = 1024 * 1024;
    if step % K != 0 || x == 0 {
        x.to_string()
    } else if x % M == 0 {
        format!("{}M", x / M)
    } else if x % K == 0 {
        format!("{}K", x / K)
    } else {
        x.to_string()
    }
}

pub fn lhist_buckets(min: i64, max: i64, step: i64, buckets: &[(u32, u64)]) -> Vec<Bucket> {
    if step <= 0 || max <= min {
        return Vec::new();
    }
    let n = (max as i128 - min as i128) / step as i128;
    // i128 so the label arithmetic cannot overflow; every bound shown fits in i64.
    let (min, max, step) = (min as i128, max as i128, step as i128);
    let lab = |x: i128| lhist_label(x, step);
    trimmed(&sparse(buckets, n + 1), |i| {
        let i = i as i128;
        if i == 0 {
            (format!("(..., {})", lab(min)), None, Some(min - 1))
        } else if i == n + 1 {
            (format!("[{}, ...)", lab(max)), Some(max), None)
        } else {
            let lo = min + (i - 1) * step;
            let hi = lo + step;
            (format!("[{}, {})", lab(lo), lab(hi)), Some(lo), Some(hi - 1))
        }
    })
}

/// The text lines (no trailing newlines) for displayed buckets.
pub fn render(buckets: &[Bucket]) -> Vec<String> {
    let top = buckets.iter().map(|b| b.count).max().unwrap_or(0);
    buckets
        .iter()
        .map(|b| {
            let bar = (b.count as f32 / top as f32 * BAR_WIDTH as f32) as usize;
            let bar = "@".repeat(bar.min(BAR_WIDTH));
            format!("{:<16}{:>8} |{bar:<BAR_WIDTH$}|", b.label, b.count)
        })
        .collect()
}

pub fn quantize_lines(buckets: &[(u32, u64)]) -> Vec<String> {
    render(&quantize_buckets(buckets))
}

pub fn lhist_lines(min: i64, max: i64, step: i64, buckets: &[(u32, u64)]) -> Vec<String> {
    render(&lhist_buckets(min, max, step, buckets))
}

#[cfg(test)]
mod tests;
