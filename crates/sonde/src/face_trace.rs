//! `sonde trace`: the syscall tracer's flags and glue. sonde-trace writes the program in sonde's
//! language; it is compiled, loaded and attached exactly as a script is (compiler, sonde-load,
//! attach.rs), and its records come back to sonde-trace to become lines or a summary.

mod fate;
mod kept_program;
mod lines;
mod names;
mod not_counted;
mod paths;
mod per_task;
mod sockets;
pub mod stamp;
mod table;

use crate::cli::trace::{Layout, Output, Show, Trace};
use crate::collect::Collector;
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::bpf::Loaded;
use crate::run::{Events, Needs, Reason, Target};
use crate::signals;
use lines::Lines;
use names::ProcNames;
use not_counted::Full;
use per_task::PerTask;
use sonde_compile::abi::FIRST_USER_MAP;
use sonde_compile::provider::AttachPoint;
use sonde_compile::{Compiled, Options};
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_output::sink::{Health, Sink};
use sonde_output::value::Value;
use sonde_output::{MapEntries, Record, Type};
use sonde_symbols::Symbolizer;
use sonde_syntax::diag::{Diagnostic, SourceFile};
use sonde_trace::events;
use sonde_trace::filter;
use sonde_trace::inflight::InFlight;
use sonde_trace::names::until_nul;
use sonde_trace::program::{self as tp, Mode, Plan, Targets};
use sonde_trace::select::Selection;
use sonde_trace::summary::strace::DEFAULT_COLUMNS;
use sonde_trace::summary::{Stats, Summary};
use sonde_trace::syscalls::SyscallTable;
use stamp::Clock;
use std::io::Write;

/// Bytes of each path copied at entry.
const STRING_SIZE: usize = 256;
/// Bytes of a string `--filter` reads with `str()`.
const FILTER_STRING_SIZE: usize = 64;

pub fn run(a: &Trace) -> Result<i32, Failure> {
    crate::run::prepare(Needs::Bpf)?;
    // This face reaches tracefs within milliseconds: stop cleanly from the start.
    signals::arm();
    let env = HostEnv::new();
    let table = table::load(&env).map_err(|e| Failure::Setup(e.to_string()))?;
    let (selection, events) = select(a, &table, &env)?;
    // --tid threads are watched as -p processes are: the run ends when they do.
    let watched: Vec<u32> = a.pids.iter().chain(&a.tids).copied().collect();
    // Started now, settled just before the attach: its start overlaps the compile and the load.
    let mut target = Target::start(a.command.as_ref(), &watched)?;
    // A kept program needs no BTF read: its file's presence says what the program can use.
    let btf = std::path::Path::new(sonde_btf::Btf::VMLINUX_PATH).exists();
    let plan = plan(a, &table, &selection, &target, &events, (btf, &env));
    let (plan, compiled, source, fast) = compile(a, plan, &env, target.command_pid())?;
    let loaded = Loaded::load(&compiled, &source)?;
    fill_string_kinds(&plan, &compiled, &loaded.maps)?;
    target.settle();
    let attached = loaded.attach(&compiled, &env, Default::default())?;
    loaded.run_special(&compiled, &AttachPoint::Begin)?;
    let ring = loaded.ring()?;
    let (sink, health) = output_sink(a)?;
    let mut calls = TraceEvents {
        lines: lines(a, &compiled, &loaded.maps, &table, &target, events, (sink, &health)),
        compiled: &compiled,
        ring,
        health: health.clone(),
        followed: compiled
            .user_maps
            .iter()
            .position(|m| m.name == "tr")
            .map(|i| &loaded.maps[FIRST_USER_MAP + i]),
    };
    if a.json() {
        let _ = writeln!(calls.lines.out, "{}", Record::attached_probes(attached.probes));
    }
    for fd in target.wake_fds() {
        calls.ring.wake_on(fd).map_err(Failure::kernel)?;
    }
    let reason = loaded.read_until_stopped(&mut calls, &mut target, &health, a.duration_ns)?;
    let detaching = attached.detach(false);
    let mut lines = calls.lines;
    if !plan.fate && !a.summary() {
        if let (Some(pid), Some(status)) = (target.command_pid(), target.command_status()) {
            lines.command_end(pid, status);
        }
    }
    let full = match a.summary() {
        true => write_summary(a, &compiled, &loaded.maps, fast, &table, &mut lines)?,
        false => Full::default(),
    };
    let losses = losses(&compiled, &mut lines, plan.counts_at_entry())?;
    if a.json() {
        // The command's own end (not sonde ending it), then the losses, always last.
        if let (Some(pid), Some(status)) = (target.command_pid(), target.command_status()) {
            let _ = writeln!(lines.out, "{}", Record::exit(pid, status));
        }
        for record in full.records() {
            let _ = writeln!(lines.out, "{record}");
        }
        let record = match losses.made {
            Some(made) => Record::lost_calls(losses.records, losses.calls, made),
            None => Record::lost_events(losses.records),
        };
        let _ = writeln!(lines.out, "{record}");
    }
    let _ = lines.out.flush();
    if let Some(p) = &mut lines.per_task {
        p.flush();
    }
    // Once the output failed, its one sentence is all there is to say.
    if !a.json() && health.failure().is_none() {
        for sentence in full.sentences().into_iter().chain(losses.sentence()) {
            eprintln!("sonde: {sentence}");
        }
    }
    detaching.finish();
    let lost = losses.calls.max(losses.records.min(1)) + full.lost();
    Ok(crate::run::conclude(reason, &mut target, &health, lost, a.keep_going))
}

/// What the full ring buffer cost: records dropped, and (for lines) the calls they belonged to.
struct Losses {
    records: u64,
    /// Calls made that printed no line, counted only when records were dropped (a call that
    /// began before sonde attached is no loss).
    calls: u64,
    /// Calls a line was due for, counted in the kernel (lines only).
    made: Option<u64>,
}

impl Losses {
    fn sentence(&self) -> Option<String> {
        let why = "the ring buffer was full; the traced programs ran on";
        match (self.records, self.made) {
            (0, _) => None,
            (_, Some(made)) if self.calls > 0 => {
                Some(format!("{} calls lost of {made} made ({why})", self.calls))
            }
            (n, _) => Some(format!("{n} records lost ({why})")),
        }
    }
}

fn losses(compiled: &Compiled, lines: &mut Lines, at_entry: bool) -> Result<Losses, Failure> {
    let records = lines.collector.lost_events().map_err(Failure::kernel)?;
    let made = match compiled
        .user_maps
        .iter()
        .position(|m| m.name.trim_start_matches('@') == tp::MAP_MADE)
    {
        Some(i) => match lines.collector.map(i, &mut lines.symbols).map_err(Failure::kernel)? {
            MapEntries::Values(rows) => {
                Some(rows.iter().map(|(_, v)| v.bits().unwrap_or(0)).sum::<u64>())
            }
            _ => None,
        },
        None => None,
    };
    let before = if at_entry { 0 } else { lines.exits_before_entry };
    let made = made.map(|m| m.saturating_sub(before));
    let calls = match (records, made) {
        (1.., Some(m)) => m.saturating_sub(lines.calls_printed),
        _ => 0,
    };
    Ok(Losses { records, calls, made })
}

/// `-e`: the syscalls traced, and the other events in the same time line.
pub(crate) fn select(
    a: &Trace,
    table: &SyscallTable,
    env: &HostEnv,
) -> Result<(Selection, Vec<events::Event>), Failure> {
    let events = events::resolve(&a.events, env).map_err(|e| Failure::Usage(e.to_string()))?;
    let selection = match (&a.syscalls, events.is_empty()) {
        (Some(e), _) => Selection::parse(e, table).map_err(|e| Failure::Usage(e.to_string()))?,
        (None, true) => Selection::everything(table),
        // Only other events: no syscall at all.
        (None, false) => Selection { nrs: Default::default(), all: false },
    };
    Ok((selection, events))
}

pub(crate) fn plan<'a>(
    a: &Trace,
    table: &'a SyscallTable,
    selection: &'a Selection,
    target: &Target,
    events: &[events::Event],
    (btf, env): (bool, &HostEnv),
) -> Plan<'a> {
    Plan {
        table,
        selection,
        targets: match target.command_pid() {
            Some(pid) => Targets::Pids(vec![pid]),
            None if !a.tids.is_empty() => Targets::Tids(a.tids.clone()),
            None if !a.pids.is_empty() => Targets::Pids(a.pids.clone()),
            None => Targets::AllBut(std::process::id()),
        },
        follow: a.follow,
        uid: a.uid,
        cpus: a.cpus.clone(),
        stacks: a.max_stack > 0 || a.strace_stacks,
        user_stack_raw: a.strace_stacks,
        events: events.to_vec(),
        mode: if a.show == Show::Summary { Mode::Summary } else { Mode::Lines },
        failure: a.failure,
        duration_ns: a.min_duration_ns,
        string_size: STRING_SIZE,
        buffer_size: a.string_limit,
        filter: a.filter.clone(),
        raw_tracepoints: btf,
        // Only strace's layout prints what they hold: the others save their cost.
        copies: a.layout == Layout::Strace,
        bpf_loop: a.layout == Layout::Strace
            && sonde_compile::Env::has_helper(env, sonde_bpf::helper::LOOP),
        // perf trace's layout prints no fate: nothing to attach for it.
        fate: a.layout != Layout::Perf && (a.show_exits || a.show_signals) && btf,
        summary_rows: a.summary_rows,
        paths: paths::chosen(&a.paths, &a.pids),
    }
}

/// The plan's program (and, with -C, the summary's beside it), compiled or kept from an earlier
/// run (`kept_program`); the hand-built summary programs put in where the raw tracepoints allow.
/// The plan comes back without BTF's tracepoints where the kernel's BTF could not be read.
fn compile<'a>(
    a: &Trace,
    mut plan: Plan<'a>,
    env: &HostEnv,
    command: Option<u32>,
) -> Result<(Plan<'a>, Compiled, SourceFile, Option<sonde_trace::fast::FastMaps>), Failure> {
    if let (Some(d), Some(f)) = (plan.filter_misfit(), &plan.filter) {
        return Err(Failure::Compile(vec![d], f.source()));
    }
    let mut opts = Options::new();
    // A filter's own str() shares the BPF stack with the record's path: it gets less room.
    opts.string_size = if plan.filter.is_some() { FILTER_STRING_SIZE } else { STRING_SIZE };
    let real = program_source(a, &plan);
    let (targets, pids) = kept_program::stand_ins(&plan, command, &real.text);
    let mut source = program_source(a, &Plan { targets: targets.clone(), ..plan.clone() });
    let mut compiled = match kept_program::find(&kept_program::key(&source.text, &opts)) {
        Some(c) => c,
        None => {
            if plan.raw_tracepoints && sonde_compile::Env::btf(env).is_err() {
                plan = Plan { raw_tracepoints: false, fate: false, ..plan };
                source = program_source(a, &Plan { targets, ..plan.clone() });
            }
            // Errors point into the text with the real pids, as the user would see it.
            let c = compile_text(&source, &plan, env, &opts).map_err(|e| {
                compile_text(&program_source(a, &plan), &plan, env, &opts).err().unwrap_or(e)
            })?;
            kept_program::keep(&kept_program::key(&source.text, &opts), &c);
            c
        }
    };
    kept_program::put_pids(&mut compiled, &pids);
    // The summary on the raw tracepoints: one hash lookup per call, built by hand.
    let summary_plan = Plan { mode: Mode::Summary, ..plan.clone() };
    let fast = match a.summary() {
        true => sonde_trace::fast::rewrite(&mut compiled, &summary_plan),
        false => None,
    };
    if a.summary() && fast.is_none() {
        tp::size_summary_maps(&mut compiled, &summary_plan);
    }
    Ok((plan, compiled, source, fast))
}

pub(crate) fn compile_text(
    source: &SourceFile,
    plan: &Plan,
    env: &HostEnv,
    opts: &Options,
) -> Result<Compiled, Failure> {
    filter::parse_program(&source.text, plan.filter.as_ref())
        .and_then(|ast| sonde_compile::check(&ast, env, opts))
        .and_then(|typed| sonde_compile::lower(&typed, opts))
        .map_err(|d| compile_failure(d, source, plan))
}

/// The plan's program text; with -C, the summary's program after it, both filtered alike.
fn program_source(a: &Trace, plan: &Plan) -> SourceFile {
    let mut texts = vec![plan.program()];
    if a.show == Show::Both {
        texts.push(Plan { mode: Mode::Summary, ..plan.clone() }.program());
    }
    SourceFile { name: "<sonde trace>".into(), text: texts.join("") }
}

/// The string arguments of each syscall, put in the program's map before it is attached (see
/// `Plan::string_kinds`): one bpf(2) call.
fn fill_string_kinds(
    plan: &Plan,
    compiled: &Compiled,
    maps: &[sonde_kernel::object::map::Map],
) -> Result<(), Failure> {
    let Some(i) = compiled
        .user_maps
        .iter()
        .position(|m| m.name.trim_start_matches('@') == tp::MAP_STRING_KINDS)
    else {
        return Ok(());
    };
    let entries: Vec<(Vec<u8>, Vec<u8>)> = plan
        .string_kinds()
        .into_iter()
        .map(|(nr, bits)| ((nr as u64).to_le_bytes().to_vec(), bits.to_le_bytes().to_vec()))
        .collect();
    maps[FIRST_USER_MAP + i].update_all(&entries).map_err(Failure::kernel)
}

/// Where the lines go: stderr, as strace's and perf trace's, or `-o FILE` (`-o -`: stdout).
fn output_sink(a: &Trace) -> Result<(Sink, Health), Failure> {
    match &a.output {
        Output::File(path) => Sink::file(std::path::Path::new(path))
            .map_err(|e| Failure::Usage(format!("-o {path}: {}", sonde_output::file::plain(&e)))),
        Output::Stdout => Ok(Sink::stdout()),
        Output::Stderr => Ok(Sink::new(Box::new(std::io::stderr()))),
    }
}

/// The writer of call lines, in the layout the flags ask for.
fn lines<'a>(
    a: &Trace,
    compiled: &'a Compiled,
    maps: &'a [sonde_kernel::object::map::Map],
    table: &'a SyscallTable,
    target: &Target,
    events: Vec<events::Event>,
    (sink, health): (Sink, &Health),
) -> Lines<'a> {
    let layout = a.layout;
    let mut lines = Lines {
        collector: Collector::new(compiled, maps),
        symbols: Symbolizer::new(None).perf_frames(),
        table,
        // perf trace's `...`/`[continued]` (strace's `<unfinished ...>`/`<... resumed>`) only
        // where every exit of an entry seen is printed.
        // -ff: each task's file has only its own calls, whole.
        calls: if a.json() || a.failure || a.min_duration_ns.is_some() || a.per_task.is_some() {
            InFlight::new(false)
        } else if layout == Layout::Strace {
            InFlight::strace()
        } else {
            InFlight::new(true)
        },
        names: match layout {
            Layout::Strace => {
                let mut n = ProcNames::new(a.decode_fds, a.pid_comms, a.decode_fds);
                n.strace_comms = a.pid_comms;
                n.constants = a.constants;
                n.verbose = a.verbose;
                n.show_endpoints = a.decode_sockets;
                n
            }
            _ => ProcNames::new(true, true, false),
        },
        out: std::io::BufWriter::with_capacity(1 << 16, Box::new(sink)),
        start_ns: if a.since_boot { 0 } else { sonde_kernel::host::clock::monotonic_ns() },
        clock: Clock::new(a.stamp),
        call_times: a.syscall_times,
        main_tid: target.command_pid().unwrap_or(0),
        layout,
        printed: 0,
        calls_printed: 0,
        entered: Default::default(),
        exits_before_entry: 0,
        max: a.max_events,
        max_stack: a.max_stack,
        strace_stacks: a.strace_stacks,
        events,
        fates: fate::Fates {
            exits: a.show_exits,
            signals: a.show_signals,
            shown: a.signals,
            sent: Default::default(),
        },
        per_task: a.per_task.clone().map(|prefix| PerTask::new(prefix, health.clone())),
    };
    if lines.max_stack > 0 {
        // kallsyms is read on the first kernel frame: before the command runs, not while its
        // process (whose maps name the user frames) may be exiting.
        let _ = lines.symbols.ksym(0);
    }
    lines
}

/// The calls as the loop sees them: lines from the ring buffer; the run ends with the command
/// only once every task it started has ended too.
struct TraceEvents<'a> {
    lines: Lines<'a>,
    compiled: &'a Compiled,
    ring: RingBuf,
    /// The output's state: once it failed, records are only consumed, not decoded.
    health: Health,
    /// The tasks the command started, still running (added at fork, dropped at exit).
    followed: Option<&'a sonde_kernel::object::map::Map>,
}

impl Events for TraceEvents<'_> {
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure> {
        self.ring.poll(timeout_ms).map_err(Failure::kernel)
    }

    fn drain(&mut self) -> Result<Option<Reason>, Failure> {
        if crate::run::bpf::consumed_after_failure(&mut self.ring, &self.health)? {
            return Ok(None);
        }
        self.lines.drain(self.compiled, &mut self.ring)?;
        Ok(self.lines.full().then_some(Reason::Limit))
    }

    fn target_done(&mut self) -> bool {
        !self.followed.is_some_and(|m| m.keys().is_ok_and(|k| !k.is_empty()))
    }
}

/// `-c`/`-C`: the summary, from the hand-built programs' maps or the compiled ones', and the
/// calls it could not count.
fn write_summary(
    a: &Trace,
    compiled: &Compiled,
    maps: &[sonde_kernel::object::map::Map],
    fast: Option<sonde_trace::fast::FastMaps>,
    table: &SyscallTable,
    lines: &mut Lines,
) -> Result<Full, Failure> {
    let (mut s, full) = match fast {
        Some(f) => {
            let (s, not_counted) = read_fast_summary(maps, f)?;
            (s, Full::fast(not_counted, a.summary_rows.unwrap_or(sonde_trace::fast::ENTRIES)))
        }
        None => (
            read_summary(compiled, &lines.collector, &mut lines.symbols)?,
            Full::compiled(compiled, maps),
        ),
    };
    read_names(compiled, &lines.collector, &mut lines.symbols, &mut s)?;
    if a.json() {
        for row in s.json(table) {
            let _ = writeln!(lines.out, "{}", Record::new(Type::TraceSummary, row));
        }
    } else {
        let _ = write!(lines.out, "{}", summary_text(a, &s, table));
    }
    Ok(full)
}

/// strace's table (with --strace, or -U), else perf trace's per-thread tables.
fn summary_text(a: &Trace, s: &Summary, table: &SyscallTable) -> String {
    match (&a.columns, a.layout) {
        (Some(columns), _) => s.strace_text(table, columns, a.sort),
        (None, Layout::Strace) => s.strace_text(table, DEFAULT_COLUMNS, a.sort),
        (None, _) => s.text(table, a.errno_summary, a.sort),
    }
}

/// Errors in the filter point into the filter, once each (it is in every syscall's predicate);
/// any other error is sonde's own program's.
fn compile_failure(diags: Vec<Diagnostic>, source: &SourceFile, plan: &Plan) -> Failure {
    let Some(f) = &plan.filter else { return Failure::Compile(diags, source.clone()) };
    let rebased: Option<Vec<Diagnostic>> =
        diags.iter().map(|d| filter::rebase(d.clone(), &source.text)).collect();
    let Some(rebased) = rebased else { return Failure::Compile(diags, source.clone()) };
    let mut mine: Vec<Diagnostic> = Vec::new();
    for d in rebased {
        if !mine.iter().any(|m| m.span == d.span && m.message == d.message) {
            mine.push(d);
        }
    }
    Failure::Compile(mine, f.source())
}

/// The hand-built summary's maps (see `sonde_trace::fast`), and the names of exited threads.
fn read_fast_summary(
    maps: &[sonde_kernel::object::map::Map],
    f: sonde_trace::fast::FastMaps,
) -> Result<(Summary, sonde_trace::fast::NotCounted), Failure> {
    let entries =
        |map: &sonde_kernel::object::map::Map| -> Result<sonde_trace::fast::Entries, Failure> {
            let mut out = Vec::new();
            for k in map.keys().map_err(Failure::kernel)? {
                if let Some(v) = map.lookup(&k).map_err(Failure::kernel)? {
                    out.push((k, v));
                }
            }
            Ok(out)
        };
    let slots = maps[f.slot]
        .lookup_percpu(&0u32.to_le_bytes())
        .map_err(Failure::kernel)?
        .unwrap_or_default();
    Ok(sonde_trace::fast::summary(&entries(&maps[f.calls])?, &slots, &entries(&maps[f.errs])?))
}

/// The summary maps, merged across CPUs.
fn read_summary(
    compiled: &sonde_compile::Compiled,
    collector: &Collector,
    sym: &mut Symbolizer,
) -> Result<Summary, Failure> {
    let mut read = |name: &str| -> Result<Option<MapEntries>, Failure> {
        let Some(i) =
            compiled.user_maps.iter().position(|m| m.name.trim_start_matches('@') == name)
        else {
            return Ok(None);
        };
        collector.map(i, sym).map(Some).map_err(Failure::kernel)
    };
    let int = |v: &Value| v.bits().unwrap_or(0);
    let key2 = |k: &[Value]| (int(&k[0]) as u32, int(&k[1]) as u32);
    let mut s = Summary::default();
    if let Some(MapEntries::Stats(rows)) = read(tp::MAP_STATS)? {
        for (k, count, _avg, sum) in rows {
            let st = s.rows.entry(key2(&k)).or_default();
            st.calls = count;
            st.total_ns = int(&sum);
        }
    }
    let mut each =
        |name: &str, f: &mut dyn FnMut(&mut Stats, &[Value], u64)| -> Result<(), Failure> {
            if let Some(MapEntries::Values(rows)) = read(name)? {
                for (k, v) in rows {
                    if let Some(st) = s.rows.get_mut(&key2(&k)) {
                        f(st, &k, int(&v));
                    }
                }
            }
            Ok(())
        };
    each(tp::MAP_MIN, &mut |st, _, v| st.min_ns = v)?;
    each(tp::MAP_MAX, &mut |st, _, v| st.max_ns = v)?;
    each(tp::MAP_SQUARES, &mut |st, _, v| st.squares = v)?;
    each(tp::MAP_ERRNO, &mut |st, k, v| {
        st.errnos.insert(int(&k[2]) as i32, v);
    })?;
    Ok(s)
}

/// Names of the summary's threads: those that exited from the program's map, the others from
/// /proc.
fn read_names(
    compiled: &sonde_compile::Compiled,
    collector: &Collector,
    sym: &mut Symbolizer,
    s: &mut Summary,
) -> Result<(), Failure> {
    let int = |v: &Value| v.bits().unwrap_or(0);
    let names =
        compiled.user_maps.iter().position(|m| m.name.trim_start_matches('@') == tp::MAP_NAMES);
    if let Some(MapEntries::Values(rows)) =
        names.map(|i| collector.map(i, sym)).transpose().map_err(Failure::kernel)?
    {
        for (k, v) in rows {
            if let Value::Str(b) = v {
                s.names.insert(int(&k[0]) as u32, String::from_utf8_lossy(until_nul(&b)).into());
            }
        }
    }
    // Threads still running name themselves.
    let tids: Vec<u32> = s.rows.keys().map(|(t, _)| *t).collect();
    for tid in tids {
        if let Ok(c) = std::fs::read_to_string(format!("/proc/{tid}/comm")) {
            s.names.entry(tid).or_insert_with(|| c.trim_end().to_string());
        }
    }
    Ok(())
}
