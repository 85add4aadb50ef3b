//! `sonde trace`'s flags: strace's where strace has the letter (`-f`, `-c`, `-C`, `-t`, `-r`, `-T`,
//! `-y`, `-s`, `-o`, `-e`, `-p`, `-Z`), perf trace's and sonde's own as long names, and the
//! settings they come to once checked.

mod refused;

use super::shared::{self, JsonFormat};
use crate::child::Command;
use crate::error::Failure;
use crate::face_trace::stamp::Stamp;
use clap::{ArgAction, Args};
use sonde_syntax::diag::SourceFile;
use sonde_trace::events::{self, Spec};
use sonde_trace::fate::SignalSet;
use sonde_trace::filter::{self, Filter};
use sonde_trace::line::xlat::Xlat;
use sonde_trace::summary::strace::{parse_columns, parse_sortby, Column, SortBy};

/// Trace system calls: strace's lines at perf trace's cost, filtered in the kernel.
#[derive(Args, Debug)]
pub struct TraceArgs {
    /// What to trace, as strace's -e (repeatable): `trace=SET` or SET alone: syscall names, globs,
    /// `!` to negate, strace's classes (%file, %net, %process, %memory, %signal, %desc), and
    /// tracepoints `CATEGORY:NAME` (globs allowed, each with its own `/max-stack=N/`) in the same
    /// time line; `status=failed` for only failed calls (-Z).
    #[arg(short = 'e', long = "expr", value_name = "EXPR")]
    pub expr: Vec<String>,
    /// Follow the threads and children the traced processes create: the default, accepted as
    /// strace's -f (--no-inherit turns it off); -ff with -o PREFIX writes each task's lines to
    /// PREFIX.TID, as strace's.
    #[arg(short = 'f', long = "follow-forks", action = ArgAction::Count)]
    pub follow: u8,
    /// Only the summary (strace's -c): per thread and in total, aggregated in the kernel.
    #[arg(short = 'c', long = "summary", visible_alias = "summary-only")]
    pub summary: bool,
    /// The lines and then the summary (strace's -C).
    #[arg(short = 'C', long = "with-summary", conflicts_with = "summary")]
    pub with_summary: bool,
    /// Each line with the wall-clock time: -t as HH:MM:SS, -tt with microseconds, -ttt as seconds
    /// since the epoch (strace's).
    #[arg(short = 't', action = ArgAction::Count)]
    pub timestamps: u8,
    /// Each line with the time since the previous one (strace's -r).
    #[arg(short = 'r', long = "relative-timestamps")]
    pub relative: bool,
    /// The time spent in each call, as `<0.000012>` at the end of strace-layout lines (strace's
    /// -T; the perf layout always shows it).
    #[arg(short = 'T', long = "syscall-times")]
    pub syscall_times: bool,
    /// With --strace, fds with their paths, as strace's -y (`read(3</etc/hostname>, ...)`); the
    /// perf layout and JSON always show them. -yy: sockets with their endpoints
    /// (`3<TCP:[127.0.0.1:40000->127.0.0.1:8080]>`) and devices with their numbers.
    #[arg(short = 'y', long = "decode-fds", action = ArgAction::Count)]
    pub decode_fds: u8,
    /// With --strace, pids with their comms, as strace's -Y (`kill(1234<sleep>, SIGTERM)`,
    /// `[pid  1234<sleep>] `); the perf layout and JSON always show them.
    #[arg(short = 'Y', long = "decode-pids")]
    pub pid_comms: bool,
    /// With --strace, constants as strace's -X: `abbrev` (names, the default), `raw`
    /// (numbers: `0x80000`), `verbose` (both: `0x80000 /* O_RDONLY|O_CLOEXEC */`).
    #[arg(short = 'X', long = "const-print-style", value_name = "FORMAT")]
    pub const_style: Option<String>,
    /// With --strace, structures with every member, as strace's -v (struct stat and statx,
    /// ioctl's termios).
    #[arg(short = 'v', long = "no-abbrev")]
    pub verbose: bool,
    /// Bytes of each buffer shown (strace's -s): 32 by default, at most 255; paths are copied
    /// whole up to 256 bytes.
    #[arg(short = 's', long = "string-limit", value_name = "N")]
    pub string_limit: Option<usize>,
    /// Write the lines (or the summary, or the JSON records) to FILE, `-` for stdout; they go to
    /// stderr by default, as strace's and perf trace's do, apart from the command's own output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Only the calls that use PATH (strace's -P, repeatable), chosen in the kernel: a path
    /// argument that is PATH, or an fd opened on it.
    #[arg(short = 'P', long = "trace-path", value_name = "PATH")]
    pub paths: Vec<String>,
    /// Trace these processes (comma-separated) and what they start.
    #[arg(short = 'p', long = "pid", value_name = "PID[,PID]", value_delimiter = ',')]
    pub pids: Vec<u32>,
    /// strace's -q: sonde prints no attach or detach messages; -qq also leaves out each task's
    /// `+++ exited with N +++`, -qqq the signals' `--- SIGNAME {...} ---` too.
    #[arg(short = 'q', long = "quiet", action = ArgAction::Count)]
    pub quiet: u8,
    /// Only failed calls (strace's -Z).
    #[arg(short = 'Z', long = "failed-only", visible_alias = "failure")]
    pub failure: bool,
    /// Only calls for which this predicate in sonde's language holds, checked in the kernel at
    /// entry: `args->NAME` (the call's arguments), comm, pid, uid...
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Only calls that took at least this long (perf trace's --duration: `2ms`, `10us`; a bare
    /// number is milliseconds).
    #[arg(long, value_name = "DURATION", value_parser = shared::call_time)]
    pub min_duration: Option<u64>,
    /// strace's layout: `openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3`, a call of
    /// one thread that another's interrupts as `[pid N] NAME(args <unfinished ...>` and later
    /// `[pid N] <... NAME resumed>) = RESULT` (perf trace's layout, the default:
    /// `NAME(args) ...` and later `... [continued]: NAME()) = RESULT`).
    #[arg(long)]
    pub strace: bool,
    #[command(flatten)]
    pub format: JsonFormat,
    /// With the perf layout, times in milliseconds since boot instead of since the start.
    #[arg(long)]
    pub absolute: bool,
    /// Trace only these threads (comma-separated; perf trace's -t).
    #[arg(long = "tid", value_name = "TID[,TID]", value_delimiter = ',')]
    pub tids: Vec<u32>,
    /// Only tasks running as this user (name or uid); alone, every process of that user.
    #[arg(long = "uid", value_name = "USER")]
    pub user: Option<String>,
    /// Every process of the system but sonde (perf trace's -a).
    #[arg(long = "all", visible_alias = "all-cpus")]
    pub all: bool,
    /// Only calls on these CPUs (`0,2-3`), filtered in the kernel; alone, every process there
    /// (perf trace's -C).
    #[arg(long = "cpu", value_name = "CPUS")]
    pub cpus: Option<String>,
    /// Do not follow the threads and children the traced processes create.
    #[arg(long = "no-inherit")]
    pub no_inherit: bool,
    /// Under each call, its kernel and user stacks (taken at its exit), the first N frames,
    /// named through the symbolizer.
    #[arg(long = "max-stack", value_name = "N")]
    pub max_stack: Option<usize>,
    /// perf trace's spelling: `--call-graph dwarf` (or `fp`) shows the stacks (127 frames unless
    /// --max-stack says); sonde's stacks are the kernel's frame-pointer walks either way.
    #[arg(long = "call-graph", value_name = "MODE")]
    pub call_graph: Option<String>,
    /// The summary's order (strace's -S): time (the default), calls, errors, name, avg-time,
    /// min-time, max-time, or nothing (syscall numbers).
    #[arg(short = 'S', long = "summary-sort-by", value_name = "SORTBY")]
    pub sort_by: Option<String>,
    /// The summary as strace's table with these columns (strace's -U, comma-separated):
    /// time-percent, total-time, min-time, max-time, avg-time, calls, errors, name.
    #[arg(short = 'U', long = "summary-columns", value_name = "COLUMNS")]
    pub columns: Option<String>,
    /// Under each call, its user stack as strace's -k prints it (` > /lib/libc.so.6(__open64+0x51)
    /// [0xf8011]`), walked by frame pointers at the call's exit.
    #[arg(short = 'k', long = "stack-trace")]
    pub strace_stacks: bool,
    /// With a summary: failed calls by errno under each syscall.
    #[arg(long = "errno-summary")]
    pub errno_summary: bool,
    /// Stop after this many lines.
    #[arg(long = "max-events", value_name = "N")]
    pub max_events: Option<u64>,
    /// Stop after this long (`5s`, `500ms`; a bare number is seconds).
    #[arg(long, value_name = "DURATION", value_parser = shared::run_time)]
    pub duration: Option<u64>,
    /// On lost calls, exit 0 instead of 1 (they are reported either way).
    #[arg(long = "keep-going")]
    pub keep_going: bool,
    /// Rows of the summary's tables of (thread, syscall) pairs (docs/trace.md; hidden: for
    /// tests that fill them).
    #[arg(long = "summary-rows", value_name = "N", hide = true,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub summary_rows: Option<u32>,
    #[command(flatten)]
    pub refused: refused::Refused,
    /// Start CMD, trace it and everything it starts until it exits: its words reach it exactly as
    /// typed (after `--`, or after the last flag).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// Lines, the summary, or both (`-c`, `-C`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    Lines,
    Summary,
    Both,
}

/// How the lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Perf,
    Strace,
    Json,
}

/// Where the lines go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Stderr,
    Stdout,
    File(String),
}

/// Frames shown with `--call-graph` alone (the kernel's most, PERF_MAX_STACK_DEPTH).
const MAX_STACK: usize = 127;
/// Bytes of a buffer shown by default (strace's -s).
const STRING_LIMIT: usize = sonde_trace::program::BUFFER_BYTES;
/// The most bytes of a buffer shown: `str()` copies at most 256 in the kernel, one of them its
/// NUL.
const STRING_LIMIT_MAX: usize = 255;

/// What `sonde trace` runs with, checked.
#[derive(Debug)]
pub struct Trace {
    pub command: Option<Command>,
    pub pids: Vec<u32>,
    pub tids: Vec<u32>,
    pub uid: Option<u32>,
    pub cpus: Vec<u32>,
    pub follow: bool,
    /// `-e`'s syscall set (None: every syscall, unless events alone were named).
    pub syscalls: Option<String>,
    pub events: Vec<Spec>,
    pub filter: Option<Filter>,
    pub failure: bool,
    /// strace layout and JSON: each task's end (`+++ exited with N +++`; -qq leaves it out).
    pub show_exits: bool,
    /// strace layout and JSON: signals delivered (`--- SIGNAME {...} ---`; -qqq leaves them out).
    pub show_signals: bool,
    /// strace's `-e signal=SET`: which of them.
    pub signals: SignalSet,
    pub min_duration_ns: Option<u64>,
    pub show: Show,
    pub errno_summary: bool,
    pub sort: SortBy,
    /// `-U`: strace's table in these columns.
    pub columns: Option<Vec<Column>>,
    pub layout: Layout,
    pub stamp: Stamp,
    pub syscall_times: bool,
    pub decode_fds: bool,
    /// strace's -yy: sockets' endpoints, devices' numbers.
    pub decode_sockets: bool,
    pub pid_comms: bool,
    pub constants: Xlat,
    pub verbose: bool,
    pub string_limit: usize,
    pub since_boot: bool,
    pub max_stack: usize,
    pub strace_stacks: bool,
    pub max_events: Option<u64>,
    pub duration_ns: Option<u64>,
    pub keep_going: bool,
    pub summary_rows: Option<u32>,
    pub output: Output,
    /// `-P`: the paths as given.
    pub paths: Vec<String>,
    /// `-ff -o PREFIX`: each task's lines in PREFIX.TID (the rest on stderr).
    pub per_task: Option<String>,
}

impl Trace {
    pub fn json(&self) -> bool {
        self.layout == Layout::Json
    }

    pub fn summary(&self) -> bool {
        self.show != Show::Lines
    }
}

impl TraceArgs {
    pub fn settings(&self) -> Result<Trace, Failure> {
        if let Some(sentence) = &self.refused.0 {
            return Err(Failure::Usage(sentence.clone()));
        }
        let targets = (!self.command.is_empty()) as u8
            + (!self.pids.is_empty()) as u8
            + (!self.tids.is_empty()) as u8
            + self.all as u8;
        if targets > 1 || (targets == 0 && self.user.is_none() && self.cpus.is_none()) {
            return Err(Failure::Usage(
                "say what to trace: a command after `--`, -p PID, --tid TID, --uid USER, --cpu CPUS or --all (one of them, --uid and --cpu with any)".into(),
            ));
        }
        for tid in &self.tids {
            if !std::path::Path::new(&format!("/proc/{tid}")).exists() {
                return Err(Failure::Usage(format!("--tid {tid}: no thread has that id")));
            }
        }
        let (syscalls, events, status_failed, signals) = expressions(&self.expr)?;
        let json = self.format.json();
        Ok(Trace {
            command: (!self.command.is_empty()).then(|| Command::Argv(self.command.clone())),
            pids: self.pids.clone(),
            tids: self.tids.clone(),
            uid: self.user.as_deref().map(user_id).transpose()?,
            cpus: self.cpus.as_deref().map(cpu_list).transpose()?.unwrap_or_default(),
            follow: !self.no_inherit && !self.all && self.tids.is_empty() && targets > 0,
            syscalls,
            events,
            filter: self.filter.as_deref().map(parse_filter).transpose()?,
            failure: self.failure || status_failed,
            show_exits: self.quiet < 2,
            show_signals: self.quiet < 3,
            signals,
            min_duration_ns: self.min_duration,
            show: match (self.summary, self.with_summary) {
                (true, _) => Show::Summary,
                (false, true) => Show::Both,
                (false, false) => Show::Lines,
            },
            errno_summary: self.errno_summary,
            sort: self
                .sort_by
                .as_deref()
                .map(parse_sortby)
                .transpose()
                .map_err(Failure::Usage)?
                .unwrap_or_default(),
            columns: self
                .columns
                .as_deref()
                .map(parse_columns)
                .transpose()
                .map_err(Failure::Usage)?,
            layout: match (json, self.strace) {
                (true, _) => Layout::Json,
                (false, true) => Layout::Strace,
                (false, false) => Layout::Perf,
            },
            stamp: self.stamp()?,
            syscall_times: self.syscall_times,
            decode_fds: self.decode_fds > 0,
            decode_sockets: self.decode_fds > 1,
            pid_comms: self.pid_comms,
            constants: self.constants()?,
            verbose: self.verbose,
            string_limit: self.string_limit()?,
            since_boot: self.absolute,
            max_stack: self.max_stack()?,
            strace_stacks: self.strace_stacks,
            max_events: self.max_events,
            duration_ns: self.duration,
            keep_going: self.keep_going,
            summary_rows: self.summary_rows,
            paths: self.trace_paths()?,
            per_task: self.per_task(),
            output: match self.output.as_deref() {
                _ if self.per_task().is_some() => Output::Stderr,
                None => Output::Stderr,
                Some("-") => Output::Stdout,
                Some(path) => Output::File(path.to_string()),
            },
        })
    }

    fn stamp(&self) -> Result<Stamp, Failure> {
        match (self.timestamps, self.relative) {
            (1.., true) => {
                Err(Failure::Usage("-r and -t are two kinds of timestamp: give one".into()))
            }
            (0, true) => Ok(Stamp::Relative),
            (0, false) => Ok(Stamp::None),
            (1, _) => Ok(Stamp::Seconds),
            (2, _) => Ok(Stamp::Micros),
            (3, _) => Ok(Stamp::Epoch),
            _ => Err(Failure::Usage("-t is given at most three times: -t, -tt or -ttt".into())),
        }
    }

    /// strace's `-ff` writes a file per task only with `-o PREFIX` (else it is `-f`).
    fn per_task(&self) -> Option<String> {
        match self.output.as_deref() {
            Some(prefix) if self.follow > 1 && prefix != "-" => Some(prefix.to_string()),
            _ => None,
        }
    }

    /// `-P`: paths the kernel compares whole (a copy holds 255 bytes and its NUL).
    fn trace_paths(&self) -> Result<Vec<String>, Failure> {
        for p in &self.paths {
            if p.is_empty() || p.len() > STRING_LIMIT_MAX || p.contains('\0') {
                return Err(Failure::Usage(format!(
                    "-P {p:?}: a path of 1 to {STRING_LIMIT_MAX} bytes, without NUL"
                )));
            }
        }
        Ok(self.paths.clone())
    }

    fn constants(&self) -> Result<Xlat, Failure> {
        match self.const_style.as_deref() {
            None => Ok(Xlat::Abbrev),
            Some(w) => Xlat::parse(w).ok_or_else(|| {
                Failure::Usage(format!("-X {w}: use raw, abbrev or verbose (as strace)"))
            }),
        }
    }

    fn string_limit(&self) -> Result<usize, Failure> {
        match self.string_limit {
            None => Ok(STRING_LIMIT),
            Some(n @ 1..=STRING_LIMIT_MAX) => Ok(n),
            Some(n) => Err(Failure::Usage(format!(
                "-s {n}: sonde copies from 1 to {STRING_LIMIT_MAX} bytes of a buffer"
            ))),
        }
    }

    fn max_stack(&self) -> Result<usize, Failure> {
        if let Some(mode) = &self.call_graph {
            let kind = mode.split(',').next().unwrap_or_default();
            if !matches!(kind, "dwarf" | "fp" | "lbr") {
                return Err(Failure::Usage(format!(
                    "--call-graph {mode}: use dwarf, fp or lbr (as perf trace)"
                )));
            }
        }
        Ok(self.max_stack.or(self.call_graph.as_ref().map(|_| MAX_STACK)).unwrap_or(0))
    }
}

/// strace's `-e` qualifiers: `trace=SET` (or SET alone), `status=failed`, `signal=SET`. Several
/// syscall sets are one list; the events in them come apart from the syscalls.
type Qualifiers = (Option<String>, Vec<Spec>, bool, SignalSet);

fn expressions(exprs: &[String]) -> Result<Qualifiers, Failure> {
    let mut sets = Vec::new();
    let mut failed = false;
    let mut signals = SignalSet::default();
    for e in exprs {
        match qualifier(e) {
            Some(("trace", set)) => sets.push(set),
            Some(("status", "failed")) => failed = true,
            Some(("signal" | "signals" | "s", set)) => {
                signals = SignalSet::parse(set).map_err(Failure::Usage)?
            }
            Some(("status", other)) => {
                return Err(Failure::Usage(format!(
                    "-e status={other}: sonde trace filters on status=failed only"
                )))
            }
            Some((name, _)) => {
                return Err(Failure::Usage(format!(
                    "-e {name}=: strace's qualifier {name} is not implemented in sonde trace yet (trace=, status=failed and signal= are)"
                )))
            }
            None => sets.push(e),
        }
    }
    if sets.len() > 1 && sets.iter().any(|s| s.starts_with('!')) {
        return Err(Failure::Usage(
            "-e: a set negated with `!` is the only one: write the syscalls in one -e".into(),
        ));
    }
    let (syscalls, events) = match sets.is_empty() {
        true => (None, Vec::new()),
        false => events::split(&sets.join(",")).map_err(|e| Failure::Usage(e.to_string()))?,
    };
    Ok((syscalls, events, failed, signals))
}

/// `NAME=VALUE` where NAME is a word (an event's `/max-stack=N/` or a `CATEGORY:` is not one).
fn qualifier(e: &str) -> Option<(&str, &str)> {
    let (name, value) = e.split_once('=')?;
    let word = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic() || c == '-');
    word.then_some((name, value))
}

/// `--cpu 0,2-3`: CPUs this machine has.
fn cpu_list(text: &str) -> Result<Vec<u32>, Failure> {
    let bad = || Failure::Usage(format!("--cpu {text}: not a CPU list such as 0,2-3"));
    let cpus =
        sonde_kernel::host::cpus::parse_list(text).filter(|c| !c.is_empty()).ok_or_else(bad)?;
    let possible = sonde_kernel::host::cpus::possible_cpus().map_err(Failure::kernel)?;
    if let Some(c) = cpus.iter().find(|c| !possible.contains(c)) {
        return Err(Failure::Usage(format!("--cpu {text}: this machine has no CPU {c}")));
    }
    Ok(cpus)
}

/// `--uid`: a user name from /etc/passwd, or a number.
fn user_id(user: &str) -> Result<u32, Failure> {
    if let Ok(n) = user.parse() {
        return Ok(n);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[0] == user)
        .and_then(|f| f[2].parse().ok())
        .ok_or_else(|| Failure::Usage(format!("--uid {user}: no user has that name")))
}

/// `--filter` parsed as one expression, before anything else is done.
fn parse_filter(text: &str) -> Result<Filter, Failure> {
    Filter::parse(text).map_err(|d| {
        let file = SourceFile { name: filter::FILE_NAME.into(), text: text.to_string() };
        Failure::Compile(d, file)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn strace_qualifiers_come_apart() {
        let (sys, ev, failed, _) =
            expressions(&words(&["trace=openat,read", "status=failed"])).unwrap();
        assert_eq!((sys.as_deref(), ev.len(), failed), (Some("openat,read"), 0, true));
        let (sys, ev, _, _) =
            expressions(&words(&["nanosleep", "sched:sched_switch/max-stack=8/"])).unwrap();
        assert_eq!(sys.as_deref(), Some("nanosleep"));
        assert_eq!(ev[0].max_stack, Some(8));
        let sentence = |e: &[&str]| expressions(&words(e)).unwrap_err().sentence();
        assert_eq!(
            sentence(&["read=3"]),
            "-e read=: strace's qualifier read is not implemented in sonde trace yet (trace=, status=failed and signal= are)"
        );
        let (_, _, _, signals) = expressions(&words(&["signal=!SIGCHLD"])).unwrap();
        assert!(!signals.contains(17) && signals.contains(10));
        assert_eq!(sentence(&["signal=SIGNOPE"]), "-e signal=SIGNOPE: `SIGNOPE` is not a signal");
        assert_eq!(
            sentence(&["status=successful"]),
            "-e status=successful: sonde trace filters on status=failed only"
        );
        assert!(sentence(&["!futex", "read"]).contains("negated"));
    }
}
