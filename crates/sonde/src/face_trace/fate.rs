//! The traced tasks' fate in the time line: `--- SIGNAME {...} ---` where a signal is delivered
//! (or, for a fatal one the kernel never delivers, just before the end it causes) and
//! `+++ exited with N +++` at each task's end, as strace prints them (`sonde_trace::fate`).

use super::lines::Lines;
use crate::cli::trace::Layout;
use sonde_output::value::Value;
use sonde_output::{Record, Type};
use sonde_trace::fate::{self, SigInfo, GENERATE_DELIVERED, GENERATE_IGNORED};
use sonde_trace::names::{pid_prefix, until_nul};
use sonde_trace::program as tp;

/// Which fate lines are printed (strace's -qq, -qqq leave them out), and the signals sent
/// but not yet seen delivered.
#[derive(Default)]
pub struct Fates {
    pub exits: bool,
    pub signals: bool,
    /// strace's `-e signal=SET`.
    pub shown: fate::SignalSet,
    pub sent: fate::Sent,
}

/// Who a line is about.
struct Task {
    tid: u32,
    pid: u32,
    time_ns: u64,
    comm: String,
}

impl Lines<'_> {
    /// A fate record: `[tag, tid, pid, nsecs, ...]` (see `sonde_trace::program::fate`).
    pub(super) fn fate(&mut self, tag: u64, v: &[Value]) {
        let int = |i: usize| v.get(i).and_then(Value::bits).unwrap_or(0);
        let text = |i: usize| match v.get(i) {
            Some(Value::Str(b)) => String::from_utf8_lossy(until_nul(b)).into_owned(),
            _ => String::new(),
        };
        let task =
            Task { tid: int(1) as u32, pid: int(2) as u32, time_ns: int(3), comm: String::new() };
        let info = SigInfo {
            signo: int(4) as i32,
            errno: int(5) as i32,
            code: int(6) as i32,
            word: int(7),
            status: int(8) as i32,
            utime: int(9),
            stime: int(10),
        };
        if info.is_release_by(std::process::id()) {
            return;
        }
        match tag {
            tp::TAG_SIGNAL => {
                self.fates.sent.delivered(task.pid, info.signo);
                self.signal(Task { comm: text(11), ..task }, &info);
            }
            tp::TAG_SENT => {
                // Sent without a siginfo of its own (`SEND_SIG_NOINFO`, `SEND_SIG_PRIV`).
                let info = match int(11) {
                    p @ (0 | 1) => {
                        SigInfo::without_info(info.signo, p, int(13) as u32, int(14) as u32)
                    }
                    _ => info,
                };
                match int(12) {
                    // A tracer would have seen an ignored signal delivered.
                    GENERATE_IGNORED => self.signal(task, &info),
                    GENERATE_DELIVERED => self.fates.sent.sent(task.pid, info),
                    _ => {}
                }
            }
            tp::TAG_FATE => self.exit(Task { comm: text(5), ..task }, int(4) as u32),
            _ => {}
        }
    }

    /// The command's end from its wait status, where the kernel's exit code could not be read.
    pub fn command_end(&mut self, pid: u32, status: i32) {
        let task = Task {
            tid: pid,
            pid,
            time_ns: sonde_kernel::host::clock::monotonic_ns(),
            comm: String::new(),
        };
        self.exit(task, fate::exit_code_of_status(status));
    }

    fn signal(&mut self, task: Task, info: &SigInfo) {
        if !self.fates.signals || !self.fates.shown.contains(info.signo) {
            return;
        }
        let json = serde_json::json!({
            "signal": fate::signal_name(info.signo),
            "code": info.code,
            "text": info.line(),
        });
        self.task_line(&task, info.line(), Type::TraceSignal, json);
    }

    fn exit(&mut self, task: Task, exit_code: u32) {
        if let Some(info) = self.fates.sent.killing(task.pid, exit_code) {
            let t = Task { comm: task.comm.clone(), ..task };
            self.signal(t, &info);
        }
        if task.tid == task.pid {
            self.fates.sent.ended(task.pid);
        }
        if self.fates.exits {
            self.exit_line(&task, exit_code);
        }
        // Its last line is written: with -ff, its file is done.
        if let Some(p) = &mut self.per_task {
            p.close(task.tid);
        }
    }

    /// `+++ exited with 0 +++`, `+++ killed by SIGKILL +++`.
    fn exit_line(&mut self, task: &Task, exit_code: u32) {
        let killed = fate::killed_by(exit_code);
        let json = serde_json::json!({
            "status": killed.is_none().then_some((exit_code >> 8) & 0xff),
            "signal": killed.map(fate::signal_name),
            "core_dumped": killed.is_some() && exit_code & 0x80 != 0,
            "text": fate::exit_line(exit_code),
        });
        self.task_line(task, fate::exit_line(exit_code), Type::TraceExit, json);
    }

    /// A line about a task, after the calls it interrupts: strace's `[pid N] ` before it, or a
    /// JSON record.
    fn task_line(&mut self, task: &Task, text: String, ty: Type, mut json: serde_json::Value) {
        // perf trace's layout is perf trace's: it prints neither.
        if self.full() || self.layout == Layout::Perf {
            return;
        }
        for piece in self.calls.event() {
            self.print(piece);
        }
        let line = match self.layout {
            Layout::Json => {
                for (k, v) in [
                    ("time_ns", serde_json::json!(task.time_ns)),
                    ("pid", serde_json::json!(task.pid)),
                    ("tid", serde_json::json!(task.tid)),
                    ("comm", serde_json::json!(task.comm)),
                ] {
                    json[k] = v;
                }
                Record::new(ty, json).to_string()
            }
            Layout::Strace => {
                let line = match task.tid == self.main_of(task.tid) {
                    true => text,
                    false => format!("{}{text}", pid_prefix(&self.names, task.tid, &task.comm)),
                };
                self.stamped(line, task.time_ns, None)
            }
            Layout::Perf => return,
        };
        // Not counted for --max-events: it counts calls and events.
        self.emit(task.tid, &line);
    }
}
