//! Raw bytes from the kernel (event records, map keys and values) -> values to print.

use sonde_compile::tir::{AggFunc, MapInfo, MapValue};
use sonde_compile::types::Type;
use sonde_output::value::Value;

fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap())).unwrap_or(0)
}

/// One value of type `ty` from its slot (see `Type::slot_size`).
pub fn value(ty: &Type, b: &[u8]) -> Value {
    match ty {
        Type::Int { signed, .. } => Value::Int { v: u64_at(b, 0), signed: *signed },
        Type::Ptr { .. } | Type::Walltime => Value::Int { v: u64_at(b, 0), signed: false },
        Type::Sym => Value::Sym { addr: u64_at(b, 0), name: None },
        Type::Str(n) => {
            let s = &b[..(*n).min(b.len())];
            let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
            Value::Str(s[..end].to_vec())
        }
        Type::Bytes(n) => Value::Bytes(b[..(*n).min(b.len())].to_vec()),
        _ => Value::Bytes(b.to_vec()),
    }
}

/// A record's or key's values laid out one slot after another.
pub fn values(types: &[Type], b: &[u8]) -> Vec<Value> {
    let mut at = 0;
    types
        .iter()
        .map(|t| {
            let end = (at + t.slot_size()).min(b.len());
            let v = value(t, &b[at.min(end)..end]);
            at += t.slot_size();
            v
        })
        .collect()
}

/// One map entry's value, merged across CPUs for aggregations.
#[derive(Clone, Debug, PartialEq)]
pub enum Merged {
    Value(Value),
    /// Count of one histogram bucket.
    Bucket(u32, u64),
    /// avg and stats: (count, sum).
    CountSum(u64, u64),
}

/// Merge per-CPU values (or the single value of a plain map).
pub fn merge(info: &MapInfo, key: &[u8], cpus: &[Vec<u8>]) -> Option<Merged> {
    match &info.value {
        MapValue::Plain(t) => Some(Merged::Value(value(t, cpus.first()?))),
        MapValue::Agg { func, signed } => {
            let signed = *signed;
            let sum = |off: usize| cpus.iter().fold(0u64, |a, c| a.wrapping_add(u64_at(c, off)));
            Some(match func {
                AggFunc::Count => Merged::Value(Value::Int { v: sum(0), signed: false }),
                AggFunc::Sum => Merged::Value(Value::Int { v: sum(0), signed }),
                AggFunc::Min | AggFunc::Max => {
                    let set = cpus.iter().filter(|c| u64_at(c, 8) != 0).map(|c| u64_at(c, 0));
                    let best = if signed {
                        let it = set.map(|v| v as i64);
                        if *func == AggFunc::Min { it.min() } else { it.max() }.map(|v| v as u64)
                    } else if *func == AggFunc::Min {
                        set.min()
                    } else {
                        set.max()
                    };
                    Merged::Value(Value::Int { v: best?, signed })
                }
                AggFunc::Avg | AggFunc::Stats => Merged::CountSum(sum(0), sum(8)),
                AggFunc::Quantize | AggFunc::Lhist { .. } => Merged::Bucket(u64_at(key, key.len() - 8) as u32, sum(0)),
            })
        }
    }
}

/// The user's part of a key (without a histogram's bucket).
pub fn key_values(info: &MapInfo, key: &[u8]) -> Vec<Value> {
    values(&info.keys, key)
}

/// Integer average as bpftrace prints it.
pub fn average(count: u64, sum: u64, signed: bool) -> Value {
    if count == 0 {
        return Value::Int { v: 0, signed };
    }
    if signed {
        Value::Int { v: ((sum as i64) / count as i64) as u64, signed }
    } else {
        Value::Int { v: sum / count, signed }
    }
}
