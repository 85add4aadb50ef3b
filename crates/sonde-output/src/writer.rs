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
    /// `n` events were lost since the last report.
    fn lost(&mut self, n: u64);
    /// The kernel skipped `runs` runs of `probe` (since the last report) because it fired
    /// while another BPF program ran on the same CPU.
    fn missed(&mut self, probe: &str, runs: u64);
    fn flush(&mut self);
}

#[cfg(test)]
mod tests;
