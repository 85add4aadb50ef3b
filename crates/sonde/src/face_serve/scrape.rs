//! One scrape: every exported map read now (collect.rs merges the per-CPU values), turned into
//! families by sonde-serve, then sonde's own metrics: map sizes, lost events, runs the kernel
//! skipped, the kernel's run counts when its BPF statistics are on, scrape time, build info.

use super::events::Events;
use super::evictions::Evictions;
use super::program::Loaded;
use super::reload::Reloads;
use super::Kept;
use crate::collect::Collector;
use crate::misses::{MissCounter, ProbeRuns};
use sonde_compile::provider::AttachPoint;
use sonde_output::MapEntries;
use sonde_serve::model::labels;
use sonde_serve::{render, Family, Format, Kind, Number};
use sonde_symbols::Symbolizer;
use std::time::Instant;

/// What lasts from one scrape to the next while the programs stay the same.
pub struct Scraper<'a> {
    served: &'a [Loaded],
    /// One per program: kernel and user symbols in keys (`ksym`, `usym`, `kstack`).
    symbols: Vec<Symbolizer>,
    /// One per program and user map.
    evictions: Vec<Vec<Evictions>>,
}

impl<'a> Scraper<'a> {
    pub fn new(served: &'a [Loaded]) -> Scraper<'a> {
        let symbols = served.iter().map(|_| Symbolizer::new(None)).collect();
        let per_map =
            |p: &Loaded| p.prepared.compiled.user_maps.iter().map(|_| <_>::default()).collect();
        let evictions = served.iter().map(per_map).collect();
        Scraper { served, symbols, evictions }
    }

    /// The exposition of everything served, in `format`; `events` are the programs' (in the
    /// same order), for the `clear()`s they did.
    pub fn scrape(&mut self, format: Format, kept: &mut Kept, events: &[Events]) -> String {
        let t0 = Instant::now();
        let mut own = Own::new();
        let mut families = Vec::new();
        let programs = self.served.iter().zip(&mut self.symbols).zip(&mut self.evictions);
        for (((p, sym), evictions), events) in programs.zip(events) {
            let c = &p.prepared.compiled;
            let collector = Collector::new(c, &p.kernel.maps);
            let refused = crate::map_full::refused(c, &p.kernel.maps).unwrap_or_default();
            for (i, metric) in &p.prepared.metrics {
                let at = [("program", p.prepared.file.as_str()), ("map", metric.map.as_str())];
                // Read before the map (evictions.rs).
                let counted = lru_counted(p, *i);
                match collector.map(*i, sym) {
                    Ok(entries) => {
                        let held = kernel_elements(&entries);
                        own.entries.push(labels(&at), Number::U(held));
                        if let Some(counted) = counted {
                            let n = evictions[*i].observe(events.clears[*i], counted, held);
                            own.evictions.push(labels(&at), Number::U(n));
                        }
                        families.extend(metric.families(&entries, &mut kept.buckets));
                    }
                    Err(e) => {
                        eprintln!(
                            "sonde: {}: cannot read map {}: {}",
                            p.prepared.file, metric.map, e
                        );
                        own.read_errors.push(labels(&at), Number::U(1));
                    }
                }
                if let Some(n) = refused.get(*i).copied().flatten() {
                    own.refused.push(labels(&at), Number::U(n));
                }
                let max = p.kernel.maps[sonde_compile::abi::FIRST_USER_MAP + i].max_entries();
                own.max_entries.push(labels(&at), Number::U(max as u64));
            }
            own.program(p, &collector, kept.run_stats || bpf_stats_enabled());
        }
        families.extend(reload_families(&kept.reloads));
        families.extend(own.finish(t0));
        render(&families, format)
    }
}

/// Each program loaded, and what the reloads came to.
fn reload_families(r: &Reloads) -> Vec<Family> {
    let mut failures = Family::new(
        "sonde_serve_reload_failures",
        "Reloads (SIGHUP) that could not load the program; its previous version, if any, kept running.",
        Kind::Counter,
    );
    for (file, n) in &r.failures {
        failures.push(labels(&[("program", file)]), Number::U(*n));
    }
    let mut reloads = Family::new("sonde_serve_reloads", "Reloads (SIGHUP) so far.", Kind::Counter);
    reloads.push(Vec::new(), Number::U(r.total));
    let mut out = vec![reloads, failures];
    if let Some(ok) = r.last_ok {
        let help = "Whether the last reload loaded every program (1) or not (0).";
        let mut last = Family::new("sonde_serve_last_reload_successful", help, Kind::Gauge);
        last.push(Vec::new(), Number::U(ok as u64));
        out.push(last);
    }
    out.retain(|f| !f.samples.is_empty());
    out
}

/// An LRU map's elements as its program counts them (inserts less deletes since its last
/// `clear()`); None for any other map, or when the count cannot be read.
fn lru_counted(p: &Loaded, map: usize) -> Option<u64> {
    let c = &p.prepared.compiled;
    if !c.user_maps[map].lru {
        return None;
    }
    let counter = sonde_compile::lower::len_counter(&c.user_maps, c.stack_maps.len(), map)?;
    let value = p.kernel.maps[counter].lookup(&0u32.to_le_bytes()).ok().flatten()?;
    Some(u64::from_le_bytes(value.get(..8)?.try_into().ok()?))
}

/// Elements the kernel holds for `entries`: one per key, one per key and bucket for histograms.
fn kernel_elements(entries: &MapEntries) -> u64 {
    match entries {
        MapEntries::Values(v) => v.len() as u64,
        MapEntries::Stats(s) => s.len() as u64,
        MapEntries::Hist(h, _) => h.iter().map(|(_, b)| b.len() as u64).sum(),
        MapEntries::Series(s) => s.iter().map(|(_, s)| s.points.len() as u64).sum(),
    }
}

/// sonde's own families, filled program by program.
struct Own {
    programs: Family,
    entries: Family,
    max_entries: Family,
    evictions: Family,
    refused: Family,
    read_errors: Family,
    lost: Family,
    missed: Family,
    runs: Family,
    run_time: Family,
}

impl Own {
    fn new() -> Own {
        let f =
            |name: &str, help: &str, kind| Family::new(format!("sonde_serve_{name}"), help, kind);
        Own {
            programs: f("program_info", "A program being served.", Kind::Gauge),
            entries: f("map_entries", "Elements in the map now (a histogram's: one per key and bucket).", Kind::Gauge),
            max_entries: f(
                "map_max_entries",
                "Elements the map can hold; beyond, an LRU map evicts, a hash refuses the insert.",
                Kind::Gauge,
            ),
            evictions: f(
                "map_evictions",
                "Elements an LRU map evicted to make room (its program's inserts less deletes, less the elements held).",
                Kind::Counter,
            ),
            refused: f("map_refused_inserts", "Inserts a full hash map refused (the series was lost).", Kind::Counter),
            read_errors: f("map_read_errors", "Maps that could not be read in this scrape (see the log).", Kind::Gauge),
            lost: f("lost_events", "Events the ring buffer had no room for (printf output).", Kind::Counter),
            missed: f(
                "missed_runs",
                "Runs the kernel skipped because the probe fired while another BPF program ran on its CPU.",
                Kind::Counter,
            ),
            runs: f("probe_runs", "Runs of the probe's program, counted while the kernel's BPF statistics are on.", Kind::Counter),
            run_time: f(
                "probe_run_seconds",
                "Time spent in the probe's program, counted while the kernel's BPF statistics are on.",
                Kind::Counter,
            ),
        }
    }

    fn program(&mut self, p: &Loaded, collector: &Collector, stats_on: bool) {
        let file = p.prepared.file.as_str();
        self.programs.push(labels(&[("program", file)]), Number::U(1));
        if let Ok(n) = collector.lost_events() {
            self.lost.push(labels(&[("program", file)]), Number::U(n));
        }
        let timers = timer_runs(p);
        for (i, (def, program)) in
            p.prepared.compiled.programs.iter().zip(&p.kernel.programs).enumerate()
        {
            if def.sites.iter().all(|s| matches!(s.point, AttachPoint::Begin | AttachPoint::End)) {
                continue;
            }
            let at = labels(&[("program", file), ("probe", def.name.as_str())]);
            let runs = ProbeRuns { program, timer: timers.get(i).copied().flatten() };
            if let Some(n) = runs.skipped() {
                self.missed.push(at.clone(), Number::U(n));
            }
            if let (true, Ok((count, ns))) = (stats_on, program.run_stats()) {
                self.runs.push(at.clone(), Number::U(count));
                self.run_time.push(at, Number::F(ns as f64 / 1e9));
            }
        }
    }

    fn finish(self, t0: Instant) -> Vec<Family> {
        let mut build = Family::new("sonde_serve_build_info", "sonde's version.", Kind::Gauge);
        build.push(labels(&[("version", env!("CARGO_PKG_VERSION"))]), Number::U(1));
        let mut took = Family::new(
            "sonde_serve_scrape_duration_seconds",
            "How long reading the maps for this scrape took.",
            Kind::Gauge,
        );
        took.push(Vec::new(), Number::F(t0.elapsed().as_secs_f64()));
        let mut out =
            vec![self.programs, self.entries, self.max_entries, self.evictions, self.refused];
        out.extend([self.read_errors, self.lost, self.missed, self.runs, self.run_time]);
        out.retain(|f| !f.samples.is_empty());
        out.extend([build, took]);
        out
    }
}

/// Whether the kernel counts program runs now (`sysctl kernel.bpf_stats_enabled`).
fn bpf_stats_enabled() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/bpf_stats_enabled").is_ok_and(|s| s.trim() == "1")
}

/// Each `interval:` program's (runs, periods elapsed), from the control map: see misses.rs.
fn timer_runs(p: &Loaded) -> Vec<Option<(u64, u64)>> {
    let value = p.kernel.control().unwrap_or_default();
    crate::misses::timer_runs(&p.prepared.compiled, &value, p.attached.at.elapsed())
}
