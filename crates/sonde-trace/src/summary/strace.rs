//! strace's `-c` table: `-U` chooses and orders its columns, `-S` its rows; every thread's calls
//! in one table, with strace's column widths and spellings (an error count of 0 is blank). The
//! times are the calls' wall-clock durations (strace's with -w).

use super::{name, Stats, Summary};
use crate::syscalls::SyscallTable;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One of the table's columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Percent,
    Total,
    Min,
    Max,
    Avg,
    Calls,
    Errors,
    Name,
}

/// strace's default columns.
pub const DEFAULT_COLUMNS: &[Column] =
    &[Column::Percent, Column::Total, Column::Avg, Column::Calls, Column::Errors, Column::Name];

/// How the rows are ordered (`-S`): by a column's value (the percentage's is the total time's),
/// or by syscall number (`nothing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    By(Column),
    Nothing,
}

impl Default for SortBy {
    fn default() -> SortBy {
        SortBy::By(Column::Total)
    }
}

/// strace's names of the columns (`-U`) and sort keys (`-S`); None stands for `nothing`.
const ALIASES: &[(&str, Option<Column>)] = &[
    ("time", Some(Column::Percent)),
    ("time_percent", Some(Column::Percent)),
    ("time-percent", Some(Column::Percent)),
    ("time_total", Some(Column::Total)),
    ("time-total", Some(Column::Total)),
    ("total_time", Some(Column::Total)),
    ("total-time", Some(Column::Total)),
    ("min_time", Some(Column::Min)),
    ("min-time", Some(Column::Min)),
    ("shortest", Some(Column::Min)),
    ("time_min", Some(Column::Min)),
    ("time-min", Some(Column::Min)),
    ("longest", Some(Column::Max)),
    ("max_time", Some(Column::Max)),
    ("max-time", Some(Column::Max)),
    ("time_max", Some(Column::Max)),
    ("time-max", Some(Column::Max)),
    ("avg_time", Some(Column::Avg)),
    ("avg-time", Some(Column::Avg)),
    ("time_avg", Some(Column::Avg)),
    ("time-avg", Some(Column::Avg)),
    ("calls", Some(Column::Calls)),
    ("count", Some(Column::Calls)),
    ("error", Some(Column::Errors)),
    ("errors", Some(Column::Errors)),
    ("name", Some(Column::Name)),
    ("syscall", Some(Column::Name)),
    ("syscall_name", Some(Column::Name)),
    ("syscall-name", Some(Column::Name)),
    ("none", None),
    ("nothing", None),
];

fn alias(word: &str) -> Option<Option<Column>> {
    ALIASES.iter().find(|(w, _)| *w == word).map(|(_, c)| *c)
}

/// `-U COLUMNS`: strace's column names, comma-separated; the syscall's name is always shown.
pub fn parse_columns(text: &str) -> Result<Vec<Column>, String> {
    let mut columns = Vec::new();
    for word in text.split(',') {
        let column = match alias(word) {
            Some(Some(c)) => c,
            _ => return Err(format!("-U: unknown column name: '{word}'")),
        };
        if columns.contains(&column) {
            return Err(format!("-U: the column '{word}' is given more than once"));
        }
        columns.push(column);
    }
    if !columns.contains(&Column::Name) {
        columns.push(Column::Name);
    }
    Ok(columns)
}

/// `-S SORTBY`: a column's name, or `nothing`.
pub fn parse_sortby(word: &str) -> Result<SortBy, String> {
    match alias(word) {
        Some(Some(c)) => Ok(SortBy::By(c)),
        Some(None) => Ok(SortBy::Nothing),
        None => Err(format!("-S: invalid sortby: '{word}'")),
    }
}

impl SortBy {
    /// The rows in this order; ties (and `nothing`) by syscall number, as strace's sort leaves
    /// them.
    pub fn sorted<'a>(
        self,
        rows: &'a BTreeMap<u32, Stats>,
        table: &SyscallTable,
    ) -> Vec<(&'a u32, &'a Stats)> {
        let mut v: Vec<(&u32, &Stats)> = rows.iter().collect();
        let avg = |s: &Stats| s.total_ns.checked_div(s.calls).unwrap_or(0);
        let column = match self {
            SortBy::By(c) => c,
            SortBy::Nothing => return v,
        };
        let key = |s: &Stats| match column {
            Column::Percent | Column::Total => s.total_ns,
            Column::Min => s.min_ns,
            Column::Max => s.max_ns,
            Column::Avg => avg(s),
            Column::Calls => s.calls,
            Column::Errors => s.errors(),
            Column::Name => 0,
        };
        match column {
            Column::Name => v.sort_by_key(|(nr, _)| name(table, **nr)),
            _ => v.sort_by_key(|(_, s)| std::cmp::Reverse(key(s))),
        }
        v
    }
}

/// What the totals line and the widths are made of.
struct Totals {
    seconds: f64,
    calls: u64,
    errors: u64,
    min_ns: u64,
    max_ns: u64,
    /// The largest of the rows' shortest calls, and of their averages (for the widths).
    min_max_ns: u64,
    avg_max_ns: u64,
    name_max: usize,
}

impl Totals {
    fn of(rows: &BTreeMap<u32, Stats>, table: &SyscallTable) -> Totals {
        let avg = |s: &Stats| s.total_ns.checked_div(s.calls).unwrap_or(0);
        Totals {
            seconds: rows.values().map(|s| s.total_ns).sum::<u64>() as f64 / 1e9,
            calls: rows.values().map(|s| s.calls).sum(),
            errors: rows.values().map(Stats::errors).sum(),
            min_ns: rows.values().map(|s| s.min_ns).min().unwrap_or(0),
            max_ns: rows.values().map(|s| s.max_ns).max().unwrap_or(0),
            min_max_ns: rows.values().map(|s| s.min_ns).max().unwrap_or(0),
            avg_max_ns: rows.values().map(avg).max().unwrap_or(0),
            name_max: rows.keys().map(|nr| name(table, *nr).len()).max().unwrap_or(0),
        }
    }

    /// Each column's width: its header's, or its widest number's.
    fn width(&self, c: Column) -> usize {
        let secs = |ns: u64| format!("{}.000000", ns / 1_000_000_000).len();
        match c {
            Column::Percent => 6,
            Column::Total => 11.max(format!("{:.6}", self.seconds).len()),
            Column::Min => 8.max(secs(self.min_max_ns)),
            Column::Max => 7.max(secs(self.max_ns)),
            Column::Avg => 11.max((self.avg_max_ns / 1000).to_string().len()),
            Column::Calls => 9.max(self.calls.to_string().len()),
            Column::Errors => 9.max(self.errors.to_string().len()),
            Column::Name => 16.max(self.name_max + 1),
        }
    }
}

fn header(c: Column) -> &'static str {
    match c {
        Column::Percent => "% time",
        Column::Total => "seconds",
        Column::Min => "shortest",
        Column::Max => "longest",
        Column::Avg => "usecs/call",
        Column::Calls => "calls",
        Column::Errors => "errors",
        Column::Name => "syscall",
    }
}

/// One row's (or the totals') values, before they are spelled.
struct Cells<'a> {
    percent: f64,
    seconds: f64,
    min_ns: u64,
    max_ns: u64,
    avg_us: u64,
    calls: u64,
    errors: u64,
    name: &'a str,
}

fn cell(c: Column, v: &Cells, width: usize, last: bool) -> String {
    let secs = |ns: u64| ns as f64 / 1e9;
    match c {
        Column::Percent => format!("{:>width$.2}", v.percent),
        Column::Total => format!("{:>width$.6}", v.seconds),
        Column::Min => format!("{:>width$.6}", secs(v.min_ns)),
        Column::Max => format!("{:>width$.6}", secs(v.max_ns)),
        Column::Avg => format!("{:>width$}", v.avg_us),
        Column::Calls => format!("{:>width$}", v.calls),
        // strace prints a count of 0 with no digits.
        Column::Errors if v.errors == 0 => " ".repeat(width),
        Column::Errors => format!("{:>width$}", v.errors),
        Column::Name if last => v.name.to_string(),
        Column::Name => format!("{:<width$}", v.name),
    }
}

impl Summary {
    /// strace's table of every thread's calls, in these columns and this order.
    pub fn strace_text(&self, table: &SyscallTable, columns: &[Column], sort: SortBy) -> String {
        let rows = self.totals();
        let t = Totals::of(&rows, table);
        let last = columns.len().saturating_sub(1);
        let line = |out: &mut String, cells: Vec<String>| {
            let _ = writeln!(out, "{}", cells.join(" "));
        };
        let mut out = String::new();
        let heads = columns.iter().enumerate().map(|(i, &c)| match (c, i == last) {
            (Column::Name, true) => header(c).to_string(),
            (Column::Name, false) => format!("{:<w$}", header(c), w = t.width(c)),
            _ => format!("{:>w$}", header(c), w = t.width(c)),
        });
        line(&mut out, heads.collect());
        let divider: Vec<String> = columns.iter().map(|&c| "-".repeat(t.width(c))).collect();
        line(&mut out, divider.clone());
        for (nr, s) in sort.sorted(&rows, table) {
            let seconds = s.total_ns as f64 / 1e9;
            let percent = match seconds == 0.0 {
                true => 0.0,
                false => 100.0 * seconds / t.seconds,
            };
            let name = name(table, *nr);
            let v = Cells {
                percent,
                seconds,
                min_ns: s.min_ns,
                max_ns: s.max_ns,
                avg_us: s.total_ns.checked_div(s.calls).unwrap_or(0) / 1000,
                calls: s.calls,
                errors: s.errors(),
                name: &name,
            };
            let cells =
                columns.iter().enumerate().map(|(i, &c)| cell(c, &v, t.width(c), i == last));
            line(&mut out, cells.collect());
        }
        line(&mut out, divider);
        let v = Cells {
            percent: 100.0,
            seconds: t.seconds,
            min_ns: t.min_ns,
            max_ns: t.max_ns,
            avg_us: match t.calls {
                0 => 0,
                n => (t.seconds / n as f64 * 1e6) as u64,
            },
            calls: t.calls,
            errors: t.errors,
            name: "total",
        };
        let cells = columns.iter().enumerate().map(|(i, &c)| cell(c, &v, t.width(c), i == last));
        line(&mut out, cells.collect());
        out
    }
}
