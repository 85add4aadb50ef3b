//! Records -> calls -> lines: entries held until their exits (or printed with `...` when another
//! line comes between, [`InFlight`]), fds and pids named ([`ProcNames`]), then written in perf
//! trace's or strace's layout or as JSON.

use super::names::ProcNames;
use super::per_task::PerTask;
use super::stamp::{self, Clock};
use crate::cli::trace::Layout;
use crate::collect::Collector;
use crate::error::Failure;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_output::value::Value;
use sonde_output::{Record, Type};
use sonde_symbols::Symbolizer;
use sonde_trace::events::{Event, FieldValue};
use sonde_trace::inflight::{InFlight, Piece};
use sonde_trace::line::{self, Call, Entry};
use sonde_trace::memory;
use sonde_trace::names::{pid_prefix, until_nul};
use sonde_trace::program as tp;
use sonde_trace::stack;
use sonde_trace::syscalls::SyscallTable;
use std::io::Write;

pub struct Lines<'a> {
    pub collector: Collector<'a>,
    pub symbols: Symbolizer,
    pub table: &'a SyscallTable,
    pub calls: InFlight,
    pub names: ProcNames,
    pub out: std::io::BufWriter<Box<dyn Write>>,
    pub start_ns: u64,
    /// `-t`, `-tt`, `-ttt`, `-r`: the timestamp each text line starts with.
    pub clock: Clock,
    /// `-T`: strace-layout lines end with the time spent in the call.
    pub call_times: bool,
    pub main_tid: u32,
    pub layout: Layout,
    pub printed: u64,
    /// Calls printed (whole, resumed, or never returning): with the calls lost, the calls made.
    pub calls_printed: u64,
    /// Tasks seen entering a call, and exits seen before any entry of their task: calls that
    /// began before they were traced (the held command's wait, a new task's return from
    /// clone, a -p thread's call in progress) are made but no line is due for them.
    pub entered: std::collections::HashSet<u32>,
    pub exits_before_entry: u64,
    pub max: Option<u64>,
    /// `--max-stack`: frames shown under each call (0: none).
    pub max_stack: usize,
    /// `-k`: each call's user frames, as strace names them.
    pub strace_stacks: bool,
    /// Other events (`-e sched:sched_switch`), by their record tag's offset.
    pub events: Vec<Event>,
    /// Signals and tasks' ends.
    pub fates: super::fate::Fates,
    /// `-ff -o PREFIX`: each task's lines in its own file.
    pub per_task: Option<PerTask>,
}

impl Lines<'_> {
    pub fn full(&self) -> bool {
        self.max.is_some_and(|m| self.printed >= m)
    }

    pub fn drain(
        &mut self,
        compiled: &sonde_compile::Compiled,
        ring: &mut RingBuf,
    ) -> Result<(), Failure> {
        ring.drain(|rec| {
            let Some(id) = rec.get(..8).map(|b| u64::from_le_bytes(b.try_into().unwrap())) else {
                return;
            };
            let Some(event) = compiled.events.get(id as usize) else { return };
            let values = self.collector.values(&event.args, &rec[8..], &mut self.symbols);
            self.record(&values);
        })
        .map_err(Failure::kernel)?;
        let _ = self.out.flush();
        if let Some(p) = &mut self.per_task {
            p.flush();
        }
        Ok(())
    }

    /// A line of task `tid`: in its own file with `-ff`, else with the others.
    pub(super) fn emit(&mut self, tid: u32, line: &str) {
        match &mut self.per_task {
            Some(p) => p.write(tid, line),
            None => {
                let _ = writeln!(self.out, "{line}");
            }
        }
    }

    /// The task whose lines strace prints without `[pid N] `: the command's first, or with
    /// `-ff` each task in its own file.
    pub(super) fn main_of(&self, tid: u32) -> u32 {
        match self.per_task {
            Some(_) => tid,
            None => self.main_tid,
        }
    }

    fn record(&mut self, v: &[Value]) {
        let int = |i: usize| Value::u64_at(v, i);
        let tid = int(1) as u32;
        match int(0) {
            tp::TAG_ENTER => {
                self.entered.insert(tid);
                let comm = match v.get(11) {
                    Some(Value::Str(b)) => String::from_utf8_lossy(until_nul(b)).into_owned(),
                    _ => String::new(),
                };
                self.names.saw(int(2) as u32, tid, &comm);
                let entry = Entry {
                    tid,
                    pid: int(2) as u32,
                    time_ns: int(3),
                    nr: int(4) as u32,
                    args: std::array::from_fn(|i| int(5 + i)),
                    comm,
                    strings: Vec::new(),
                };
                let name = self.table.get(entry.nr).map(|s| s.name.as_str());
                if matches!(name, Some("exit" | "exit_group")) {
                    for piece in self.calls.no_return(entry) {
                        self.print(piece);
                    }
                } else {
                    self.calls.enter(entry);
                    self.drop_unsure_paths(tid);
                }
            }
            tag @ (tp::TAG_SIGNAL | tp::TAG_SENT | tp::TAG_FATE) => self.fate(tag, v),
            tp::TAG_DROP => self.calls.forget(tid),
            tag @ tp::TAG_EVENT.. => self.event((tag - tp::TAG_EVENT) as usize, v),
            tag @ tp::TAG_AGAIN.. => {
                if let Some(Value::Str(b)) = v.get(2) {
                    self.calls.string_again(tid, (tag - tp::TAG_AGAIN) as usize, b.clone());
                }
            }
            tag @ tp::TAG_STRING.. => {
                let i = (tag - tp::TAG_STRING) as usize;
                // Strings (str()), copied structs (mem()) and counts (execve's), as bytes.
                let bytes = match v.get(2) {
                    Some(Value::Str(b) | Value::Bytes(b)) => Some(b.clone()),
                    Some(n) => n.bits().map(|v| v.to_le_bytes().to_vec()),
                    _ => None,
                };
                match bytes {
                    Some(b) if memory::made_at_exit(i) => self.calls.string(tid, i, b),
                    Some(b) => self.calls.copied_at_entry(tid, i, b),
                    None => {}
                }
            }
            tp::TAG_EXIT => {
                if self.entered.insert(tid) {
                    self.exits_before_entry += 1;
                }
                if int(4) as i64 == -(libc::EFAULT as i64) {
                    self.unreadable_paths(tid);
                }
                self.new_image(tid, int(4) as i64);
                let pieces = self.calls.exit(tid, int(3) as u32, int(2), int(4) as i64);
                let text = |i: usize| match v.get(i) {
                    Some(Value::Sym { name: Some(n), .. }) => n.as_str(),
                    _ => "",
                };
                let frames = match self.strace_stacks {
                    true => self.strace_frames(tid, text(5)),
                    false => stack::frames(text(6), text(5), self.max_stack),
                };
                for piece in pieces {
                    let call = matches!(piece, Piece::Whole(_) | Piece::Continued(_));
                    let full = self.full();
                    let of = piece.tid();
                    let json = self.print(piece);
                    // A JSON object waits for its stack (even an empty one) to be printed.
                    if call && !full && (json.is_some() || !frames.is_empty()) {
                        self.stack(of, json, &frames);
                    }
                }
            }
            _ => {}
        }
    }

    /// An execve of `tid` that returned 0 replaced its process's image: user frames are named
    /// from its new mappings.
    fn new_image(&mut self, tid: u32, ret: i64) {
        let Some(e) = self.calls.entry(tid) else { return };
        let name = self.table.get(e.nr).map(|s| s.name.as_str());
        if ret == 0 && matches!(name, Some("execve" | "execveat")) {
            self.symbols.forget(e.pid);
        }
    }

    /// `-k`: the user stack's addresses (`ustack(raw)`) named from the mappings of `tid`'s
    /// process, as strace's frames.
    fn strace_frames(&mut self, tid: u32, raw: &str) -> Vec<String> {
        let pid = self.calls.entry(tid).map_or(tid, |e| e.pid);
        let addrs = stack::raw_addresses(raw);
        addrs
            .into_iter()
            .map(|a| {
                let s = self.symbols.user_symbol(pid, a);
                let frame = s.as_ref().map(|s| stack::UserFrame {
                    file: &s.file,
                    symbol: s.symbol.as_deref(),
                    offset: s.offset,
                    file_offset: s.file_offset,
                });
                stack::strace_frame(frame, a)
            })
            .collect()
    }

    /// The empty paths (not buffers) at non-NULL pointers the entry just copied: unread or
    /// empty, the copy at its exit says which (else its pointer shows).
    fn drop_unsure_paths(&mut self, tid: u32) {
        let table = self.table;
        let Some(entry) = self.calls.entry_mut(tid) else { return };
        let Some(sc) = table.get(entry.nr) else { return };
        let args = entry.args;
        let unsure = |i: usize, b: &[u8]| {
            b.first().is_none_or(|&c| c == 0)
                && sc.args.get(i).is_some_and(|a| !a.name.contains("buf"))
                && args.get(i).is_some_and(|&p| p != 0)
        };
        entry.strings.retain(|(i, b)| !unsure(*i, b));
    }

    /// The call failed with EFAULT: its empty paths were memory no one could read, shown as
    /// their pointers (as strace shows them).
    fn unreadable_paths(&mut self, tid: u32) {
        let Some(nr) = self.calls.entry(tid).map(|e| e.nr) else { return };
        let Some(sc) = self.table.get(nr) else { return };
        let path =
            |i: usize| sc.args.get(i).is_some_and(|a| a.is_string && !a.name.contains("buf"));
        if let Some(e) = self.calls.entry_mut(tid) {
            e.strings.retain(|(i, b)| !(path(*i) && b.first().is_none_or(|&c| c == 0)));
        }
    }

    /// Prints the piece, or hands a JSON record back unprinted for its stack to be added.
    pub(super) fn print(&mut self, piece: Piece) -> Option<Record> {
        if self.full() {
            return None;
        }
        let (start, names) = (self.start_ns, &self.names);
        let (tid, main_tid) = (piece.tid(), self.main_of(piece.tid()));
        // When the line's time column or stamp says (an end of call in strace's layout: its
        // exit), and how long the call took when its line ends with it.
        let (time_ns, took) = match &piece {
            Piece::Interrupted(e) | Piece::NoReturn(e) => (e.time_ns, None),
            Piece::Whole(c) => (c.entry.time_ns, Some(c.duration_ns())),
            Piece::Continued(c) if self.layout == Layout::Strace => {
                (c.exit_ns, Some(c.duration_ns()))
            }
            Piece::Continued(c) => (c.entry.time_ns, None),
        };
        let line = match &piece {
            Piece::Interrupted(entry) => {
                // Only the entry is known: a call with no exit yet.
                let call = Call { entry: entry.clone(), exit_ns: entry.time_ns, ret: 0 };
                let sc = self.table.get(entry.nr);
                match self.layout {
                    Layout::Strace => call.strace_split_line(sc, main_tid, names, false),
                    _ => call.perf_entry_line(sc, start, names),
                }
            }
            Piece::NoReturn(entry) => {
                let call = Call { entry: entry.clone(), exit_ns: entry.time_ns, ret: 0 };
                let sc = self.table.get(entry.nr);
                self.printed += 1;
                self.calls_printed += 1;
                match self.layout {
                    Layout::Json => {
                        let mut j = call.json(sc, names);
                        j["ret"] = serde_json::Value::Null;
                        j["duration_ns"] = serde_json::Value::Null;
                        Record::new(Type::TraceCall, j).to_string()
                    }
                    Layout::Strace => call.no_return_line(sc, start, names, Some(main_tid)),
                    Layout::Perf => call.no_return_line(sc, start, names, None),
                }
            }
            Piece::Whole(call) | Piece::Continued(call) => {
                let sc = self.table.get(call.entry.nr);
                let name = sc.map_or("", |s| s.name.as_str());
                self.names.before(call, name);
                let names = &self.names;
                if self.layout == Layout::Json && (self.max_stack > 0 || self.strace_stacks) {
                    let record = Record::new(Type::TraceCall, call.json(sc, names));
                    self.names.after(call, name);
                    self.printed += 1;
                    self.calls_printed += 1;
                    return Some(record);
                }
                let line = match (self.layout, &piece) {
                    (Layout::Json, _) => {
                        Record::new(Type::TraceCall, call.json(sc, names)).to_string()
                    }
                    (Layout::Strace, Piece::Continued(_)) => {
                        call.strace_split_line(sc, main_tid, names, true)
                    }
                    (Layout::Strace, _) => call.strace_line(sc, main_tid, names),
                    (Layout::Perf, Piece::Continued(_)) => {
                        call.perf_continued_line(sc, start, names)
                    }
                    (Layout::Perf, _) => call.perf_line(sc, start, names),
                };
                self.names.after(call, name);
                self.printed += 1;
                self.calls_printed += 1;
                line
            }
        };
        let line = self.stamped(line, time_ns, took);
        self.emit(tid, &line);
        None
    }

    /// A text line with what -t/-tt/-ttt/-r and -T add: the stamp after strace's `[pid N] ` or
    /// in place of perf's time column, the call's time at the end of strace's line.
    pub(super) fn stamped(&mut self, mut line: String, time_ns: u64, took: Option<u64>) -> String {
        if self.layout == Layout::Json {
            return line;
        }
        if let (true, Layout::Strace, Some(ns)) = (self.call_times, self.layout, took) {
            line.push_str(&stamp::call_time(ns));
        }
        if !self.clock.is_on() {
            return line;
        }
        let stamp = self.clock.text(time_ns);
        match self.layout {
            Layout::Perf => match line.split_once(' ') {
                Some((_, rest)) => format!("{stamp} {rest}"),
                None => line,
            },
            _ => {
                let at = match line.starts_with("[pid ") {
                    true => line.find("] ").map_or(0, |i| i + 2),
                    false => 0,
                };
                line.insert_str(at, &format!("{stamp} "));
                line
            }
        }
    }

    /// Another event: `[tag, tid, pid, nsecs, comm, fields..., (ustack, kstack)]`, printed in
    /// the time line after the calls it interrupts.
    fn event(&mut self, k: usize, v: &[Value]) {
        if k >= self.events.len() || self.full() {
            return;
        }
        for piece in self.calls.event() {
            self.print(piece);
        }
        let ev = &self.events[k];
        let int = |i: usize| v.get(i).and_then(Value::bits).unwrap_or(0);
        let comm = match v.get(4) {
            Some(Value::Str(b)) => String::from_utf8_lossy(until_nul(b)).into_owned(),
            _ => String::new(),
        };
        let (tid, pid, time_ns) = (int(1) as u32, int(2) as u32, int(3));
        let n = ev.fields.len();
        let fields: Vec<FieldValue> = (5..5 + n)
            .map(|i| match v.get(i) {
                Some(Value::Str(b)) => FieldValue::Str(b.clone()),
                _ => FieldValue::Int(int(i)),
            })
            .collect();
        let text = |i: usize| match v.get(i) {
            Some(Value::Sym { name: Some(n), .. }) => n.as_str(),
            _ => "",
        };
        let depth = ev.max_stack.unwrap_or(self.max_stack);
        let frames = stack::frames(text(6 + n), text(5 + n), depth);
        let json = match self.layout {
            Layout::Json => {
                Some(Record::new(Type::TraceEvent, ev.data(time_ns, pid, tid, &comm, &fields)))
            }
            Layout::Strace => {
                let prefix = match tid == self.main_of(tid) {
                    true => String::new(),
                    false => pid_prefix(&self.names, tid, &comm),
                };
                let line = format!("{prefix}{}", ev.text(&fields, &self.names));
                let line = self.stamped(line, time_ns, None);
                self.emit(tid, &line);
                None
            }
            Layout::Perf => {
                let head = line::perf_head(time_ns, None, self.start_ns, &comm, tid);
                let line = format!("{head}{}", ev.text(&fields, &self.names));
                let line = self.stamped(line, time_ns, None);
                self.emit(tid, &line);
                None
            }
        };
        self.printed += 1;
        match json {
            Some(j) if frames.is_empty() => self.emit(tid, &j.to_string()),
            j => self.stack(tid, j, &frames),
        }
    }

    /// The frames under the call just printed (or in its JSON record, then printed).
    fn stack(&mut self, tid: u32, json: Option<Record>, frames: &[String]) {
        let lines = match (json, self.layout) {
            (Some(mut r), _) => {
                r.data["stack"] = serde_json::json!(frames);
                vec![r.to_string()]
            }
            (None, Layout::Strace) => stack::strace_lines(frames),
            (None, _) => stack::perf_lines(frames),
        };
        for l in lines {
            self.emit(tid, &l);
        }
    }
}
