//! `sonde graph --errors FUNCTION [-a GLOB]...`: retsnoop's question, why did this call fail?
//! sonde-graph writes the program (errors::program) in sonde's language; it is compiled, loaded
//! and attached as a script is, and each failed call's records come back to be printed.

mod names;

use crate::cli::graph::{Errors, Graph, Mode};
use crate::collect::Collector;
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::bpf::Loaded;
use crate::run::{Events, Needs, Reason, Target};
use crate::signals;
use names::Functions;
use sonde_compile::{Compiled, Options};
use sonde_graph::errors::path::{FailedCall, Pending, RawFrame};
use sonde_graph::errors::perfetto::Timeline;
use sonde_graph::errors::program::{self as ep, Plan, Tasks};
use sonde_graph::errors::show;
use sonde_graph::folded::Folded;
use sonde_graph::record;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_output::file::{check_writable, write_atomically};
use sonde_output::sink::{Health, Sink};
use sonde_output::value::Value;
use sonde_output::{MapEntries, Record};
use sonde_symbols::Symbolizer;
use sonde_syntax::diag::SourceFile;
use sonde_trace::names::until_nul;
use std::io::Write;

pub fn run(a: &Graph, e: &Errors) -> Result<i32, Failure> {
    crate::run::prepare(Needs::Bpf)?;
    signals::arm();
    if let (Mode::Perfetto | Mode::Folded, Some(p)) = (a.mode, &a.output) {
        check_writable(p).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    let env = HostEnv::new();
    let functions = Functions::resolve(&env, &a.function, &e.also)?;
    let mut target = Target::new(a.command.as_ref(), &Vec::from_iter(a.pid))?;
    let pids = target.pids();
    let plan = Plan {
        entry: functions.function(&functions.entry),
        inner: functions.inner.iter().map(|f| functions.function(f)).collect(),
        args: functions.args.iter().map(|p| p.kind.clone()).collect(),
        tasks: if pids.is_empty() { Tasks::AllBut(std::process::id()) } else { Tasks::Pids(pids) },
        comm: a.comm.clone(),
        latency_ns: e.latency_ns,
    };
    let (compiled, source) = compile(&plan, &env)?;
    let loaded = Loaded::load(&compiled, &source)?;
    let attached = loaded.attach(&compiled, &env, Default::default())?;
    eprintln!(
        "Recording {} and {} function(s) inside it; its failed calls are shown; Ctrl-C to stop",
        functions.entry,
        functions.inner.len()
    );
    let (sink, health) = Sink::stdout();
    let mut calls = ErrorEvents {
        a,
        compiled: &compiled,
        collector: Collector::new(&compiled, &loaded.maps),
        ring: loaded.ring()?,
        health: health.clone(),
        symbols: Symbolizer::new(None).perf_frames(),
        functions: &functions,
        pending: Pending::default(),
        out: std::io::BufWriter::new(sink),
        folded: Folded::new(),
        timeline: Timeline::new(),
        shown: 0,
        broken: 0,
    };
    for fd in target.wake_fds() {
        calls.ring.wake_on(fd).map_err(Failure::kernel)?;
    }
    let reason = loaded.read_until_stopped(&mut calls, &mut target, &health, a.duration_ns)?;
    let detaching = attached.detach(false);
    let lost = calls.finish()?;
    detaching.finish();
    Ok(crate::run::conclude(reason, &mut target, &health, lost, false))
}

/// The plan's program, compiled; a failure shows the program it came from.
fn compile(plan: &Plan, env: &HostEnv) -> Result<(Compiled, SourceFile), Failure> {
    let source = SourceFile { name: "<sonde graph --errors>".into(), text: plan.program() };
    let mut opts = Options::new();
    opts.string_size = ep::ARG_STRING_BYTES;
    let compiled = sonde_compile::compile(&source.text, env, &opts)
        .map_err(|d| Failure::Compile(d, source.clone()))?;
    Ok((compiled, source))
}

/// The failed calls as the loop sees them: records from the ring buffer, printed as each
/// call's last record arrives.
struct ErrorEvents<'a> {
    a: &'a Graph,
    compiled: &'a Compiled,
    collector: Collector<'a>,
    ring: RingBuf,
    health: Health,
    symbols: Symbolizer,
    functions: &'a Functions,
    pending: Pending,
    out: std::io::BufWriter<Sink>,
    folded: Folded,
    timeline: Timeline,
    shown: u64,
    /// Calls whose path lost records on the way.
    broken: u64,
}

impl Events for ErrorEvents<'_> {
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure> {
        self.ring.poll(timeout_ms).map_err(Failure::kernel)
    }

    fn drain(&mut self) -> Result<Option<Reason>, Failure> {
        if crate::run::bpf::consumed_after_failure(&mut self.ring, &self.health)? {
            return Ok(None);
        }
        let mut records = Vec::new();
        self.ring
            .drain(|rec| {
                let Some(id) = rec.get(..8).map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                else {
                    return;
                };
                if let Some(event) = self.compiled.events.get(id as usize) {
                    records.push(self.collector.values(&event.args, &rec[8..], &mut self.symbols));
                }
            })
            .map_err(Failure::kernel)?;
        for v in records {
            if self.full() {
                break;
            }
            self.record(&v);
        }
        let _ = self.out.flush();
        Ok(self.full().then_some(Reason::Limit))
    }
}

impl ErrorEvents<'_> {
    fn full(&self) -> bool {
        self.a.max_events.is_some_and(|n| self.shown >= n)
    }

    fn record(&mut self, v: &[Value]) {
        let int = |i: usize| Value::u64_at(v, i);
        let tid = int(1) as u32;
        match int(0) {
            ep::TAG_FRAME => self.pending.frame(
                tid,
                RawFrame {
                    level: int(2) as u32,
                    addr: int(3),
                    result: int(4),
                    duration_ns: int(5),
                    start_ns: int(6),
                },
            ),
            ep::TAG_CALL => {
                let sent = int(5) as u32;
                let Some(raw) = self.pending.take(tid, sent) else {
                    self.broken += 1;
                    return;
                };
                if raw.len() < sent as usize {
                    self.broken += 1;
                }
                let comm = match v.get(3) {
                    Some(Value::Str(b)) => String::from_utf8_lossy(until_nul(b)).into_owned(),
                    _ => String::new(),
                };
                let call = FailedCall {
                    pid: int(2) as u32,
                    tid,
                    comm,
                    cpu: int(4) as u32,
                    frames: raw
                        .iter()
                        .map(|f| self.functions.frame(f, &mut self.symbols))
                        .collect(),
                    args: self.functions.arg_values(v.get(7..).unwrap_or_default()),
                    unreturned: int(6),
                };
                self.shown += 1;
                self.show(&call);
            }
            _ => {}
        }
    }

    fn show(&mut self, call: &FailedCall) {
        let n = self.shown;
        if self.a.json {
            let _ = writeln!(self.out, "{}", show::record(call, n));
        }
        match self.a.mode {
            Mode::Tree if !self.a.json => {
                let _ = writeln!(self.out, "{}", show::tree(call, n));
            }
            Mode::Folded => show::fold(&mut self.folded, call),
            Mode::Perfetto => self.timeline.add(call, n),
            _ => {}
        }
    }

    /// The summed outputs written, the losses said; returns how many records were lost.
    fn finish(mut self) -> Result<u64, Failure> {
        let write = |p: &std::path::Path, text: String| {
            write_atomically(p, |w| w.write_all(text.as_bytes()))
                .map_err(|e| Failure::Setup(e.to_string()))
        };
        let text = match self.a.mode {
            Mode::Folded => Some(self.folded.text()),
            Mode::Perfetto => Some(self.timeline.text()),
            _ => None,
        };
        match (text, &self.a.output) {
            (Some(t), Some(p)) => {
                write(p, t)?;
                eprintln!("sonde: wrote {}", p.display());
            }
            (Some(t), None) => {
                let _ = self.out.write_all(t.as_bytes());
            }
            _ => {}
        }
        let lost = self.collector.lost_events().map_err(Failure::kernel)?;
        let deep = self.deep();
        let function = &self.functions.entry;
        if self.a.json {
            let summary = record::summary(function, self.shown, self.broken);
            let _ = writeln!(self.out, "{summary}");
            let _ = writeln!(self.out, "{}", Record::lost_events(lost));
        }
        let _ = self.out.flush();
        if self.health.failure().is_some() {
            return Ok(lost);
        }
        if self.shown == 0 {
            eprintln!("sonde: no call of {function} failed while recording");
        }
        if lost > 0 || self.broken > 0 {
            eprintln!(
                "sonde: {lost} records lost (the ring buffer was full), {} failed call(s) shown without their whole path",
                self.broken
            );
        }
        if deep > 0 {
            eprintln!("sonde: {deep} calls deeper than {} levels were not recorded", ep::MAX_DEPTH);
        }
        Ok(lost + self.broken)
    }

    /// How many calls were too deep to record (the program's `@deep` count).
    fn deep(&mut self) -> u64 {
        let Some(i) = self.compiled.user_maps.iter().position(|m| m.name == ep::MAP_DEEP) else {
            return 0;
        };
        match self.collector.map(i, &mut self.symbols) {
            Ok(MapEntries::Values(rows)) => rows.iter().map(|(_, v)| v.bits().unwrap_or(0)).sum(),
            _ => 0,
        }
    }
}
