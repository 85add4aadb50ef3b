//! bpftrace's `print(@m, N)`: only the N entries that print last (the largest), in print order.

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
}
