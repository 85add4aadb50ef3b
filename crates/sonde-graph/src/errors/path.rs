//! The records of one failed call put back together: the program sends the failing path's
//! frames (outermost first), then the call's own record; frames wait here, by thread, for it.

use super::program::Returns;
use super::result;
use std::collections::HashMap;

/// One frame of a failing path, as the program sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct RawFrame {
    /// 0 is the entry function.
    pub level: u32,
    /// The function's address (as `func` gives it: the start of the function or just past it).
    pub addr: u64,
    pub result: u64,
    pub duration_ns: u64,
    /// Nanoseconds since boot (CLOCK_MONOTONIC) at its entry.
    pub start_ns: u64,
}

/// One frame, named.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub name: String,
    pub returns: Returns,
    pub result: u64,
    pub duration_ns: u64,
    pub start_ns: u64,
}

impl Frame {
    pub fn result_text(&self) -> String {
        result::text(self.returns, self.result)
    }

    pub fn errno(&self) -> Option<i32> {
        result::errno(self.returns, self.result)
    }

    /// Did it return an error (rather than only take long)?
    pub fn failed(&self) -> bool {
        self.errno().is_some() || (self.returns == Returns::Pointer && self.result == 0)
    }
}

/// One argument of the entry function, as printed.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgValue {
    pub name: String,
    /// Its C type, as BTF names it.
    pub ty: String,
    pub text: String,
}

/// A call of the entry function that failed, with the path its failure came up through.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedCall {
    pub pid: u32,
    pub tid: u32,
    pub comm: String,
    pub cpu: u32,
    /// The entry function first, the function that failed first last.
    pub frames: Vec<Frame>,
    pub args: Vec<ArgValue>,
    /// Recorded functions whose returns were not seen (the call ended with them still open).
    pub unreturned: u64,
}

impl FailedCall {
    pub fn function(&self) -> &str {
        self.frames.first().map_or("", |f| f.name.as_str())
    }

    /// The frame the failure came from: the deepest.
    pub fn origin(&self) -> Option<&Frame> {
        self.frames.last()
    }
}

/// Frames waiting for their call's record, by thread. A thread runs one call at a time, so a
/// frame record of a thread always belongs to the next call record of that thread.
#[derive(Default)]
pub struct Pending {
    by_tid: HashMap<u32, Vec<RawFrame>>,
}

impl Pending {
    pub fn frame(&mut self, tid: u32, f: RawFrame) {
        self.by_tid.entry(tid).or_default().push(f);
    }

    /// The frames of the call `tid` just ended, outermost first. `sent` is how many the program
    /// sent: fewer here means ring-buffer records were lost, and the path is returned as far as
    /// it is known (None when even its entry frame is missing).
    pub fn take(&mut self, tid: u32, sent: u32) -> Option<Vec<RawFrame>> {
        let mut frames = self.by_tid.remove(&tid).unwrap_or_default();
        frames.sort_by_key(|f| f.level);
        frames.dedup_by_key(|f| f.level);
        // The path is whole from level 0 up to the first gap.
        let whole = frames.iter().enumerate().take_while(|(i, f)| f.level == *i as u32).count();
        frames.truncate(whole.min(sent as usize));
        (!frames.is_empty()).then_some(frames)
    }
}

/// The function name in a symbol as kallsyms resolves it (`path_openat+0x4` -> `path_openat`).
pub fn function_of(symbol: &str) -> &str {
    symbol.split_once('+').map_or(symbol, |(f, _)| f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(level: u32) -> RawFrame {
        RawFrame { level, addr: 0x1000 + level as u64, result: 0, duration_ns: 1, start_ns: 1 }
    }

    #[test]
    fn frames_wait_for_their_threads_call() {
        let mut p = Pending::default();
        p.frame(7, raw(1));
        p.frame(8, raw(0));
        p.frame(7, raw(0));
        let got = p.take(7, 2).unwrap();
        assert_eq!(got.iter().map(|f| f.level).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(p.take(8, 1).unwrap().len(), 1);
        assert!(p.take(8, 1).is_none(), "taken once");
    }

    #[test]
    fn a_path_with_a_lost_frame_ends_before_the_gap() {
        let mut p = Pending::default();
        for l in [0, 1, 3] {
            p.frame(1, raw(l));
        }
        assert_eq!(p.take(1, 4).unwrap().len(), 2);
        p.frame(1, raw(2));
        assert!(p.take(1, 1).is_none(), "no entry frame: nothing to show");
    }

    #[test]
    fn symbols_name_their_function() {
        assert_eq!(function_of("path_openat+0x4"), "path_openat");
        assert_eq!(function_of("vfs_read"), "vfs_read");
    }
}
