//! `-c`/`-C`: calls the summary could not count because its tables were full, from the
//! hand-built programs' slot heads (`sonde_trace::fast::NotCounted`) or from the compiled
//! programs' count of refused updates (`map_full::refused`). Said in calls, on stderr or as
//! `map_full` records, and lost calls for the exit status.

use crate::map_full;
use sonde_compile::abi::FIRST_USER_MAP;
use sonde_compile::Compiled;
use sonde_kernel::object::map::Map;
use sonde_output::Record;
use sonde_trace::fast::{NotCounted, MAP_CALLS, MAP_ERRS};
use sonde_trace::program as tp;

/// What the full tables cost, and their size.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Full {
    pub not_counted: NotCounted,
    /// Rows of the (thread, syscall) table.
    pub rows: u32,
    /// Rows of the (thread, syscall, errno) table.
    pub errno_rows: u32,
}

impl Full {
    /// The hand-built summary's: both tables have `rows` rows.
    pub fn fast(not_counted: NotCounted, rows: u32) -> Full {
        Full { not_counted, rows, errno_rows: rows }
    }

    /// The compiled summary's: updates of its calls map (`@n`) and errno map (`@errs`) the
    /// kernel refused, and start times it could not keep (that call's exit finds none). A
    /// count that cannot be read is none.
    pub fn compiled(compiled: &Compiled, maps: &[Map]) -> Full {
        let refused = map_full::refused(compiled, maps).unwrap_or_default();
        let of = |name: &str| {
            let i = compiled.user_maps.iter().position(|m| m.name.trim_start_matches('@') == name);
            let n = i.and_then(|i| refused.get(i).copied().flatten()).unwrap_or(0);
            let rows = i.and_then(|i| compiled.maps.get(FIRST_USER_MAP + i));
            (n, rows.map_or(0, |d| d.max_entries))
        };
        let ((calls, rows), (errnos, errno_rows)) = (of(tp::MAP_STATS), of(tp::MAP_ERRNO));
        let calls = calls + of(tp::MAP_START).0;
        Full { not_counted: NotCounted { calls, errnos }, rows, errno_rows }
    }

    /// Calls (or failed calls' errnos) missing from the summary: lost, for the exit status.
    pub fn lost(&self) -> u64 {
        self.not_counted.calls + self.not_counted.errnos
    }

    /// One line each for stderr, without `sonde: `.
    pub fn sentences(&self) -> Vec<String> {
        let NotCounted { calls, errnos } = self.not_counted;
        let mut out = Vec::new();
        if calls > 0 {
            out.push(format!(
                "{calls} call{} not counted: the summary's table of {} (thread, syscall) rows was full",
                plural(calls),
                self.rows
            ));
        }
        if errnos > 0 {
            out.push(format!(
                "{errnos} failed call{} not counted by errno: the summary's table of {} (thread, syscall, errno) rows was full",
                plural(errnos),
                self.errno_rows
            ));
        }
        out
    }

    /// `map_full` records: `dropped` is calls (or failed calls) not counted.
    pub fn records(&self) -> Vec<Record> {
        let NotCounted { calls, errnos } = self.not_counted;
        let mut out = Vec::new();
        if calls > 0 {
            out.push(Record::map_full(MAP_CALLS, calls, self.rows));
        }
        if errnos > 0 {
            out.push(Record::map_full(MAP_ERRS, errnos, self.errno_rows));
        }
        out
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn said_in_calls_with_the_tables_size() {
        let f = Full::fast(NotCounted { calls: 123, errnos: 1 }, 16384);
        assert_eq!(
            f.sentences(),
            [
                "123 calls not counted: the summary's table of 16384 (thread, syscall) rows was full",
                "1 failed call not counted by errno: the summary's table of 16384 (thread, syscall, errno) rows was full",
            ]
        );
        let records: Vec<String> = f.records().iter().map(|r| r.to_string()).collect();
        assert_eq!(
            records,
            [
                r#"{"type": "map_full", "data": {"dropped": 123, "map": "calls", "max_entries": 16384}}"#,
                r#"{"type": "map_full", "data": {"dropped": 1, "map": "errnos", "max_entries": 16384}}"#,
            ]
        );
        assert_eq!(f.lost(), 124);
        assert!(Full::default().sentences().is_empty() && Full::default().records().is_empty());
    }
}
