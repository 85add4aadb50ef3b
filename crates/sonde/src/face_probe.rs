//! `sonde probe`: surftrace's expressions written as kprobe/uprobe events into tracefs, enabled in
//! sonde's own instance, printed from its trace_pipe. The expressions are resolved by
//! `sonde-probe` (pure) against this host's BTF, kallsyms and binaries (`HostEnv`); everything
//! is checked before the first write, and removed on exit, Ctrl-C, SIGTERM and SIGHUP.

use crate::cli::probe::Probe as Settings;
use crate::error::Failure;
use crate::run::{self, poll, Events, Needs, Reason};
use crate::signals;
use env::ProbeEnv;
use plan::{Line, Names, Plan};
use sonde_kernel::tracefs::instance::Instance;
use sonde_kernel::tracefs::probe_event::{self, DynamicEvent};
use sonde_kernel::tracefs::Tracefs;
use sonde_output::sink::Sink;
use sonde_probe::{Probe, Target};
use std::io::{ErrorKind, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

mod env;
mod plan;

pub fn run(a: &Settings) -> Result<i32, Failure> {
    // Printing the commands needs no privilege; running them does, said before anything else.
    if !(a.show || a.output.is_some() || a.to_language) {
        crate::run::prepare::check_privileges(Needs::Tracefs)?;
    }
    // Everything is resolved before tracefs is touched.
    let env = ProbeEnv::new();
    let mut probes = Vec::new();
    for e in &a.exprs {
        let name = probe_event::reserve_name();
        let p = sonde_probe::build(e, &env, "sonde", &name)
            .map_err(|err| Failure::Usage(err.to_string()))?;
        probes.push(p);
    }
    if a.to_language {
        for p in &probes {
            let line =
                sonde_probe::to_language(p, &env).map_err(|err| Failure::Usage(err.to_string()))?;
            crate::stdout::println(&line)?;
        }
        return Ok(0);
    }
    let tracefs = Tracefs::find_or_mount().map_err(Failure::kernel)?;
    if a.fprobe && !probe_event::fprobes_available(&tracefs) {
        return Err(Failure::Usage(
            "this kernel has no fprobe events (`f:` in dynamic_events needs Linux 6.4+ built with CONFIG_FPROBE_EVENTS): drop --fprobe to use kprobe_events".into(),
        ));
    }
    // What each dynamic probe writes, and where.
    let mut lines = Vec::new();
    for p in &probes {
        lines.push(match &p.target {
            Target::Dynamic(_) if a.fprobe => Some(Line {
                file: "dynamic_events",
                text: sonde_probe::fprobe_line(p, &env)
                    .map_err(|err| Failure::Usage(err.to_string()))?,
            }),
            Target::Dynamic(def) => Some(Line { file: def.events_file(), text: def.to_string() }),
            Target::Tracepoint { .. } => None,
        });
    }
    let plan = Plan {
        root: tracefs.root().display().to_string(),
        probes: &probes,
        lines: &lines,
        stack: a.stack,
    };
    if a.show {
        crate::stdout::print(
            &plan.commands(Names::ThisRun).iter().map(|c| format!("{c}\n")).collect::<String>(),
        )?;
        return Ok(0);
    }
    if let Some(out) = &a.output {
        // Whole or not at all: a cut script would run half its set-up and none of its clean-up.
        let script = plan.script();
        sonde_output::file::write_atomically(Path::new(out), |w| w.write_all(script.as_bytes()))
            .map_err(|e| Failure::Setup(e.to_string()))?;
        return Ok(0);
    }
    crate::run::prepare(Needs::Tracefs)?;
    // This face reaches tracefs within milliseconds: stop cleanly from the start.
    signals::arm();
    let mut target = run::Target::new(a.command.as_ref(), &Vec::from_iter(a.pid))?;
    trace(&tracefs, &probes, &lines, a, &mut target)
}

fn trace(
    tracefs: &Tracefs,
    probes: &[Probe],
    lines: &[Option<Line>],
    a: &Settings,
    target: &mut run::Target,
) -> Result<i32, Failure> {
    // Declared first, dropped last: the instance (which holds them enabled) goes before them.
    let mut events = Vec::new();
    for (p, line) in probes.iter().zip(lines) {
        if let (Target::Dynamic(def), Some(l)) = (&p.target, line) {
            let e = if l.file == "dynamic_events" {
                DynamicEvent::create_fprobe(tracefs, &def.event, &l.text)
            } else {
                DynamicEvent::create(tracefs, def.is_uprobe(), &def.event, &l.text)
            };
            events.push(e.map_err(Failure::kernel)?);
        }
    }
    let instance = enable(tracefs, probes, a.stack, target)?;
    let (sink, health) = Sink::stdout();
    let mut pipe = PipeEvents {
        health: health.clone(),
        pipe: instance.open_pipe().map_err(Failure::kernel)?,
        labels: probes.iter().map(|p| (p.event().1.to_string(), label(p))).collect(),
        json: a.json,
        buf: vec![0u8; 64 * 1024],
        pending: String::new(),
        out: std::io::BufWriter::new(sink),
        idle: false,
    };
    eprintln!(
        "Tracing {} probe{}... Hit Ctrl-C to end.",
        probes.len(),
        if probes.len() == 1 { "" } else { "s" }
    );
    target.release();
    let deadline = a.duration_ns.map(|d| Instant::now() + Duration::from_nanos(d));
    let reason = poll::until_stopped(&mut pipe, target, &health, deadline)?;
    // What the kernel already holds is printed before the events go; recording stops first, or
    // a busy event would keep the buffer from ever emptying.
    instance.stop_recording().map_err(Failure::kernel)?;
    while pipe.drain()?.is_none() && !pipe.idle {}
    let _ = pipe.out.flush();
    drop(pipe);
    drop(instance);
    drop(events);
    Ok(run::conclude(reason, target, &health, 0, false))
}

/// sonde's instance with the probes enabled in it, recording only the target's events.
fn enable(
    tracefs: &Tracefs,
    probes: &[Probe],
    stack: bool,
    target: &run::Target,
) -> Result<Instance, Failure> {
    let mut instance = Instance::create(tracefs).map_err(Failure::kernel)?;
    // Before anything is enabled, so no other process's event is ever recorded.
    if let Some(&pid) = target.pids().first() {
        instance.set_event_pids(&[pid], target.has_command()).map_err(Failure::kernel)?;
    }
    for p in probes {
        let (group, event) = p.event();
        if let Some(f) = &p.filter {
            instance.set_filter(group, event, f).map_err(Failure::kernel)?;
        }
        instance.enable(group, event).map_err(Failure::kernel)?;
    }
    if stack {
        instance.set_option("stacktrace", true).map_err(Failure::kernel)?;
    }
    Ok(instance)
}

/// Events as sonde's instance's trace_pipe gives them: whole lines, written as they come.
struct PipeEvents {
    /// The output's state: once it failed, nothing more is read.
    health: sonde_output::sink::Health,
    pipe: std::fs::File,
    labels: Vec<(String, String)>,
    json: bool,
    buf: Vec<u8>,
    /// The start of a line whose end has not been read yet.
    pending: String,
    out: std::io::BufWriter<Sink>,
    /// The last drain found nothing: the next wait sleeps.
    idle: bool,
}

impl Events for PipeEvents {
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure> {
        if self.idle {
            std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        }
        Ok(())
    }

    /// Reads until the pipe has nothing more (it is non-blocking), or [`DRAIN_READS`] reads:
    /// events that come as fast as they are read must not keep the loop from a stop signal.
    fn drain(&mut self) -> Result<Option<Reason>, Failure> {
        self.idle = true;
        for _ in 0..DRAIN_READS {
            if self.health.failure().is_some() {
                break;
            }
            match self.pipe.read(&mut self.buf) {
                Ok(n) if n > 0 => {
                    self.idle = false;
                    self.pending.push_str(&String::from_utf8_lossy(&self.buf[..n]));
                    while let Some(i) = self.pending.find('\n') {
                        let line: String = self.pending.drain(..=i).collect();
                        if let Some(text) = render(line.trim_end(), &self.labels, self.json) {
                            let _ = writeln!(self.out, "{text}");
                        }
                    }
                }
                Ok(_) => break,
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(Failure::Setup(format!("cannot read trace_pipe: {e}"))),
            }
        }
        let _ = self.out.flush();
        Ok(None)
    }
}

/// Reads of trace_pipe (64 KiB each) between two looks at what may stop the run.
const DRAIN_READS: usize = 16;

/// One trace_pipe line as text, or as its JSON record (`--json`; none for a stack's heading).
fn render(line: &str, labels: &[(String, String)], json: bool) -> Option<String> {
    let comm_of = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok();
    let named = sonde_probe::format::with_comm(line, comm_of);
    let line = named.as_deref().unwrap_or(line);
    match json {
        false => Some(sonde_probe::format::format_line(line, labels)),
        true => sonde_probe::record::record(line, labels).map(|r| r.to_string()),
    }
}

/// What an event's lines are labelled with: the probed function or tracepoint.
fn label(p: &Probe) -> String {
    let mut words = p.source.split_whitespace();
    let kind = words.next().unwrap_or("");
    let target = words.next().unwrap_or("");
    match kind {
        "r" | "R" => format!("{target}%return"),
        _ => target.to_string(),
    }
}
