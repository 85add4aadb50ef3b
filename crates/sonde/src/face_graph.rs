//! `sonde graph FUNCTION`: the function_graph tracer on one kernel function, each call shown as
//! a tree with its timings, as folded stacks or as SVG flame graphs (crates/sonde-graph does
//! the parsing and drawing; sonde-kernel's graph_tracer owns the tracefs settings).

mod errors;

use crate::cli::graph::{Graph, Mode};
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::{poll, Events, Needs, Reason, Target};
use crate::signals;
use sonde_compile::provider::kernel_functions;
use sonde_compile::Env;
use sonde_graph::folded::Folded;
use sonde_graph::{line, record, render, svg, Builder, Call, Line};
use sonde_kernel::tracefs::graph_tracer::{GraphConfig, GraphTracer};
use sonde_kernel::tracefs::Tracefs;
use sonde_output::file::{check_writable, write_atomically};
use sonde_output::sink::Sink;
use sonde_output::Record;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn run(a: &Graph) -> Result<i32, Failure> {
    if let Some(e) = &a.errors {
        return errors::run(a, e);
    }
    crate::run::prepare(Needs::Tracefs)?;
    // This face reaches tracefs within milliseconds: stop cleanly from the start.
    signals::arm();
    check_output(a)?;
    let tracefs = Tracefs::find_or_mount().map_err(Failure::kernel)?;
    let tracers =
        std::fs::read_to_string(tracefs.root().join("available_tracers")).unwrap_or_default();
    if !tracers.split_whitespace().any(|t| t == "function_graph") {
        return Err(Failure::Setup(
            sonde_kernel::tracefs::graph_tracer::GraphError::NoTracer.to_string(),
        ));
    }
    let function = check_function(&a.function)?;
    let mut target = Target::new(a.command.as_ref(), &Vec::from_iter(a.pid))?;
    let pids = target.pids();
    let cfg = GraphConfig {
        function: &function,
        pids: &pids,
        follow_forks: !pids.is_empty(),
        max_depth: a.max_depth,
        exec_events: target.has_command() || a.comm.is_some(),
    };
    let tracer = GraphTracer::start(&tracefs, &cfg).map_err(|e| Failure::Setup(e.to_string()))?;
    let alias = if function == a.function {
        String::new()
    } else {
        format!(", the kernel's name for {}", a.function)
    };
    eprintln!(
        "Tracing {function}{alias} with function_graph ({}); Ctrl-C to stop",
        if tracer.in_instance() { "in an instance of its own" } else { "in the top-level tracer" }
    );
    let (sink, health) = Sink::stdout();
    let mut calls = GraphEvents {
        tracer,
        sink: CallSink::new(a, sink),
        builder: Builder::for_function(&function),
        buf: Vec::new(),
        idle: false,
    };
    // The held command's calls count from its exec on (see `CallSink::gate`).
    calls.sink.gate = target.command_pid().filter(|_| calls.tracer.sees_exec());
    target.release();
    let deadline = a.duration_ns.map(|d| Instant::now() + Duration::from_nanos(d));
    let reason = poll::until_stopped(&mut calls, &mut target, &health, deadline)?;
    // Once stopped, the buffer is finite: drain it, or the last calls would be missed.
    calls.tracer.stop();
    while calls.drain()?.is_none() && !calls.idle {}
    target.finish();
    let GraphEvents { tracer, mut sink, builder, .. } = calls;
    let overruns = tracer.overruns().max(builder.lost_events);
    drop(tracer);
    sink.finish(&a.function)?;
    if a.json {
        let summary = record::summary(&a.function, sink.calls, builder.broken_calls);
        let _ = writeln!(sink.stdout, "{summary}");
        let _ = writeln!(sink.stdout, "{}", Record::lost_events(overruns));
        let _ = sink.stdout.flush();
    }
    if overruns > 0 || builder.broken_calls > 0 {
        eprintln!(
            "sonde: the trace buffer overflowed: {overruns} entries lost, {} calls incomplete and left out (use -p/-c, --max-depth or a less frequent function)",
            builder.broken_calls
        );
    }
    let lost = overruns + builder.broken_calls;
    Ok(crate::run::conclude(reason, &mut target, &health, lost, false))
}

/// The tracer's lines as the loop sees them: whole calls, written as they complete.
struct GraphEvents<'a> {
    tracer: GraphTracer,
    sink: CallSink<'a>,
    builder: Builder,
    buf: Vec<u8>,
    /// The last read found nothing: the next wait sleeps.
    idle: bool,
}

impl Events for GraphEvents<'_> {
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure> {
        if self.idle {
            std::thread::sleep(Duration::from_millis(timeout_ms as u64));
        }
        Ok(())
    }

    fn drain(&mut self) -> Result<Option<Reason>, Failure> {
        let got = self
            .tracer
            .read_into(&mut self.buf)
            .map_err(|e| Failure::Setup(format!("cannot read the trace: {e}")))?;
        self.idle = got == 0;
        let done = self.sink.lines(&mut self.buf, &mut self.builder)?;
        Ok(done.then_some(Reason::Limit))
    }
}

/// Where calls go, by mode.
struct CallSink<'a> {
    a: &'a Graph,
    stdout: std::io::BufWriter<Sink>,
    folded: Folded,
    calls: u64,
    /// The held command's pid until its exec is seen.
    gate: Option<u32>,
    /// Task names by pid: from exec events, else /proc (the tracer's column holds 7 bytes).
    comms: HashMap<u32, String>,
    /// Calls left out as shorter than --min-duration.
    short: u64,
}

impl<'a> CallSink<'a> {
    fn new(a: &'a Graph, out: Sink) -> CallSink<'a> {
        CallSink {
            a,
            stdout: std::io::BufWriter::new(out),
            folded: Folded::new(),
            calls: 0,
            gate: None,
            comms: HashMap::new(),
            short: 0,
        }
    }

    /// Consume whole lines from `buf`; true once --max-events calls have been seen.
    fn lines(&mut self, buf: &mut Vec<u8>, b: &mut Builder) -> Result<bool, Failure> {
        // --max-events reached: the calls still in the buffer are not shown.
        if self.a.max_events.is_some_and(|n| self.calls >= n) {
            return Ok(true);
        }
        let Some(end) = buf.iter().rposition(|&c| c == b'\n') else { return Ok(false) };
        let text = String::from_utf8_lossy(&buf[..=end]).into_owned();
        buf.drain(..=end);
        for l in text.lines() {
            if self.a.mode == Mode::Raw {
                let _ = writeln!(self.stdout, "{l}");
            }
            let parsed = line::parse(l);
            if let Line::Exec { pid, filename, .. } = &parsed {
                let base = filename.rsplit('/').next().unwrap_or(filename);
                self.comms.insert(*pid, base.chars().take(15).collect());
                if self.gate == Some(*pid) {
                    self.gate = None;
                }
            }
            if let Some(mut call) = b.push(&parsed) {
                if self.gate == Some(call.task.pid) {
                    continue;
                }
                if call.root.total_ns.unwrap_or(0) < self.a.min_duration_ns {
                    self.short += 1;
                    continue;
                }
                self.name_task(&mut call);
                if self.a.comm.as_deref().is_some_and(|c| !comm_matches(&call.task.comm, c)) {
                    continue;
                }
                self.calls += 1;
                self.call(&call)?;
                if self.a.max_events.is_some_and(|n| self.calls >= n) {
                    let _ = self.stdout.flush();
                    return Ok(true);
                }
            }
        }
        let _ = self.stdout.flush();
        Ok(false)
    }

    /// The task's full name: the tracer prints 7 bytes of it, or `<...>` when it has none.
    fn name_task(&mut self, call: &mut Call) {
        let pid = call.task.pid;
        if let Some(c) = self.comms.get(&pid) {
            call.task.comm = c.clone();
        } else if let Ok(c) = std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            call.task.comm = c.trim().to_string();
            self.comms.insert(pid, call.task.comm.clone());
        } else if let Some(want) = self.a.comm.as_deref().filter(|w| full_name(&call.task.comm, w))
        {
            // Gone, and it exec'd before tracing began: its 7 bytes are all the tracer kept,
            // and they are the start of the name --comm asked for.
            call.task.comm = want.chars().take(15).collect();
        }
    }

    fn call(&mut self, call: &Call) -> Result<(), Failure> {
        self.folded.add(&call.root);
        if self.a.json {
            let _ = writeln!(self.stdout, "{}", record::call(self.calls, call));
        }
        match self.a.mode {
            Mode::Tree if self.a.json => {}
            Mode::Tree => {
                let _ = writeln!(self.stdout, "{}", render::tree(call, self.calls));
            }
            Mode::Svg => {
                if let (Some(step), Some(dir)) = (self.a.step, &self.a.output) {
                    if step > 0 && (self.calls - 1).is_multiple_of(step) {
                        let mut one = Folded::new();
                        one.add(&call.root);
                        let title = format!(
                            "{} call {} ({}-{})",
                            call.root.name, self.calls, call.task.comm, call.task.pid
                        );
                        let p = dir.join(format!("{}-{}.svg", call.root.name, self.calls));
                        write_svg(&one, &title, &p)?;
                    }
                }
            }
            Mode::Folded | Mode::Raw | Mode::Perfetto => {}
        }
        Ok(())
    }

    fn finish(&mut self, function: &str) -> Result<(), Failure> {
        match self.a.mode {
            Mode::Svg => {
                let p = svg_path(self.a, function);
                if self.folded.is_empty() {
                    eprintln!(
                        "sonde: no complete call of {function} was seen: no flame graph written"
                    );
                } else {
                    write_svg(&self.folded, &format!("{function}: {} calls", self.calls), &p)?;
                    eprintln!("sonde: wrote {}", p.display());
                }
            }
            Mode::Folded => match &self.a.output {
                Some(p) => write_atomically(p, |w| w.write_all(self.folded.text().as_bytes()))
                    .map_err(|e| Failure::Setup(e.to_string()))?,
                None => {
                    let _ = self.stdout.write_all(self.folded.text().as_bytes());
                }
            },
            Mode::Tree => eprintln!("{}", summary_line(function, self.calls, self.short)),
            Mode::Raw | Mode::Perfetto => {}
        }
        let _ = self.stdout.flush();
        Ok(())
    }
}

/// What a tree run printed, said at its end even when nothing was (`0 calls`), with the calls
/// --min-duration left out.
fn summary_line(function: &str, calls: u64, short: u64) -> String {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let mut s = format!("sonde: {calls} call{} of {function}", plural(calls));
    if short > 0 {
        s += &format!(" ({short} shorter than --min-duration left out)");
    }
    s
}

/// The summed SVG: `-o FILE`, or `FUNCTION.svg` in the `-o` directory (with --step) or here.
fn svg_path(a: &Graph, function: &str) -> PathBuf {
    match (&a.output, a.step) {
        (Some(d), Some(_)) => d.join(format!("{function}.svg")),
        (Some(f), None) => f.clone(),
        (None, _) => PathBuf::from(format!("{function}.svg")),
    }
}

/// An SVG written whole or not at all; a failure is one sentence and status 1.
fn write_svg(f: &Folded, title: &str, p: &Path) -> Result<(), Failure> {
    write_atomically(p, |w| svg::write(f, title, "ns", w))
        .map_err(|e| Failure::Setup(e.to_string()))
}

fn out_err(p: &Path, e: std::io::Error) -> Failure {
    Failure::Usage(format!("cannot write {}: {e}", p.display()))
}

/// The output can be written: found out before tracefs is touched.
fn check_output(a: &Graph) -> Result<(), Failure> {
    if let (Mode::Svg, Some(_), Some(d)) = (a.mode, a.step, &a.output) {
        std::fs::create_dir_all(d).map_err(|e| out_err(d, e))?;
        let probe = d.join(".sonde-write-test");
        std::fs::write(&probe, "").map_err(|e| out_err(d, e))?;
        let _ = std::fs::remove_file(probe);
        return Ok(());
    }
    let file = match a.mode {
        Mode::Svg => Some(svg_path(a, &a.function)),
        Mode::Folded => a.output.clone(),
        _ => None,
    };
    if let Some(p) = file {
        // Only the directory is tried: the file itself is written whole at the end, or not.
        check_writable(&p).map_err(|e| Failure::Usage(e.to_string()))?;
    }
    Ok(())
}

/// The name to give the tracer for `name`, decided by address as the other faces decide
/// (`provider::kernel_functions`): `name` if it is listed traceable, or the listed name of its
/// address when it is another name of a traceable function (`__x64_sys_getpid` is
/// `__do_sys_getpid` on kernels that list only the latter).
fn check_function(name: &str) -> Result<String, Failure> {
    check_function_in(&HostEnv::new(), name)
}

/// [`check_function`] against `env`, whose function list is read once for many names.
fn check_function_in(env: &HostEnv, name: &str) -> Result<String, Failure> {
    let listed = env.kernel_functions().map_err(|e| Failure::Setup(e.to_string()))?;
    if listed.iter().any(|f| f == name) {
        return Ok(name.to_string());
    }
    if let Some(twin) = kernel_functions::twin_of(env, name) {
        return Ok(twin);
    }
    if env.kernel_symbol_exists(name) == Some(true) {
        return Err(Failure::Usage(format!(
            "`{name}` cannot be traced: the kernel has it but marks it notrace (not in available_filter_functions) or lists it on the kprobe blacklist"
        )));
    }
    let near = sonde_syntax::nearest(name, listed.iter().map(String::as_str), 3);
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", near.join(", "))
    };
    Err(Failure::Usage(format!("the kernel has no traceable function `{name}`{hint}")))
}

/// `--comm NAME` against a task's name (cut at 15 bytes as the kernel does; or the tracer's
/// 7-byte column when the task was gone before its full name was known).
/// `comm` is the tracer's 7-byte cut of `name` (not the whole of a shorter name).
fn full_name(comm: &str, name: &str) -> bool {
    comm.len() == 7 && name.len() > 7 && comm_matches(comm, name)
}

fn comm_matches(comm: &str, name: &str) -> bool {
    let name: String = name.chars().take(15).collect();
    comm == name || (comm.len() == 7 && name.starts_with(comm))
}

#[cfg(test)]
mod tests {
    use super::{comm_matches, full_name, summary_line};

    #[test]
    fn a_run_that_matched_nothing_still_says_so() {
        assert_eq!(summary_line("vfs_read", 0, 0), "sonde: 0 calls of vfs_read");
        assert_eq!(
            summary_line("vfs_read", 1, 12),
            "sonde: 1 call of vfs_read (12 shorter than --min-duration left out)"
        );
    }

    #[test]
    fn a_seven_byte_comm_is_the_start_of_the_name_asked_for() {
        assert!(comm_matches("sonde-w", "sonde-workload"));
        assert!(full_name("sonde-w", "sonde-workload"));
        assert!(!full_name("sonde-x", "sonde-workload"));
        // A short name is whole in the tracer's column: nothing to complete.
        assert!(comm_matches("dd", "dd") && !full_name("dd", "dd"));
        assert!(!full_name("bash", "sonde-workload"));
    }
}
