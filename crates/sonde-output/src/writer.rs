//! What sonde prints, behind one trait with one writer per format ([`crate::text_writer`],
//! [`crate::json_writer`]), as ripgrep's printer crate does. Writers only write: reading the
//! kernel, merging and symbolizing happen before, so any face (scripts today, `sonde trace` and
//! `sonde probe` later) hands them plain values.

use crate::map::{HistEntry, HistKind, StatsEntry};
use crate::value::Value;

/// One map's entries, decoded and merged.
#[derive(Clone, Debug, PartialEq)]
pub enum MapEntries {
    Values(Vec<(Vec<Value>, Value)>),
    Stats(Vec<StatsEntry>),
    Hist(Vec<HistEntry>, HistKind),
    /// bpftrace's `tseries()`.
    Series(Vec<crate::tseries::SeriesEntry>),
}

impl MapEntries {
    /// The map has no element.
    pub fn is_empty(&self) -> bool {
        match self {
            MapEntries::Values(v) => v.is_empty(),
            MapEntries::Stats(s) => s.is_empty(),
            MapEntries::Hist(h, _) => h.is_empty(),
            MapEntries::Series(s) => s.is_empty(),
        }
    }
}

pub trait Writer {
    /// Tracing has started on this many probes.
    fn attached(&mut self, probes: usize);
    /// A printf() event, already formatted.
    fn printf(&mut self, text: &[u8]);
    /// A print() of values.
    fn print(&mut self, values: Vec<Value>);
    /// A whole map (print(@m), or every map at the end).
    fn map(&mut self, name: &str, entries: &MapEntries);
    /// A whole `avg()` map: printed as any map, but bpftrace's JSON record for it is `stats`.
    fn averages(&mut self, name: &str, entries: &MapEntries) {
        self.map(name, entries);
    }
    /// `n` events were lost since the last report.
    fn lost(&mut self, n: u64);
    /// The kernel skipped `runs` runs of `probe` (since the last report) because it fired
    /// while another BPF program ran on the same CPU.
    fn missed(&mut self, probe: &str, runs: u64);
    /// The kernel refused `dropped` updates of `map` (since the last report) because it held
    /// its `max_entries` elements already.
    fn map_full(&mut self, map: &str, dropped: u64, max_entries: u32);
    fn flush(&mut self);
    /// The run is over and its maps print next (if they print): bpftrace's text output ends
    /// with two newlines, so the maps start after a blank line on a line of their own.
    fn end_of_run(&mut self) {}
    /// Text that prints as printf's does but is its own JSON record (bpftrace's `time`, `cat`).
    fn printed(&mut self, kind: &str, text: &[u8]) {
        let _ = kind;
        self.printf(text);
    }
    /// Text of another kind than printf's, by bpftrace's JSON name (`join`, `syscall` for
    /// system()'s output), ended by a newline as bpftrace's text output ends it (its JSON
    /// `data` has no newline added).
    fn text(&mut self, kind: &str, text: &[u8]) {
        let _ = kind;
        let mut line = text.to_vec();
        line.push(b'\n');
        self.printf(&line);
    }
    /// `--mode bench`: bench `names[index]` ran `iterations` times, `average_ns` each; the
    /// first result comes with the table's heading.
    fn bench(&mut self, names: &[String], index: usize, average_ns: u64, iterations: u64) {
        self.printf(crate::bench::row(names, index, average_ns, iterations).as_bytes());
    }
    /// bpftrace's `warnf`/`errorf` (`level` is `WARNING` or `ERROR`) from the call at `at`:
    /// `FILE:LINE:COL-COL: LEVEL: text` on stderr unless the format says otherwise.
    fn message(&mut self, level: &str, text: &str, at: &SourceAt) {
        self.flush();
        eprintln!("{}: {}: {}", at, level, text);
    }
}

/// Where in the program a `warnf`/`errorf` call is: 1-based line and columns, `end_col` just
/// after the call, as bpftrace prints them (`stdin:1:9-62`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceAt {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub end_col: usize,
}

impl std::fmt::Display for SourceAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}-{}", self.file, self.line, self.col, self.end_col)
    }
}

#[cfg(test)]
mod tests;
