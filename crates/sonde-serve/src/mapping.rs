//! One map -> metric families: which Prometheus type each aggregation becomes, its labels, and
//! its samples from the map's decoded entries (per-CPU values already summed).
//!
//! | aggregation | family |
//! |---|---|
//! | `count()`, `sum()` of an unsigned value | counter `NAME_total` |
//! | `sum()` of a signed value (it can go down), `min()`, `max()`, `avg()`, an integer | gauge `NAME` |
//! | any other value (a string, a symbol, a tuple) | gauge `NAME{...,value="TEXT"} 1` |
//! | `stats()` | summary `NAME_count`, `NAME_sum`, and gauge `NAME_avg` |
//! | `hist()`, `lhist()` | histogram `NAME_bucket{le}`, `NAME_count` ([`crate::buckets`]) |

use crate::buckets::{self, Scale};
use crate::fold;
use crate::model::{Family, Kind, Number};
use crate::names::{metric_name, valid_label};
use crate::source::MapSource;
use sonde_output::map::HistEntry;
use sonde_output::value::Value;
use sonde_output::MapEntries;
use std::collections::HashMap;

/// A map's aggregation, as the compiler typed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    Count,
    /// `signed`: the summed expression is signed, so the sum can go down.
    Sum {
        signed: bool,
    },
    Min,
    Max,
    Avg,
    Stats,
    Hist {
        signed: bool,
    },
    Lhist {
        min: i64,
        max: i64,
        step: i64,
    },
    /// A plain value: `@m[k] = expr`.
    Plain,
}

impl Aggregation {
    fn word(self) -> &'static str {
        match self {
            Aggregation::Count => "count()",
            Aggregation::Sum { .. } => "sum()",
            Aggregation::Min => "min()",
            Aggregation::Max => "max()",
            Aggregation::Avg => "avg()",
            Aggregation::Stats => "stats()",
            Aggregation::Hist { .. } => "hist()",
            Aggregation::Lhist { .. } => "lhist()",
            Aggregation::Plain => "value",
        }
    }

    fn kind(self) -> Kind {
        match self {
            Aggregation::Count | Aggregation::Sum { signed: false } => Kind::Counter,
            Aggregation::Stats => Kind::Summary,
            Aggregation::Hist { .. } | Aggregation::Lhist { .. } => Kind::Histogram,
            _ => Kind::Gauge,
        }
    }

    fn scale(self) -> Option<Scale> {
        match self {
            Aggregation::Hist { signed } => Some(Scale::Log2 { signed }),
            Aggregation::Lhist { min, max, step } => Some(Scale::Linear { min, max, step }),
            _ => None,
        }
    }
}

/// One exported map.
#[derive(Clone, Debug, PartialEq)]
pub struct MapMetric {
    /// As the program writes it: `@opens`.
    pub map: String,
    /// The family's name: `sonde_opens` (a counter's samples add `_total`).
    pub name: String,
    pub aggregation: Aggregation,
    /// One label name per key position.
    pub labels: Vec<String>,
    pub help: String,
}

impl MapMetric {
    /// The metric of map `map` with `keys` key positions, in program `file` (its name as
    /// shown, and `stem`, the file name without extension); None when a directive says `skip`.
    /// Fails when a `labels=` directive does not give one name per key position.
    pub fn new(
        map: &str,
        aggregation: Aggregation,
        keys: usize,
        source: Option<&MapSource>,
        file: &str,
        stem: &str,
    ) -> Result<Option<MapMetric>, String> {
        let default = MapSource::default();
        let source = source.unwrap_or(&default);
        if source.directive.skip {
            return Ok(None);
        }
        let mut name = match &source.directive.name {
            Some(n) => metric_name(n, stem),
            None => metric_name(map, stem),
        };
        if aggregation.kind() == Kind::Counter {
            // `@opens_total` is `sonde_opens_total`, not `..._total_total`.
            if let Some(base) = name.strip_suffix("_total").filter(|b| b.len() > 6) {
                name = base.to_string();
            }
        }
        let labels = label_names(map, keys, source)?;
        let help = help(map, aggregation, &labels, source, file);
        Ok(Some(MapMetric { map: map.to_string(), name, aggregation, labels, help }))
    }

    /// Every sample name this metric's families use, for telling clashes apart.
    pub fn sample_names(&self) -> Vec<String> {
        let mut names = self.aggregation.kind().sample_names(&self.name);
        if self.aggregation == Aggregation::Stats {
            names.extend(Kind::Gauge.sample_names(&format!("{}_avg", self.name)));
        }
        names
    }

    /// The families for the map's current `entries`; `memory` keeps each histogram's highest
    /// bucket between scrapes, so its `le` set only grows.
    pub fn families(&self, entries: &MapEntries, memory: &mut BucketMemory) -> Vec<Family> {
        let mut main = Family::new(&self.name, &self.help, self.aggregation.kind());
        match entries {
            MapEntries::Values(values) => self.values(&mut main, values),
            MapEntries::Stats(stats) => {
                let help = format!("The average of {}: {}", self.name, self.help);
                let mut avg = Family::new(format!("{}_avg", self.name), help, Kind::Gauge);
                let labelled = stats.iter().map(|(keys, count, average, total)| {
                    (self.label_pairs(keys), (*count, average.clone(), total.clone()))
                });
                for (l, (count, average, total)) in fold::by_labels(labelled, fold::stats) {
                    main.push_part("_count", l.clone(), None, Number::U(count));
                    main.push_part("_sum", l.clone(), None, number(&total));
                    avg.push(l, number(&average));
                }
                return vec![main, avg];
            }
            MapEntries::Hist(entries, _) => {
                if let Some(scale) = self.aggregation.scale() {
                    self.histogram(&mut main, entries, scale, memory);
                }
            }
            // A tseries() map is a graph over time, kept in the kernel; a scrape samples
            // values itself, so it has no samples here.
            MapEntries::Series(_) => {}
        }
        vec![main]
    }

    fn values(&self, family: &mut Family, values: &[(Vec<Value>, Value)]) {
        // A counter without keys counts from 0 before its first event.
        if values.is_empty() && self.labels.is_empty() && family.kind == Kind::Counter {
            family.push(Vec::new(), Number::U(0));
        }
        let labelled = values.iter().map(|(keys, v)| {
            let mut l = self.label_pairs(keys);
            if !matches!(v, Value::Int { .. }) {
                l.push(("value".into(), label_value(v)));
            }
            (l, v.clone())
        });
        let agg = self.aggregation;
        for (l, v) in fold::by_labels(labelled, |a, b| fold::value(agg, a, b)) {
            let n = if matches!(v, Value::Int { .. }) { number(&v) } else { Number::U(1) };
            family.push(l, n);
        }
    }

    fn histogram(&self, f: &mut Family, entries: &[HistEntry], scale: Scale, m: &mut BucketMemory) {
        let used = entries.iter().filter_map(|(_, c)| buckets::highest_used(c)).max();
        let top = m.raise(&self.name, used.unwrap_or(scale.lowest()));
        let labelled =
            entries.iter().map(|(keys, counts)| (self.label_pairs(keys), counts.clone()));
        for (l, counts) in fold::by_labels(labelled, |a, b| a.extend(b)) {
            let cumulative = buckets::cumulative(scale, &counts, top);
            let total = cumulative.last().map_or(0, |b| b.1);
            for (bound, n) in cumulative {
                f.push_part("_bucket", l.clone(), Some(bound), Number::U(n));
            }
            f.push_part("_count", l, None, Number::U(total));
        }
    }

    fn label_pairs(&self, keys: &[Value]) -> Vec<(String, String)> {
        keys.iter()
            .enumerate()
            .map(|(i, k)| {
                let name = self.labels.get(i).cloned().unwrap_or_else(|| format!("key{i}"));
                (name, label_value(k))
            })
            .collect()
    }
}

/// Each histogram's highest bucket written so far, by metric name.
#[derive(Clone, Debug, Default)]
pub struct BucketMemory(HashMap<String, u32>);

impl BucketMemory {
    /// The highest bucket to write for `name` now that `used` is the highest in use.
    fn raise(&mut self, name: &str, used: u32) -> u32 {
        let top = self.0.entry(name.to_string()).or_insert(used);
        *top = (*top).max(used);
        *top
    }
}

/// An integer as a sample value, by its signedness.
fn number(v: &Value) -> Number {
    match *v {
        Value::Int { v, signed: true } => Number::I(v as i64),
        Value::Int { v, signed: false } => Number::U(v),
        _ => Number::U(0),
    }
}

/// A key as a label value: as sonde prints it, except a stack, which is folded
/// (`outer;inner`, root first, as flame-graph tools read it).
pub fn label_value(v: &Value) -> String {
    match v {
        Value::Sym { name: Some(frames), .. } if frames.contains('\n') => {
            let lines: Vec<&str> =
                frames.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
            lines.into_iter().rev().collect::<Vec<_>>().join(";")
        }
        _ => v.to_string(),
    }
}

/// The label names for `keys` positions: a directive's, else the key expressions', else
/// `keyN`; a name already taken or not allowed falls back to `keyN` too.
fn label_names(map: &str, keys: usize, source: &MapSource) -> Result<Vec<String>, String> {
    let given = source.directive.labels.clone().unwrap_or_default();
    if source.directive.labels.is_some() && given.len() != keys {
        return Err(format!(
            "`// metric: labels=...` names {} label(s) but map {} has {} key(s)",
            given.len(),
            map,
            keys
        ));
    }
    let derived = if source.labels.len() == keys { source.labels.clone() } else { Vec::new() };
    let mut out: Vec<String> = Vec::new();
    for i in 0..keys {
        let explicit = given.get(i).cloned().flatten();
        let candidate = explicit.clone().or_else(|| derived.get(i).cloned().flatten());
        let name = candidate.filter(|n| valid_label(n) && !out.contains(n));
        if name.is_none() && explicit.is_some() {
            return Err(format!(
                "`// metric: labels=...` names label `{}` twice",
                given_name(&given, i)
            ));
        }
        let mut name = name.unwrap_or_else(|| format!("key{i}"));
        while out.contains(&name) {
            name.push('_');
        }
        out.push(name);
    }
    Ok(out)
}

fn given_name(given: &[Option<String>], i: usize) -> String {
    given.get(i).cloned().flatten().unwrap_or_default()
}

/// The HELP text: the comment above the map, else what the program says about it.
fn help(map: &str, agg: Aggregation, labels: &[String], source: &MapSource, file: &str) -> String {
    if !source.help.is_empty() {
        return source.help.join(" ");
    }
    let by = if labels.is_empty() { String::new() } else { format!(" by {}", labels.join(", ")) };
    format!("{} of map {}{} in {}", agg.word(), map, by, file)
}

#[cfg(test)]
mod tests;
