//! sonde's histogram buckets as Prometheus's cumulative `le` buckets.
//!
//! sonde counts integers. `hist()` bucket k >= 2 holds `[2^(k-2), 2^(k-1))` (bucket 1 holds 0,
//! bucket 0 the negative values; sonde-output's `hist` module is the reference), and `le` is an
//! inclusive bound, so for integers the bucket's `le` is `2^(k-1) - 1`, exactly: `le="0"`,
//! `"1"`, `"3"`, `"7"`, ... `"1023"`, up to `2^64 - 1`. `lhist(v, min, max, step)`'s bucket i
//! in `1..=n` holds `[min + (i-1)*step, min + i*step)`, so its `le` is `min + i*step - 1`;
//! bucket 0 (below `min`) is `le = min - 1` and the last one (`max` and above) only `+Inf`.

use crate::model::Bound;

/// Which kind of sonde histogram, with what it needs to place its buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// `hist()`: signed values may land in bucket 0 (negative).
    Log2 {
        signed: bool,
    },
    Linear {
        min: i64,
        max: i64,
        step: i64,
    },
}

impl Scale {
    /// The lowest bucket ever written: log2 from `le="0"` (or `le="-1"` when the value is
    /// signed), linear from `le=min-1`.
    pub fn lowest(self) -> u32 {
        match self {
            Scale::Log2 { signed: false } => 1,
            _ => 0,
        }
    }

    /// The highest bucket with a finite bound.
    pub fn highest(self) -> u32 {
        match self {
            Scale::Log2 { .. } => sonde_output::hist::QUANTIZE_BUCKETS - 1,
            Scale::Linear { .. } => self.linear_steps() as u32,
        }
    }

    /// lhist's n: `(max - min) / step` (the buckets between the two open ones), capped so an
    /// absurd lhist cannot ask for billions of buckets (sonde's compiler refuses those anyway).
    fn linear_steps(self) -> u64 {
        match self {
            Scale::Linear { min, max, step } if step > 0 && max > min => {
                ((max as i128 - min as i128) / step as i128).min(u32::MAX as i128 - 1) as u64
            }
            _ => 0,
        }
    }

    /// Bucket `index`'s inclusive upper bound for integer values.
    pub fn bound(self, index: u32) -> Bound {
        match self {
            Scale::Log2 { .. } => match index {
                0 => Bound::Le(-1),
                1 => Bound::Le(0),
                k if k < sonde_output::hist::QUANTIZE_BUCKETS => Bound::Le((1i128 << (k - 1)) - 1),
                _ => Bound::Inf,
            },
            Scale::Linear { min, step, .. } => {
                if index as u64 > self.linear_steps() {
                    Bound::Inf
                } else {
                    Bound::Le(min as i128 + index as i128 * step as i128 - 1)
                }
            }
        }
    }
}

/// Cumulative counts for buckets `scale.lowest()..=top` (capped at the highest finite one),
/// then `+Inf`; `counts` are sonde's (bucket index, count) pairs in any order.
pub fn cumulative(scale: Scale, counts: &[(u32, u64)], top: u32) -> Vec<(Bound, u64)> {
    let top = top.min(scale.highest());
    let mut out = Vec::new();
    let mut running = 0u64;
    let at = |i: u32| counts.iter().filter(move |&&(b, _)| b == i).map(|&(_, c)| c);
    // Counts under the lowest written bucket cannot exist (see `lowest`), but are kept in the
    // total rather than dropped.
    for i in 0..scale.lowest() {
        running = at(i).fold(running, u64::saturating_add);
    }
    for i in scale.lowest()..=top {
        running = at(i).fold(running, u64::saturating_add);
        out.push((scale.bound(i), running));
    }
    let total = counts.iter().fold(0u64, |t, &(_, c)| t.saturating_add(c));
    out.push((Bound::Inf, total));
    out
}

/// The highest bucket index holding anything in `counts`.
pub fn highest_used(counts: &[(u32, u64)]) -> Option<u32> {
    counts.iter().filter(|&&(_, c)| c > 0).map(|&(i, _)| i).max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sonde_output::hist::{lhist_index, quantize_index};

    #[test]
    fn log2_bounds_are_the_last_integer_of_each_bucket() {
        let s = Scale::Log2 { signed: false };
        assert_eq!(s.bound(1), Bound::Le(0));
        assert_eq!(s.bound(2), Bound::Le(1));
        assert_eq!(s.bound(3), Bound::Le(3));
        assert_eq!(s.bound(11), Bound::Le(1023));
        assert_eq!(s.bound(65), Bound::Le(u64::MAX as i128));
        assert_eq!(Scale::Log2 { signed: true }.bound(0), Bound::Le(-1));
        // Every integer lands in the bucket whose bound is the first >= it (what `le` means).
        for v in [0u64, 1, 2, 3, 4, 7, 8, 1000, 1023, 1024, 1 << 40, u64::MAX] {
            let Bound::Le(le) = s.bound(quantize_index(v, false)) else { panic!() };
            assert!(v as i128 <= le, "{v} > {le}");
            let k = quantize_index(v, false);
            if k > 1 {
                let Bound::Le(prev) = s.bound(k - 1) else { panic!() };
                assert!(v as i128 > prev, "{v} <= {prev}");
            }
        }
    }

    #[test]
    fn linear_bounds_follow_lhist() {
        let s = Scale::Linear { min: 0, max: 100, step: 10 };
        assert_eq!(s.bound(0), Bound::Le(-1));
        assert_eq!(s.bound(1), Bound::Le(9));
        assert_eq!(s.bound(10), Bound::Le(99));
        assert_eq!(s.bound(11), Bound::Inf);
        for v in [-5i64, 0, 9, 10, 55, 99, 100, 1000] {
            let k = lhist_index(v, 0, 100, 10);
            match s.bound(k) {
                Bound::Le(le) => assert!((v as i128) <= le && (k == 0 || v as i128 > le - 10)),
                Bound::Inf => assert!(v >= 100),
            }
        }
    }

    #[test]
    fn cumulative_counts_run_up_to_the_total() {
        let s = Scale::Log2 { signed: false };
        // 2 zeros, 3 values in [4, 8), 1 in [1024, 2048).
        let got = cumulative(s, &[(4, 3), (1, 2), (12, 1)], 12);
        assert_eq!(got.first(), Some(&(Bound::Le(0), 2)));
        assert_eq!(got[3], (Bound::Le(7), 5));
        assert_eq!(got[10], (Bound::Le(1023), 5));
        assert_eq!(got[11], (Bound::Le(2047), 6));
        assert_eq!(got.last(), Some(&(Bound::Inf, 6)));
        assert_eq!(got.len(), 13);
    }

    #[test]
    fn the_top_is_capped_at_the_last_finite_bucket() {
        let s = Scale::Linear { min: 0, max: 30, step: 10 };
        let got = cumulative(s, &[(4, 2), (1, 1)], 4);
        let bounds: Vec<Bound> = got.iter().map(|b| b.0).collect();
        assert_eq!(bounds, [Bound::Le(-1), Bound::Le(9), Bound::Le(19), Bound::Le(29), Bound::Inf]);
        assert_eq!(got.last().unwrap().1, 3);
        assert_eq!(highest_used(&[(4, 2), (9, 0), (1, 1)]), Some(4));
        assert_eq!(highest_used(&[]), None);
    }
}
