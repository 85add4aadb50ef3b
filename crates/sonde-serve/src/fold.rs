//! Keys that print alike. Two kernel keys can give one label set: `ksym(addr)` names a
//! function without its offset, a string key is cut at its NUL. Prometheus refuses a scrape
//! holding one series twice, so such entries are folded into one: counts, sums, stats and
//! histogram buckets add up, `min()` and `max()` keep the smaller and the larger, and `avg()`
//! and plain values keep the first key's.

use crate::mapping::Aggregation;
use sonde_output::value::Value;
use std::collections::HashMap;

pub type Labels = Vec<(String, String)>;

/// `items` with equal label sets folded by `fold` into the first one, in first-seen order.
pub fn by_labels<T>(
    items: impl IntoIterator<Item = (Labels, T)>,
    mut fold: impl FnMut(&mut T, T),
) -> Vec<(Labels, T)> {
    let mut out: Vec<(Labels, T)> = Vec::new();
    let mut at: HashMap<Labels, usize> = HashMap::new();
    for (labels, v) in items {
        match at.get(&labels) {
            Some(&i) => fold(&mut out[i].1, v),
            None => {
                at.insert(labels.clone(), out.len());
                out.push((labels, v));
            }
        }
    }
    out
}

/// One map value folded into another of the same label set.
pub fn value(agg: Aggregation, into: &mut Value, v: Value) {
    let (Some(a), Some(b)) = (into.as_i128(), v.as_i128()) else { return };
    let signed = matches!(into, Value::Int { signed: true, .. });
    let folded = match agg {
        Aggregation::Count | Aggregation::Sum { .. } => a.wrapping_add(b),
        Aggregation::Min => a.min(b),
        Aggregation::Max => a.max(b),
        _ => return,
    };
    *into = Value::Int { v: folded as u64, signed };
}

/// stats()'s (count, average, total): counts and totals add, the average is theirs again.
pub fn stats(into: &mut (u64, Value, Value), (count, _, total): (u64, Value, Value)) {
    into.0 = into.0.saturating_add(count);
    let signed = matches!(into.2, Value::Int { signed: true, .. });
    let sum = into.2.as_i128().unwrap_or(0).wrapping_add(total.as_i128().unwrap_or(0));
    into.2 = Value::Int { v: sum as u64, signed };
    let average = match into.0 {
        0 => 0,
        n if signed => (sum as i64 / n as i64) as i128,
        n => (sum as u64 / n) as i128,
    };
    into.1 = Value::Int { v: average as u64, signed };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(v: &str) -> Labels {
        vec![("k".to_string(), v.to_string())]
    }

    #[test]
    fn equal_label_sets_fold_in_first_seen_order() {
        let items = vec![(l("b"), 1), (l("a"), 2), (l("b"), 3)];
        assert_eq!(by_labels(items, |a, b| *a += b), [(l("b"), 4), (l("a"), 2)]);
    }

    #[test]
    fn values_fold_by_aggregation() {
        let mut v = Value::uint(3);
        value(Aggregation::Count, &mut v, Value::uint(4));
        assert_eq!(v, Value::uint(7));
        let mut v = Value::int(-3);
        value(Aggregation::Min, &mut v, Value::int(-5));
        assert_eq!(v, Value::int(-5));
        value(Aggregation::Max, &mut v, Value::int(9));
        assert_eq!(v, Value::int(9));
        value(Aggregation::Avg, &mut v, Value::int(1));
        assert_eq!(v, Value::int(9));
    }

    #[test]
    fn stats_fold_and_average_again() {
        let mut s = (2, Value::int(5), Value::int(10));
        stats(&mut s, (3, Value::int(-1), Value::int(-3)));
        assert_eq!(s, (5, Value::int(1), Value::int(7)));
    }
}
