//! bpftrace's `print(@m, N)`: only the N entries that print last (the largest), in print order;
//! and `print(@m, N, D)`: the values divided by D.

use crate::map::{hist_total, sorted, sorted_stats};
use crate::value::Value;
use crate::writer::MapEntries;

impl MapEntries {
    /// The `n` entries that sort highest (by value, histogram total or average); all when
    /// there are no more than `n`.
    pub fn top(self, n: usize) -> MapEntries {
        fn last<T: Clone>(v: Vec<&T>, n: usize) -> Vec<T> {
            v[v.len().saturating_sub(n)..].iter().map(|e| (*e).clone()).collect()
        }
        match self {
            MapEntries::Values(v) => MapEntries::Values(last(sorted(&v, Value::sort_key), n)),
            MapEntries::Hist(h, kind) => {
                MapEntries::Hist(last(sorted(&h, |c| hist_total(c)), n), kind)
            }
            MapEntries::Stats(s) => MapEntries::Stats(last(sorted_stats(&s), n)),
            // By key, as they print: the last `n` keys.
            MapEntries::Series(mut s) => {
                s.sort_by(|a, b| crate::map::cmp_keys(&a.0, &b.0));
                MapEntries::Series(s.split_off(s.len().saturating_sub(n)))
            }
        }
    }
}

impl MapEntries {
    /// Each integer value divided by `div` (rounded toward zero, as C divides); histograms and
    /// stats as they are.
    pub fn divided(self, div: u64) -> MapEntries {
        if div <= 1 {
            return self;
        }
        match self {
            MapEntries::Values(v) => {
                let quotient = |value: Value| match value {
                    Value::Int { v, signed: true } => {
                        Value::Int { v: ((v as i64) / div as i64) as u64, signed: true }
                    }
                    Value::Int { v, signed: false } => Value::Int { v: v / div, signed: false },
                    other => other,
                };
                MapEntries::Values(v.into_iter().map(|(k, value)| (k, quotient(value))).collect())
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::HistKind;

    #[test]
    fn keeps_the_largest() {
        let e = |k: u64, v: i64| (vec![Value::uint(k)], Value::int(v));
        let m = MapEntries::Values(vec![e(1, 30), e(2, 10), e(3, 20), e(4, 40)]);
        assert_eq!(m.clone().top(2), MapEntries::Values(vec![e(1, 30), e(4, 40)]));
        assert_eq!(
            m.clone().top(9),
            MapEntries::Values(vec![e(2, 10), e(3, 20), e(1, 30), e(4, 40)])
        );
        let h = MapEntries::Hist(
            vec![(vec![Value::uint(1)], vec![(0, 5)]), (vec![Value::uint(2)], vec![(1, 2)])],
            HistKind::Quantize,
        );
        let MapEntries::Hist(top, _) = h.top(1) else { panic!() };
        assert_eq!(top, vec![(vec![Value::uint(1)], vec![(0, 5)])]);
        let s = MapEntries::Stats(vec![
            (vec![Value::uint(1)], 1, Value::int(9), Value::int(9)),
            (vec![Value::uint(2)], 1, Value::int(3), Value::int(3)),
        ]);
        let MapEntries::Stats(top) = s.top(1) else { panic!() };
        assert_eq!(top[0].0, vec![Value::uint(1)]);
    }

    #[test]
    fn divides_integer_values_toward_zero() {
        let e = |k: u64, v: Value| (vec![Value::uint(k)], v);
        let m = MapEntries::Values(vec![
            e(1, Value::int(-25)),
            e(2, Value::uint(39)),
            e(3, Value::str("x")),
        ]);
        assert_eq!(
            m.clone().divided(10),
            MapEntries::Values(vec![
                e(1, Value::int(-2)),
                e(2, Value::uint(3)),
                e(3, Value::str("x"))
            ])
        );
        assert_eq!(m.clone().divided(1), m);
    }
}
