//! The tracing program, written in sonde's own language and compiled by sonde's compiler like
//! any script. Filtering (targets, syscall set, failures, duration) happens in its predicates,
//! so untraced work costs only the tracepoint itself. Lines mode ships an entry record and an
//! exit record per call through the ring buffer (paired in user space, as perf trace does), each
//! after the copies of user memory made with it;
//! summary mode ships nothing per call and aggregates in per-CPU maps.

use crate::events::{Event, FieldKind};
use crate::filter::{Filter, PLACEHOLDER};
use crate::select::Selection;
use crate::syscalls::SyscallTable;
use sonde_syntax::diag::Diagnostic;
use std::fmt::Write;

/// Record tags: the first value of every `print()` the program makes.
pub const TAG_ENTER: u64 = 1;
pub const TAG_EXIT: u64 = 2;
/// A signal delivered to a traced task, one sent to it, a traced task's end (`fate`).
pub const TAG_SIGNAL: u64 = 3;
pub const TAG_SENT: u64 = 4;
pub const TAG_FATE: u64 = 5;
/// `TAG_STRING + i`: the string argument `i` of the call just entered.
pub const TAG_STRING: u64 = 10;
/// `TAG_AGAIN + i`: path argument `i` read again at the call's exit (`reread`).
pub const TAG_AGAIN: u64 = 190;
/// `TAG_EVENT + k`: a record of the `k`th other event (`-e sched:sched_switch`).
pub const TAG_EVENT: u64 = 200;

/// Summary maps, as the compiler names them.
pub const MAP_STATS: &str = "n";
pub const MAP_MIN: &str = "mn";
pub const MAP_MAX: &str = "mx";
/// Sum of squared durations in units of [`SQUARE_UNIT_NS`] (ns² would overflow u64 in 18 calls
/// of a second).
pub const MAP_SQUARES: &str = "sq";
pub const SQUARE_UNIT_NS: u64 = 10;
/// Failed calls by (tid, syscall, errno).
pub const MAP_ERRNO: &str = "errs";
/// Each thread's call in progress: its start time.
pub const MAP_START: &str = "st";
/// Names of traced threads that exited, for the summary.
pub const MAP_NAMES: &str = "names";

/// Up to this many syscalls attach to their own `syscalls:sys_*_NAME` tracepoints (the others
/// then never run a program); more use `raw_syscalls` with the set in the predicate.
pub const PER_SYSCALL_MAX: usize = 8;
/// Sets larger than this are looked up in a map filled by BEGIN instead of compared one by one.
pub(crate) const INLINE_SET_MAX: usize = 24;

/// Bytes of an event's string field copied (comms are 16; a record stays on the BPF stack).
pub const EVENT_STRING_BYTES: usize = 64;

/// Bytes of a written buffer copied by default (strace's default -s).
pub const BUFFER_BYTES: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub enum Targets {
    /// These processes (every thread) and, when following, every task they create.
    Pids(Vec<u32>),
    /// Everything but sonde itself.
    AllBut(u32),
    /// These threads only (perf trace's -t).
    Tids(Vec<u32>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Lines,
    Summary,
}

#[derive(Clone, Debug)]
pub struct Plan<'a> {
    pub table: &'a SyscallTable,
    pub selection: &'a Selection,
    pub targets: Targets,
    pub follow: bool,
    pub mode: Mode,
    pub failure: bool,
    pub duration_ns: Option<u64>,
    /// Bytes of each path copied at entry.
    pub string_size: usize,
    /// Bytes of each buffer (write's) copied at entry: `-s N`.
    pub buffer_size: usize,
    /// `--uid`: only tasks running as this uid, on top of the targets.
    pub uid: Option<u32>,
    /// `--max-stack`: each exit record carries the kernel and user stacks.
    pub stacks: bool,
    /// `-k`: the user stack as addresses (`ustack(raw)`), named in user space as strace names
    /// its frames.
    pub user_stack_raw: bool,
    /// Other events printed in the same time line.
    pub events: Vec<Event>,
    /// `--cpu`: only calls made on these CPUs (empty: every CPU), on top of the targets.
    pub cpus: Vec<u32>,
    /// `--filter`: a predicate in sonde's language, checked at each call's entry.
    pub filter: Option<Filter>,
    /// The kernel's BTF types the raw tracepoints (`sys_enter`, `sys_exit`, the task
    /// lifecycle's): every syscall is traced there (`rawtracepoint:`) rather than on
    /// `raw_syscalls`' perf events, which build a record per call and take a grace period each
    /// to detach (`site`).
    pub raw_tracepoints: bool,
    /// strace's layout: copy the user memory its decoders read (structs, filled buffers).
    pub copies: bool,
    /// The kernel has `bpf_loop` (5.17+): the copies' loops are ranges the compiler builds as
    /// its callbacks (see program/copies.rs), rather than `while` loops the verifier walks.
    pub bpf_loop: bool,
    /// The kernel's BTF types siginfo and task_struct: lines show signals and each task's end.
    pub fate: bool,
    /// `--summary-rows`: rows of the summary's tables of (thread, syscall) pairs; by default
    /// [`crate::fast::ENTRIES`] in the hand-built summary, the compiler's size in the other.
    pub summary_rows: Option<u32>,
    /// `-P`: only the calls that use these paths.
    pub paths: PathSet,
}

impl Plan<'_> {
    /// Each syscall on its own tracepoints?
    pub fn per_syscall(&self) -> bool {
        // A filter naming arguments needs each syscall's own format to name them.
        (!self.selection.all && self.selection.nrs.len() <= PER_SYSCALL_MAX)
            || !self.filter_args().is_empty()
    }

    /// The argument names the filter reads (`args->NAME`).
    pub fn filter_args(&self) -> Vec<&str> {
        self.filter.as_ref().map(Filter::args).unwrap_or_default()
    }

    /// Why the filter fits none of the traced syscalls, pointing into the filter: at the first
    /// argument none of them has, or, when each is some syscall's but none has them all, at the
    /// whole filter. None when it fits one (or names no argument).
    pub fn filter_misfit(&self) -> Option<Diagnostic> {
        let f = self.filter.as_ref()?;
        let uses = f.arg_uses();
        if uses.is_empty() || self.selection.nrs.iter().any(|&nr| self.filterable(nr)) {
            return None;
        }
        let traced: Vec<&str> = self
            .selection
            .nrs
            .iter()
            .filter_map(|&nr| self.table.get(nr))
            .flat_map(|sc| sc.args.iter().map(|a| a.name.as_str()))
            .collect();
        let Some((name, span)) = uses.iter().find(|(n, _)| !traced.contains(n)) else {
            let names: Vec<String> = uses.iter().map(|(n, _)| format!("args->{n}")).collect();
            return Some(Diagnostic::error(
                f.span(),
                format!("no traced syscall has all of {}", names.join(", ")),
            ));
        };
        let d = Diagnostic::error(*span, format!("no traced syscall has the argument `{name}`"));
        Some(match sonde_syntax::closest(name, traced.iter().copied()) {
            Some(near) => d.with_help(format!("did you mean `args->{near}`?")),
            None => d,
        })
    }

    /// Syscalls the filter can apply to: every one, or those having each argument it names.
    pub fn filterable(&self, nr: u32) -> bool {
        let names = self.filter_args();
        let Some(sc) = self.table.get(nr) else { return false };
        names.iter().all(|n| sc.args.iter().any(|a| a.name == *n))
    }

    pub fn program(&self) -> String {
        let mut p = String::new();
        let target = self.target();
        if self.follow {
            // Children and threads: every task a traced task creates is traced (tr, by tid).
            let site = self.site();
            let _ = writeln!(p, "{} /{target}/ {{ tr[{}] = 1; }}", site.fork, site.child);
        }
        if self.follow || self.mode == Mode::Summary || self.shows_fate() {
            let name = if self.mode == Mode::Summary { "names[tid] = comm; " } else { "" };
            let forget = if self.follow { "delete tr[tid]; " } else { "" };
            let fate = self.fate_exit();
            let _ = writeln!(p, "{} /{target}/ {{ {name}{fate}{forget}}}", self.site().task_exit);
        }
        self.fate_signals(&mut p, &target);
        // Events print lines: a summary (also -S's second program) leaves them out.
        let events = if self.mode == Mode::Lines { &self.events[..] } else { &[] };
        for (k, ev) in events.iter().enumerate() {
            let fields: String = ev
                .fields
                .iter()
                .map(|f| match f.kind {
                    FieldKind::Str => format!(", str(args->{}, {EVENT_STRING_BYTES})", f.name),
                    _ => format!(", args->{}", f.name),
                })
                .collect();
            let stacks = match ev.max_stack.map_or(self.stacks, |n| n > 0) {
                true => ", ustack, kstack",
                false => "",
            };
            let _ = writeln!(
                p,
                "tracepoint:{}:{} /{target}/ {{ print({}, tid, pid, nsecs, comm{fields}{stacks}); }}",
                ev.category,
                ev.name,
                TAG_EVENT + k as u64
            );
        }
        if self.per_syscall() {
            for &nr in self.selection.nrs.iter().filter(|&&nr| self.filterable(nr)) {
                self.one_syscall(&mut p, nr, &target);
            }
        } else {
            self.raw(&mut p, &target);
        }
        format!("{}{p}", self.functions(&p))
    }

    fn target(&self) -> String {
        let mut t = self.tasks();
        if let Some(uid) = self.uid {
            let _ = write!(t, " && uid == {uid}");
        }
        if !self.cpus.is_empty() {
            let c: Vec<String> = self.cpus.iter().map(|c| format!("cpu == {c}")).collect();
            let _ = write!(t, " && ({})", c.join(" || "));
        }
        t
    }

    fn tasks(&self) -> String {
        self.tasks_of("tid", "pid")
    }

    /// The targets as a predicate on a task whose thread and process ids are `tid` and `pid`.
    fn tasks_of(&self, tid: &str, pid: &str) -> String {
        match &self.targets {
            Targets::Tids(tids) => {
                let t: Vec<String> = tids.iter().map(|t| format!("{tid} == {t}")).collect();
                format!("({})", t.join(" || "))
            }
            Targets::AllBut(me) => format!("{pid} != {me}"),
            Targets::Pids(pids) => {
                let mut t: Vec<String> = pids.iter().map(|p| format!("{pid} == {p}")).collect();
                if self.follow {
                    t.push(format!("tr[{tid}]"));
                }
                format!("({})", t.join(" || "))
            }
        }
    }

    /// Summaries of every syscall (or a large set) without a filter: the BTF-typed raw
    /// tracepoints, whose arguments are `(struct pt_regs *regs, long id)` at entry and
    /// `(struct pt_regs *regs, long ret)` at exit (unnamed in 5.10's BTF: hence `argN`).
    pub(crate) fn raw_btf(&self) -> bool {
        self.raw_tracepoints
            && self.mode == Mode::Summary
            && self.filter.is_none()
            && self.paths.is_empty()
    }

    /// The predicate part restricting `id` to the selected syscalls: none for all of them,
    /// inline comparisons for a few, a map BEGIN fills for many (that BEGIN written once).
    fn set(&self, p: &mut String, id: &str) -> String {
        let nrs = &self.selection.nrs;
        if self.selection.all {
            String::new()
        } else if nrs.is_empty() {
            " && 0".into()
        } else if nrs.len() <= INLINE_SET_MAX {
            let ids: Vec<String> = nrs.iter().map(|n| format!("{id} == {n}")).collect();
            format!(" && ({})", ids.join(" || "))
        } else {
            if !p.contains("BEGIN { sel[") {
                let fill: String = nrs.iter().map(|n| format!("sel[{n}] = 1; ")).collect();
                let _ = writeln!(p, "BEGIN {{ {fill}}}");
            }
            format!(" && sel[{id}]")
        }
    }

    fn raw(&self, p: &mut String, target: &str) {
        let site = self.site();
        if self.raw_btf() {
            let set = self.set(p, &site.enter_id);
            let pred = format!("{target}{set}");
            self.enter(p, (site.enter, &pred), (&site.enter_id, &[]), &[], "");
            let id = &site.exit_id;
            let set = self.set(p, id);
            let set = self.exit_set(&set, id);
            self.exit(p, site.exit, &format!("{target}{set}"), id, site.ret, &[]);
            if crate::fast::applies(self) {
                // The site of the hand-built pair's third program (see `fast`).
                let _ = writeln!(p, "rawtracepoint:sched_switch {{ }}");
            }
            return;
        }
        let set = self.set(p, &site.enter_id);
        let a = &site.args;
        let mut strings = self.raw_strings(p, &site.enter_id, a);
        strings.push_str(&self.copies_at_entry(&site.enter_id, &|i| a[i].clone()));
        strings.push_str(&self.sigreturn_mask_at_entry(&site.enter_id, site.sp.as_deref()));
        let nrs: Vec<u32> = self.selection.nrs.iter().copied().collect();
        let pred = format!("{target}{set}");
        self.enter(p, (site.enter, &pred), (&site.enter_id, &nrs), a, &strings);
        let set = self.set(p, &site.exit_id);
        let pred = format!("{target}{}", self.exit_set(&set, &site.exit_id));
        let positions = self.path_positions(nrs.iter().copied());
        self.exit(p, site.exit, &pred, &site.exit_id, site.ret, &positions);
    }

    fn one_syscall(&self, p: &mut String, nr: u32, target: &str) {
        let Some(sc) = self.table.get(nr) else { return };
        let mut a: Vec<String> = sc.args.iter().map(|a| format!("args->{}", a.name)).collect();
        a.resize(6, "0".into());
        let mut strings = String::new();
        if self.mode == Mode::Lines {
            for (i, arg) in sc.args.iter().enumerate().filter(|(_, a)| a.is_string) {
                let buffer = arg.name.contains("buf");
                let _ =
                    write!(strings, " {}", self.copy(i, &format!("args->{}", arg.name), buffer));
            }
        }
        strings.push_str(&self.copies_at_entry(&nr.to_string(), &|i| a[i].clone()));
        let tp = &sc.tracepoint;
        let (enter, exit) = (
            format!("tracepoint:syscalls:sys_enter_{tp}"),
            format!("tracepoint:syscalls:sys_exit_{tp}"),
        );
        self.enter(p, (&enter, target), (&nr.to_string(), &[nr]), &a, &strings);
        let positions = self.path_positions(std::iter::once(nr));
        if self.sigreturn() == Some(nr) {
            // Its own exit tracepoint never fires: the number there is the restored one.
            let site = self.site();
            self.exit(p, site.exit, target, &nr.to_string(), site.ret, &positions);
            return;
        }
        self.exit(p, &exit, target, &nr.to_string(), "args->ret", &positions);
    }

    /// Paths get the full size; a buffer (write's) only its first `-s` bytes, as strace shows
    /// (and one more for the NUL that `str()` ends its copy with).
    fn string_size(&self, buffer: bool) -> usize {
        if buffer {
            (self.buffer_size + 1).min(self.string_size)
        } else {
            self.string_size
        }
    }

    /// An entry's program at `tp` with predicate `pred`, for syscall number `id` (one of `nrs`).
    fn enter(
        &self,
        p: &mut String,
        (tp, pred): (&str, &str),
        (id, nrs): (&str, &[u32]),
        a: &[String],
        strings: &str,
    ) {
        let start = if self.duration_ns.is_some() || self.mode == Mode::Summary {
            format!("{MAP_START}[tid] = nsecs; ")
        } else {
            String::new()
        };
        let record = match self.mode {
            // The copies first: user space keeps them by thread until the record comes, so
            // another CPU's record landing between them cannot show the entry without them.
            Mode::Lines => format!(
                "{}print({TAG_ENTER}, tid, pid, nsecs, {id}, {}, comm);",
                match strings.trim() {
                    "" => String::new(),
                    s => format!("{s} "),
                },
                a.join(", ")
            ),
            Mode::Summary => String::new(),
        };
        // The filter's tree goes where the placeholder is (`filter::parse_program`).
        let pred = match &self.filter {
            Some(_) => format!("{pred} && ({PLACEHOLDER})"),
            None => pred.to_string(),
        };
        let made = self.made_at_entry(id);
        let mark = self.sigreturn_at_entry(id);
        let body = self.paths_at_entry(p, id, nrs, a, &format!("{start}{made}{mark}{record}"));
        let _ = writeln!(p, "{tp} /{pred}/ {{ {body} }}");
    }

    /// An exit's program; `positions`: the path arguments read again there.
    fn exit(&self, p: &mut String, tp: &str, pred: &str, id: &str, ret: &str, positions: &[usize]) {
        let again = self.read_again(positions);
        let pred = format!("{pred}{}", self.paths_exit_predicate());
        let (pred, guard) = self.exit_predicate(&pred, id, ret);
        let (mark, id) = self.sigreturn_at_exit(id);
        let id = id.as_str();
        let copies = match self.copies_at_exit(id, ret).trim() {
            "" => String::new(),
            c => format!("{c} "),
        };
        let copies = format!("{copies}{}", self.sigreturn_mask(id));
        let body = match self.mode {
            // The user stack first: its frames are named from the process's maps, read when
            // the record is, and the process may be about to exit.
            Mode::Lines if self.stacks => {
                let ustack = if self.user_stack_raw { "ustack(raw)" } else { "ustack" };
                format!("{copies}print({TAG_EXIT}, tid, nsecs, {id}, {ret}, {ustack}, kstack);")
            }
            Mode::Lines => format!("{copies}print({TAG_EXIT}, tid, nsecs, {id}, {ret});"),
            Mode::Summary => format!(
                // The id is read once (from the registers, at a raw exit).
                "$id = {id}; @{MAP_STATS}[tid, $id] = stats($d); \
                 @{MAP_MIN}[tid, $id] = min($d); @{MAP_MAX}[tid, $id] = max($d); \
                 @{MAP_SQUARES}[tid, $id] = sum(($d / {SQUARE_UNIT_NS}) * ($d / {SQUARE_UNIT_NS})); \
                 if ({ret} < 0) {{ @{MAP_ERRNO}[tid, $id, -{ret}] = count(); }}"
            ),
        };
        let again = format!("{again}{}", self.made_at_exit());
        if self.duration_ns.is_none() && self.mode == Mode::Lines {
            let chosen = match &guard {
                Some(g) => format!("if ({g}) {{ {again}{body} }}"),
                None => format!("{again}{body}"),
            };
            let chosen = self.paths_at_exit(ret, positions, &chosen);
            let _ = writeln!(p, "{tp} /{pred}/ {{ {mark}{chosen} }}");
            return;
        }
        // The start time is looked up once (a predicate cannot bind it) and the call is
        // counted only when its entry was seen.
        let mut cond = "$s".to_string();
        if let Some(d) = self.duration_ns {
            cond.push_str(&format!(" && $d >= {d}"));
        }
        if let Some(g) = guard {
            cond.push_str(&format!(" && {g}"));
        }
        // With a filter, an entry may leave no start time: the last one is cleared once used so
        // a filtered-out call does not take it.
        let reset = match self.filter {
            Some(_) => format!(" {MAP_START}[tid] = 0;"),
            None => String::new(),
        };
        let chosen = format!("if ({cond}) {{ {again}{body} }}");
        let chosen = self.paths_at_exit(ret, positions, &chosen);
        let _ = writeln!(
            p,
            "{tp} /{pred}/ {{ {mark}$s = {MAP_START}[tid]; $d = nsecs - $s; {chosen}{reset} }}"
        );
    }
}

mod copies;
pub use rows::size_summary_maps;
pub use strings::MAP_STRING_KINDS;

mod fate;
mod made;
mod nested;
mod paths;
mod reread;
mod rows;
mod sigreturn;
mod site;
mod strings;
pub use made::MAP_MADE;
pub use paths::{PathSet, TAG_DROP};
#[cfg(test)]
mod tests;
