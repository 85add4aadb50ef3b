//! Events and maps to stdout, as text or JSON lines.

use crate::cli::Format;
use crate::decode::{self, Merged};
use crate::error::Failure;
use sonde_compile::lower::{FIRST_USER_MAP, LOST_MAP};
use sonde_compile::tir::{AggFunc, EventKind, MapInfo, MapValue};
use sonde_compile::types::Type;
use sonde_compile::Compiled;
use sonde_kernel::map::Map;
use sonde_output::printf::{self, Piece};
use sonde_output::value::Value;
use std::collections::BTreeMap;
use std::io::{BufWriter, Stdout, Write};

pub enum Action {
    Continue,
    Exit(i32),
}

pub struct Printer<'a> {
    format: Format,
    compiled: &'a Compiled,
    maps: &'a [Map],
    out: BufWriter<Stdout>,
    /// Parsed printf formats, by event id.
    formats: Vec<Option<Vec<Piece>>>,
}

/// A histogram's non-empty buckets: (bucket index, count).
type Buckets = Vec<(u32, u64)>;

/// One map's entries, decoded and merged.
enum Entries {
    Values(Vec<(Vec<Value>, Value)>),
    Stats(Vec<(Vec<Value>, u64, Value, Value)>),
    Hist(Vec<(Vec<Value>, Buckets)>),
}

impl<'a> Printer<'a> {
    pub fn new(format: Format, compiled: &'a Compiled, maps: &'a [Map]) -> Printer<'a> {
        let formats = compiled
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Printf { format } => printf::parse(format).ok(),
                _ => None,
            })
            .collect();
        Printer { format, compiled, maps, out: BufWriter::with_capacity(1 << 16, std::io::stdout()), formats }
    }

    pub fn attached(&mut self, probes: usize) {
        match self.format {
            Format::Text => {
                // One write, so a reader of stderr never sees half the line.
                let line = format!("Attaching {} probe{}...\n", probes, if probes == 1 { "" } else { "s" });
                let _ = std::io::stderr().lock().write_all(line.as_bytes());
            }
            Format::Json => {
                let _ = writeln!(self.out, "{}", sonde_output::json::attached_probes(probes));
                self.flush();
            }
        }
    }

    /// Replace stack ids by their frames, symbolized, one a line (bpftrace's layout).
    fn resolve_stacks(&self, types: &[Type], values: &mut [Value]) {
        for (ty, v) in types.iter().zip(values.iter_mut()) {
            let (&Type::Stack { user }, &Value::Int { v: raw, .. }) = (ty, &*v) else { continue };
            let frames = self.compiled.stack_map.and_then(|m| crate::stacks::frames(&self.maps[m], raw, user));
            // A symbol-like value prints its text as is (a string would escape the newlines).
            *v = Value::Sym { addr: raw, name: Some(crate::stacks::layout(frames)) };
        }
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }

    /// Handle one ring-buffer record.
    pub fn record(&mut self, rec: &[u8]) -> Action {
        if rec.len() < 8 {
            return Action::Continue;
        }
        let id = u64::from_le_bytes(rec[..8].try_into().unwrap()) as usize;
        let Some(event) = self.compiled.events.get(id) else { return Action::Continue };
        let mut values = decode::values(&event.args, &rec[8..]);
        self.resolve_stacks(&event.args, &mut values);
        match &event.kind {
            EventKind::Printf { .. } => {
                let text = match &self.formats[id] {
                    Some(pieces) => printf::format(pieces, &values),
                    None => Vec::new(),
                };
                match self.format {
                    Format::Text => {
                        let _ = self.out.write_all(&text);
                    }
                    Format::Json => {
                        let _ = writeln!(self.out, "{}", sonde_output::json::printf(&String::from_utf8_lossy(&text)));
                    }
                }
            }
            EventKind::Print => match self.format {
                Format::Text => {
                    let parts: Vec<String> = values.iter().map(|v| v.to_string()).collect();
                    let _ = writeln!(self.out, "{}", parts.join(", "));
                }
                Format::Json => {
                    let v = if values.len() == 1 { values[0].clone() } else { Value::Tuple(values) };
                    let _ = writeln!(self.out, "{}", sonde_output::json::value(&v));
                }
            },
            EventKind::Exit => {
                let code = match values.first() {
                    Some(Value::Int { v, .. }) => *v as i32,
                    _ => 0,
                };
                return Action::Exit(code);
            }
            EventKind::PrintMap { map } => self.print_map(*map),
            EventKind::ClearMap { map } => {
                let _ = self.maps[FIRST_USER_MAP + map].clear();
            }
        }
        Action::Continue
    }

    /// Events the ring buffer had no room for, summed over CPUs.
    pub fn lost_events(&self) -> Result<u64, Failure> {
        let per_cpu = self.maps[LOST_MAP].lookup_percpu(&0u32.to_le_bytes()).map_err(Failure::kernel)?;
        Ok(per_cpu.unwrap_or_default().iter().map(|v| u64::from_le_bytes(v[..8].try_into().unwrap())).sum())
    }

    pub fn warn_lost(&mut self, n: u64) {
        self.flush();
        match self.format {
            Format::Text => eprintln!("sonde: warning: {} events lost (the ring buffer was full)", n),
            Format::Json => {
                let _ = writeln!(self.out, "{}", sonde_output::json::lost_events(n));
                self.flush();
            }
        }
    }

    pub fn print_all_maps(&mut self) -> Result<(), Failure> {
        // By name, as bpftrace prints them, so output does not depend on declaration order.
        let mut order: Vec<usize> = (0..self.compiled.user_maps.len()).collect();
        order.sort_by(|&a, &b| self.compiled.user_maps[a].name.cmp(&self.compiled.user_maps[b].name));
        for i in order {
            self.print_map(i);
        }
        self.flush();
        Ok(())
    }

    fn print_map(&mut self, map: usize) {
        let info = &self.compiled.user_maps[map];
        let entries = match self.entries(map) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("sonde: cannot read map {}: {}", info.name, e);
                return;
            }
        };
        let name = info.name.as_str();
        let text = match (self.format, entries) {
            (Format::Text, Entries::Values(v)) => sonde_output::map::map_text(name, &v),
            (Format::Text, Entries::Stats(v)) => sonde_output::map::stats_text(name, &v),
            (Format::Text, Entries::Hist(v)) => sonde_output::map::hist_map_text(name, &v, hist_kind(info)),
            (Format::Json, Entries::Values(v)) => sonde_output::json::map(name, &v) + "\n",
            (Format::Json, Entries::Stats(v)) => sonde_output::json::stats(name, &v) + "\n",
            (Format::Json, Entries::Hist(v)) => sonde_output::json::hist(name, &v, hist_kind(info)) + "\n",
        };
        let _ = self.out.write_all(text.as_bytes());
    }

    fn entries(&self, map: usize) -> Result<Entries, sonde_kernel::error::KernelError> {
        let info: &MapInfo = &self.compiled.user_maps[map];
        let m = &self.maps[FIRST_USER_MAP + map];
        let mut values = Vec::new();
        let mut stats = Vec::new();
        let mut hists: BTreeMap<Vec<u8>, (Vec<Value>, Buckets)> = BTreeMap::new();
        let signed = matches!(info.value, MapValue::Agg { signed: true, .. });
        for key in m.keys()? {
            let per_cpu = if info.is_percpu() {
                match m.lookup_percpu(&key)? {
                    Some(v) => v,
                    None => continue,
                }
            } else {
                match m.lookup(&key)? {
                    Some(v) => vec![v],
                    None => continue,
                }
            };
            let mut keys = decode::key_values(info, &key);
            self.resolve_stacks(&info.keys, &mut keys);
            match decode::merge(info, &key, &per_cpu) {
                Some(Merged::Value(v)) => values.push((keys, v)),
                Some(Merged::CountSum(count, sum)) => {
                    if matches!(info.value, MapValue::Agg { func: AggFunc::Avg, .. }) {
                        values.push((keys, decode::average(count, sum, signed)));
                    } else {
                        stats.push((keys, count, decode::average(count, sum, signed), Value::Int { v: sum, signed }));
                    }
                }
                Some(Merged::Bucket(b, n)) => {
                    let user = key[..key.len() - 8].to_vec();
                    hists.entry(user).or_insert_with(|| (keys, Vec::new())).1.push((b, n));
                }
                None => {}
            }
        }
        Ok(match &info.value {
            MapValue::Agg { func: AggFunc::Quantize | AggFunc::Lhist { .. }, .. } => Entries::Hist(
                hists
                    .into_values()
                    .map(|(k, mut b)| {
                        b.sort();
                        (k, b)
                    })
                    .collect(),
            ),
            MapValue::Agg { func: AggFunc::Stats, .. } => Entries::Stats(stats),
            _ => Entries::Values(values),
        })
    }
}

fn hist_kind(info: &MapInfo) -> sonde_output::map::HistKind {
    match info.value {
        MapValue::Agg { func: AggFunc::Lhist { min, max, step }, .. } => sonde_output::map::HistKind::Linear { min, max, step },
        _ => sonde_output::map::HistKind::Quantize,
    }
}
