//! Calls between their entry and exit records, and perf trace's `...` / `... [continued]`.
//!
//! A call whose exit comes before any other line is printed whole, at its exit. When the line of
//! a call that started later is printed first (another thread's short call during a blocking
//! read), the earlier call's entry is printed at that point with ` ...` and its exit later as
//! `... [continued]: NAME()) = RESULT`, as perf trace does. Without interleaving (JSON,
//! `--failure`/`--duration`, whose exits may be dropped) every call is printed whole.
//!
//! strace's layout interleaves as `strace -f` does, by time: a call is split as soon as anything
//! of another task (an entry, an exit, an event) happens between its entry and its exit, and then
//! printed as `NAME(args <unfinished ...>` and later `<... NAME resumed>) = RESULT`
//! ([`InFlight::strace`]).

use crate::line::{Call, Entry};
use std::collections::HashMap;

/// What to print, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// The entry of a call still running, interrupted by a later line: `NAME(args) ...`.
    Interrupted(Entry),
    /// A call printed in one line.
    Whole(Call),
    /// The exit of a call whose entry was printed before: `... [continued]: NAME()) = RESULT`.
    Continued(Call),
    /// A call that never returns (exit, exit_group), printed at its entry: `NAME(args) = ?`.
    NoReturn(Entry),
}

impl Piece {
    /// The task whose call it is.
    pub fn tid(&self) -> u32 {
        match self {
            Piece::Interrupted(e) | Piece::NoReturn(e) => e.tid,
            Piece::Whole(c) | Piece::Continued(c) => c.entry.tid,
        }
    }
}

#[derive(Debug)]
struct Open {
    entry: Entry,
    /// Order of entries, to find the calls that started before a line.
    seq: u64,
    shown: bool,
}

#[derive(Debug, Default)]
pub struct InFlight {
    open: HashMap<u32, Open>,
    /// Copies an entry program made before its record (strings, structs), by thread, until that
    /// record comes: records of other CPUs may land between them and it.
    pending: HashMap<u32, Vec<(usize, Vec<u8>)>>,
    /// Counts entries, exits and events: the order in which they happened.
    seq: u64,
    interleave: bool,
    /// strace's rule: anything after a call's entry splits it.
    by_time: bool,
}

impl InFlight {
    pub fn new(interleave: bool) -> InFlight {
        InFlight { interleave, ..InFlight::default() }
    }

    /// strace -f's interleaving: a call is printed whole only when nothing of another task
    /// happened between its entry and its exit.
    pub fn strace() -> InFlight {
        InFlight { interleave: true, by_time: true, ..InFlight::default() }
    }

    /// A call begins. A call of the same thread still open lost its exit (or was filtered out):
    /// it is replaced.
    pub fn enter(&mut self, mut entry: Entry) {
        self.seq += 1;
        self.take_pending(&mut entry);
        self.open.insert(entry.tid, Open { entry, seq: self.seq, shown: false });
    }

    /// A call that never returns begins: printed now, after the calls it interrupts.
    pub fn no_return(&mut self, mut entry: Entry) -> Vec<Piece> {
        self.take_pending(&mut entry);
        self.open.remove(&entry.tid);
        self.seq += 1;
        let mut out = self.interrupt(u64::MAX);
        out.push(Piece::NoReturn(entry));
        out
    }

    /// A copy the entry program of `tid` made before its record (at `index`, see
    /// [`crate::memory`]): kept for the entry record that follows.
    pub fn copied_at_entry(&mut self, tid: u32, index: usize, bytes: Vec<u8>) {
        let held = self.pending.entry(tid).or_default();
        // A second copy at the same index is another call's: the first call's entry was lost.
        if held.iter().any(|(i, _)| *i == index) {
            held.clear();
        }
        held.push((index, bytes));
    }

    fn take_pending(&mut self, entry: &mut Entry) {
        if let Some(mut held) = self.pending.remove(&entry.tid) {
            held.append(&mut entry.strings);
            entry.strings = held;
        }
    }

    /// A copy made at the call's exit, before its exit record (argument `index`).
    pub fn string(&mut self, tid: u32, index: usize, bytes: Vec<u8>) {
        if let Some(o) = self.open.get_mut(&tid) {
            o.entry.strings.push((index, bytes));
        }
    }

    /// A path argument read again at the call's exit: kept when the entry had none.
    pub fn string_again(&mut self, tid: u32, index: usize, bytes: Vec<u8>) {
        if let Some(o) = self.open.get_mut(&tid) {
            if !o.entry.strings.iter().any(|(i, _)| *i == index) {
                o.entry.strings.push((index, bytes));
            }
        }
    }

    /// The open call of `tid` is not to be printed (`-P`: its path was another after all).
    pub fn forget(&mut self, tid: u32) {
        self.open.remove(&tid);
    }

    /// The open entry of `tid`, to amend before its exit.
    pub fn entry_mut(&mut self, tid: u32) -> Option<&mut Entry> {
        self.open.get_mut(&tid).map(|o| &mut o.entry)
    }

    /// The open entry of `tid`, if any.
    pub fn entry(&self, tid: u32) -> Option<&Entry> {
        self.open.get(&tid).map(|o| &o.entry)
    }

    /// A call ends: what to print now (nothing when its entry was not seen or was another
    /// syscall's).
    pub fn exit(&mut self, tid: u32, nr: u32, exit_ns: u64, ret: i64) -> Vec<Piece> {
        // Copies held for an entry record that never came (dropped by a full ring).
        self.pending.remove(&tid);
        let Some(o) = self.open.get(&tid) else { return Vec::new() };
        if o.entry.nr != nr {
            self.open.remove(&tid);
            return Vec::new();
        }
        let seq = o.seq;
        // Something happened since this call's entry (strace's rule splits it then).
        let later = self.seq > seq;
        self.seq += 1;
        let mut out = match self.by_time && later {
            // Every call still open, this one among them, in the order they began.
            true => self.interrupt(u64::MAX),
            false => self.interrupt(seq),
        };
        let Some(o) = self.open.remove(&tid) else { return out };
        let call = Call { entry: o.entry, exit_ns, ret };
        out.push(if o.shown { Piece::Continued(call) } else { Piece::Whole(call) });
        out
    }

    /// A line that is not a call (an event) is about to print: every call still open is
    /// interrupted by it.
    pub fn event(&mut self) -> Vec<Piece> {
        self.seq += 1;
        self.interrupt(u64::MAX)
    }

    /// A line for what began at `seq` is about to print: the entries of calls that began before
    /// it and are still open are printed first, in the order they began.
    fn interrupt(&mut self, seq: u64) -> Vec<Piece> {
        if !self.interleave {
            return Vec::new();
        }
        let mut earlier: Vec<&mut Open> =
            self.open.values_mut().filter(|o| !o.shown && o.seq < seq).collect();
        earlier.sort_by_key(|o| o.seq);
        earlier
            .into_iter()
            .map(|o| {
                o.shown = true;
                Piece::Interrupted(o.entry.clone())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
