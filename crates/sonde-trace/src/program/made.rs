//! Calls made, counted in the kernel where a line would be printed for them, so that losses are
//! said in calls: lines printed + calls lost = calls made (a call whose entry or exit record the
//! full ring buffer dropped is a call lost).
//!
//! A call is counted at its exit, after `-Z` and `--min-duration` have chosen it; calls that
//! never return (exit, exit_group) at their entry. A `--filter` is checked at entry only: with
//! one (and no duration, whose start time carries the entry's verdict to the exit) every call
//! is counted at its entry.

use super::{Mode, Plan};

/// The count of calls made (a per-CPU sum).
pub const MAP_MADE: &str = "made";

impl Plan<'_> {
    /// Calls are counted at their entry (else at their exit, where calls that began before
    /// they were traced count too: user space takes those out).
    pub fn counts_at_entry(&self) -> bool {
        self.filter.is_some() && self.duration_ns.is_none()
    }

    /// At each entry (`id`: the syscall's number there).
    pub(crate) fn made_at_entry(&self, id: &str) -> String {
        if self.mode != Mode::Lines {
            return String::new();
        }
        let count = format!("@{MAP_MADE} = count(); ");
        if self.counts_at_entry() {
            return count;
        }
        let never: Vec<String> = ["exit", "exit_group"]
            .iter()
            .filter_map(|n| self.table.by_name(n).map(|s| s.nr))
            .filter(|nr| self.selection.all || self.selection.nrs.contains(nr))
            .map(|nr| format!("{id} == {nr}"))
            .collect();
        match never.is_empty() {
            true => String::new(),
            false => format!("if ({}) {{ {count}}} ", never.join(" || ")),
        }
    }

    /// At each exit chosen for a line.
    pub(crate) fn made_at_exit(&self) -> String {
        match self.mode == Mode::Lines && !self.counts_at_entry() {
            true => format!("@{MAP_MADE} = count(); "),
            false => String::new(),
        }
    }
}
