//! The kernel side of output: reads the maps, merges per-CPU values, reads stacks from the stack
//! map and the lost-events counter, and hands back plain values. It never prints.

use crate::decode::{self, Merged};
use sonde_compile::abi::{FIRST_USER_MAP, LOST_MAP};
use sonde_compile::tir::{AggFunc, MapInfo, MapValue};
use sonde_compile::types::{StackMode, Type};
use sonde_compile::Compiled;
use sonde_kernel::object::map::Map;
use sonde_kernel::KernelError;
use sonde_output::map::{HistEntry, HistKind};
use sonde_output::tseries::{Series, SeriesEntry};
use sonde_output::value::Value;
use sonde_output::MapEntries;
use sonde_symbols::Symbolizer;
use std::collections::BTreeMap;

pub struct Collector<'a> {
    compiled: &'a Compiled,
    maps: &'a [Map],
}

impl<'a> Collector<'a> {
    pub fn new(compiled: &'a Compiled, maps: &'a [Map]) -> Collector<'a> {
        Collector { compiled, maps }
    }

    /// A record's or key's values, stacks symbolized.
    pub fn values(&self, types: &[Type], bytes: &[u8], sym: &mut Symbolizer) -> Vec<Value> {
        let mut values = decode::values(types, bytes, sym);
        self.resolve_stacks(types, &mut values, sym);
        values
    }

    /// Replace stack ids by their frames, symbolized, one a line (bpftrace's layout); in tuples
    /// and records too.
    fn resolve_stacks(&self, types: &[Type], values: &mut [Value], sym: &mut Symbolizer) {
        for (ty, v) in types.iter().zip(values.iter_mut()) {
            match (ty, &mut *v) {
                (Type::Tuple(elems), Value::Tuple(items)) => {
                    self.resolve_stacks(elems, items, sym);
                    continue;
                }
                (Type::Record { elems, .. }, Value::Record(fields)) => {
                    let mut items: Vec<Value> = fields.iter().map(|f| f.1.clone()).collect();
                    self.resolve_stacks(elems, &mut items, sym);
                    for (f, item) in fields.iter_mut().zip(items) {
                        f.1 = item;
                    }
                    continue;
                }
                _ => {}
            }
            let (&Type::Stack { user, mode, frames: depth }, &Value::Int { v: raw, .. }) =
                (ty, &*v)
            else {
                continue;
            };
            let stacks = self.compiled.stack_map(depth).map(|m| &self.maps[m]);
            let frames = stacks.and_then(|m| frames(m, raw, user, mode, sym));
            // A symbol-like value prints its text as is (a string would escape the newlines).
            let indent = if mode == StackMode::Raw { "" } else { "        " };
            *v = Value::Sym { addr: raw, name: Some(layout(frames, indent)) };
        }
    }

    /// User map `map`'s entries, merged across CPUs.
    pub fn map(&self, map: usize, sym: &mut Symbolizer) -> Result<MapEntries, KernelError> {
        let info: &MapInfo = &self.compiled.user_maps[map];
        let m = &self.maps[FIRST_USER_MAP + map];
        let mut values = Vec::new();
        let mut stats = Vec::new();
        let mut hists: BTreeMap<Vec<u8>, HistEntry> = BTreeMap::new();
        let mut points: BTreeMap<Vec<u8>, PointsOfKey> = BTreeMap::new();
        let signed = matches!(info.value, MapValue::Agg { signed: true, .. });
        // Read whole (by batches where the kernel can), then decoded.
        for (key, per_cpu) in m.entries()? {
            let keys = self.values(&info.keys, &key, sym);
            match decode::merge(info, &key, &per_cpu, sym) {
                Some(Merged::Value(v)) => values.push((keys, v)),
                Some(Merged::CountSum(count, sum)) => {
                    let avg = decode::average(count, sum, signed);
                    if matches!(info.value, MapValue::Agg { func: AggFunc::Avg, .. }) {
                        values.push((keys, avg));
                    } else {
                        stats.push((keys, count, avg, Value::Int { v: sum, signed }));
                    }
                }
                Some(Merged::Bucket(b, n)) => {
                    let user = key[..key.len() - 8].to_vec();
                    hists.entry(user).or_insert_with(|| (keys, Vec::new())).1.push((b, n));
                }
                Some(Merged::Point(epoch, v)) => {
                    let user = key[..key.len() - 8].to_vec();
                    points
                        .entry(user)
                        .or_insert_with(|| (keys, BTreeMap::new()))
                        .1
                        .insert(epoch, v);
                }
                None => {}
            }
        }
        Ok(match &info.value {
            MapValue::Agg { func: AggFunc::Quantize { .. } | AggFunc::Lhist { .. }, .. } => {
                let sorted = hists.into_values().map(|(k, mut b)| {
                    b.sort();
                    (k, b)
                });
                MapEntries::Hist(sorted.collect(), hist_kind(info))
            }
            MapValue::Agg { func: AggFunc::Stats, .. } => MapEntries::Stats(stats),
            MapValue::Agg { func: AggFunc::Tseries { interval_ns, intervals, .. }, .. } => {
                MapEntries::Series(series(points.into_values().collect(), *interval_ns, *intervals))
            }
            _ => MapEntries::Values(values),
        })
    }

    /// What `print(@m)` shows for a key-less map with no element (never set, or cleared), as
    /// bpftrace prints it: its integer, stats, tuple, record, string or bool zero. `None` for
    /// other maps.
    pub fn zero_entry(&self, map: usize, sym: &mut Symbolizer) -> Option<MapEntries> {
        let info: &MapInfo = &self.compiled.user_maps[map];
        if !info.keys.is_empty() {
            return None;
        }
        let zero = |signed| Value::Int { v: 0, signed };
        match &info.value {
            MapValue::Agg { func: AggFunc::Stats, signed } => {
                Some(MapEntries::Stats(vec![(Vec::new(), 0, zero(*signed), zero(*signed))]))
            }
            MapValue::Agg { func: AggFunc::Quantize { .. } | AggFunc::Lhist { .. }, .. } => None,
            MapValue::Agg { func: AggFunc::Count, .. } => {
                Some(MapEntries::Values(vec![(Vec::new(), zero(false))]))
            }
            MapValue::Agg { signed, .. } => {
                Some(MapEntries::Values(vec![(Vec::new(), zero(*signed))]))
            }
            MapValue::Plain(Type::Int { signed, .. }) => {
                Some(MapEntries::Values(vec![(Vec::new(), zero(*signed))]))
            }
            // Zeroed bytes, as bpftrace prints them: `(0, )`, `{ .a = 0 }`, `false`, ``.
            MapValue::Plain(
                ty @ (Type::Tuple(_) | Type::Record { .. } | Type::Str(_) | Type::Bool),
            ) => {
                let bytes = vec![0; ty.slot_size()];
                Some(MapEntries::Values(vec![(Vec::new(), decode::value(ty, &bytes, sym))]))
            }
            MapValue::Plain(_) => None,
        }
    }

    /// `clear(@m)`.
    pub fn clear(&self, map: usize) {
        let _ = self.maps[FIRST_USER_MAP + map].clear();
        // `len(@m)`'s counter starts again from zero (an element a probe adds while the
        // clear runs is not counted).
        let c = &self.compiled;
        if let Some(counter) =
            sonde_compile::lower::len_counter(&c.user_maps, c.stack_maps.len(), map)
        {
            let _ = self.maps[counter].clear();
        }
    }

    /// bpftrace's `zero(@m)`: every value zeroed, every key kept (so `len(@m)` stays).
    pub fn zero(&self, map: usize) {
        let _ = self.maps[FIRST_USER_MAP + map].zero();
    }

    /// Events the ring buffer had no room for, summed over CPUs.
    pub fn lost_events(&self) -> Result<u64, KernelError> {
        let per_cpu = self.maps[LOST_MAP].lookup_percpu(&0u32.to_le_bytes())?;
        let count = |v: &Vec<u8>| u64::from_le_bytes(v[..8].try_into().unwrap());
        Ok(per_cpu.unwrap_or_default().iter().map(count).sum())
    }
}

fn hist_kind(info: &MapInfo) -> HistKind {
    match info.value {
        MapValue::Agg { func: AggFunc::Lhist { min, max, step }, .. } => {
            HistKind::Linear { min, max, step }
        }
        MapValue::Agg { func: AggFunc::Quantize { bits }, .. } if bits > 0 => {
            HistKind::Fine { bits }
        }
        _ => HistKind::Quantize,
    }
}

/// The frames of stack `raw` (a kstack id, or for a ustack pid << 32 | id) as `mode` prints
/// them: `vfs_read+0x1a` or `main+37` (bpftrace), `ffffffff8141457a vfs_read+0x1a` or
/// `401126 main+37 (/usr/bin/prog)` (perf), the address alone (raw); None when the kernel
/// could not take it.
fn frames(
    stacks: &Map,
    raw: u64,
    user: bool,
    mode: StackMode,
    sym: &mut Symbolizer,
) -> Option<Vec<String>> {
    let id = raw as u32;
    if id >= 0x8000_0000 {
        return None;
    }
    let addrs = stacks.stack(id).ok()??;
    if mode == StackMode::Raw {
        return Some(addrs.iter().map(|a| format!("{:x}", a)).collect());
    }
    let names = sym.frames(&addrs, user.then_some((raw >> 32) as u32), mode == StackMode::Perf);
    Some(match mode {
        StackMode::Perf => addrs.iter().zip(names).map(|(a, n)| format!("{:x} {}", a, n)).collect(),
        _ => names,
    })
}

/// bpftrace's layout: a newline, each frame on its own line after `indent` (none for raw
/// addresses, as bpftrace prints them), a newline; as a map key this prints
/// `@[\n        frame\n        frame\n]: 3`.
fn layout(frames: Option<Vec<String>>, indent: &str) -> String {
    match frames {
        Some(f) if !f.is_empty() => {
            let mut s = String::from("\n");
            for frame in f {
                s.push_str(indent);
                s.push_str(&frame);
                s.push('\n');
            }
            s
        }
        _ => "\n        [stack unavailable]\n".into(),
    }
}

/// One tseries key's values by epoch.
type PointsOfKey = (Vec<Value>, BTreeMap<u64, Value>);

/// Each key's last `intervals` intervals as bpftrace shows them: up to the latest epoch any key
/// has, from the key's first value in that window (its intervals without one print as gaps).
fn series(keys: Vec<PointsOfKey>, interval_ns: u64, intervals: u64) -> Vec<SeriesEntry> {
    let last = keys.iter().filter_map(|(_, p)| p.keys().next_back()).max().copied().unwrap_or(0);
    let first = last.saturating_sub(intervals - 1);
    keys.into_iter()
        .map(|(k, p)| {
            let start = p.range(first..).next().map_or(last, |(&e, _)| e);
            let points = (start..=last)
                .map(|e| (e.wrapping_mul(interval_ns), p.get(&e).cloned()))
                .collect::<Vec<_>>();
            let at = points.first().map_or(0, |p| (p.0 / 1_000_000_000) as i64);
            let zone_secs = sonde_kernel::host::clock::utc_offset_secs(at);
            (k, Series { points, zone_secs })
        })
        .collect()
}
