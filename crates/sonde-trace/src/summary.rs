//! `-s`/`-S`: per thread and in total, for each syscall, calls, errors, total/min/avg/max time
//! and the standard deviation in percent of the average, sorted by total time (perf trace's
//! --summary, strace -c). The numbers come merged from the kernel's per-CPU maps.

use crate::errno;
use crate::program::SQUARE_UNIT_NS;
use crate::syscalls::SyscallTable;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One syscall's numbers in one thread.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub calls: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Sum of squared durations, in units of SQUARE_UNIT_NS.
    pub squares: u64,
    /// Failed calls by errno.
    pub errnos: BTreeMap<i32, u64>,
}

impl Stats {
    pub fn errors(&self) -> u64 {
        self.errnos.values().sum()
    }

    pub(crate) fn add(&mut self, o: &Stats) {
        let first = self.calls == 0;
        self.calls += o.calls;
        self.total_ns += o.total_ns;
        self.min_ns = if first { o.min_ns } else { self.min_ns.min(o.min_ns) };
        self.max_ns = self.max_ns.max(o.max_ns);
        self.squares = self.squares.saturating_add(o.squares);
        for (e, n) in &o.errnos {
            *self.errnos.entry(*e).or_default() += n;
        }
    }

    /// Standard deviation in percent of the average.
    pub fn stddev_pct(&self) -> f64 {
        if self.calls < 2 || self.total_ns == 0 {
            return 0.0;
        }
        let n = self.calls as f64;
        let avg = self.total_ns as f64 / n;
        let unit = SQUARE_UNIT_NS as f64;
        let var = (self.squares as f64 * unit * unit / n - avg * avg).max(0.0);
        var.sqrt() / avg * 100.0
    }
}

/// Everything a run counted: by (tid, syscall number).
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: BTreeMap<(u32, u32), Stats>,
    /// Thread names, by tid.
    pub names: BTreeMap<u32, String>,
}

impl Summary {
    /// Per-syscall totals over every thread.
    pub fn totals(&self) -> BTreeMap<u32, Stats> {
        let mut t: BTreeMap<u32, Stats> = BTreeMap::new();
        for ((_, nr), s) in &self.rows {
            t.entry(*nr).or_default().add(s);
        }
        t
    }

    /// The text: each thread, then the total, with errno lines under each syscall when asked,
    /// rows in `sort`'s order.
    pub fn text(&self, table: &SyscallTable, errno_lines: bool, sort: SortBy) -> String {
        let mut out = String::from("\n Summary of events:\n");
        let all: u64 = self.rows.values().map(|s| s.calls).sum();
        let mut tids: Vec<u32> = self.rows.keys().map(|(t, _)| *t).collect();
        tids.dedup();
        for tid in tids {
            let per: BTreeMap<u32, Stats> = self
                .rows
                .iter()
                .filter(|((t, _), _)| *t == tid)
                .map(|((_, nr), s)| (*nr, s.clone()))
                .collect();
            let n: u64 = per.values().map(|s| s.calls).sum();
            let name = self.names.get(&tid).map_or("?", String::as_str);
            let pct = if all > 0 { n as f64 * 100.0 / all as f64 } else { 0.0 };
            let _ = writeln!(out, "\n {name} ({tid}), {n} events, {pct:.1}%");
            table_text(&mut out, &per, table, (errno_lines, sort));
        }
        let _ = writeln!(out, "\n total, {all} events");
        table_text(&mut out, &self.totals(), table, (errno_lines, sort));
        out
    }

    /// The `data` of each `trace_summary` record: one per syscall in total, then per thread.
    pub fn json(&self, table: &SyscallTable) -> Vec<serde_json::Value> {
        let row = |tid: Option<u32>, nr: u32, s: &Stats| {
            let errnos: serde_json::Map<String, serde_json::Value> = s
                .errnos
                .iter()
                .map(|(e, n)| (errno::name(*e).map_or(e.to_string(), str::to_string), (*n).into()))
                .collect();
            serde_json::json!({
                "tid": tid,
                "comm": tid.and_then(|t| self.names.get(&t)),
                "syscall": name(table, nr),
                "calls": s.calls,
                "errors": s.errors(),
                "total_ns": s.total_ns,
                "min_ns": s.min_ns,
                "max_ns": s.max_ns,
                "stddev_pct": s.stddev_pct(),
                "errnos": errnos,
            })
        };
        let mut v: Vec<serde_json::Value> =
            self.totals().iter().map(|(nr, s)| row(None, *nr, s)).collect();
        v.extend(self.rows.iter().map(|((tid, nr), s)| row(Some(*tid), *nr, s)));
        v
    }
}

fn name(table: &SyscallTable, nr: u32) -> String {
    table.get(nr).map_or_else(|| format!("syscall_{nr}"), |s| s.name.clone())
}

fn table_text(
    out: &mut String,
    rows: &BTreeMap<u32, Stats>,
    table: &SyscallTable,
    (errnos, sort): (bool, SortBy),
) {
    out.push_str(
        "\n   syscall            calls  errors  total       min       avg       max       stddev\n",
    );
    out.push_str(
        "                                     (msec)    (msec)    (msec)    (msec)        (%)\n",
    );
    out.push_str(
        "   --------------- -------- ------ -------- --------- --------- ---------     ------\n",
    );
    let sorted = sort.sorted(rows, table);
    let ms = |ns: u64| ns as f64 / 1e6;
    for (nr, s) in sorted {
        let avg = s.total_ns.checked_div(s.calls).unwrap_or(0);
        let _ = writeln!(
            out,
            "   {:<15} {:>8} {:>6} {:>8.3} {:>9.3} {:>9.3} {:>9.3} {:>9.2}%",
            name(table, *nr),
            s.calls,
            s.errors(),
            ms(s.total_ns),
            ms(s.min_ns),
            ms(avg),
            ms(s.max_ns),
            s.stddev_pct()
        );
        if errnos {
            for (e, n) in &s.errnos {
                let _ = writeln!(out, "\t\t\t{}: {}", errno::name(*e).unwrap_or("?"), n);
            }
        }
    }
}

pub mod strace;
pub use strace::SortBy;

#[cfg(test)]
mod tests;
