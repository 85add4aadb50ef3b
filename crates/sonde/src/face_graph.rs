//! `sonde graph FUNCTION`: the function_graph tracer on one kernel function, each call shown as
//! a tree with its timings, as folded stacks or as SVG flame graphs (crates/sonde-graph does
//! the parsing and drawing; sonde-kernel's graph_tracer owns the tracefs settings).

use crate::child::Command;
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::run::{poll, Events, Needs, Reason, Target};
use crate::signals;
use clap::{Args, ValueEnum};
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Tree,
    Svg,
    Folded,
    Raw,
}

/// Trace every call of one kernel function with the function_graph tracer.
#[derive(Args, Debug)]
pub struct GraphArgs {
    /// tree: each call as an indented tree; svg: flame graphs; folded: `a;b;c ns` lines; raw:
    /// the tracer's own lines.
    #[arg(short = 'm', long, value_enum, default_value = "tree")]
    pub mode: Mode,
    /// The output file (folded, one summed SVG) or, with --step, the directory for the SVGs.
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// svg: also one flame graph of every Nth call.
    #[arg(short = 's', long, value_name = "N")]
    pub step: Option<u64>,
    /// Only calls made by process PID (and its new children); stop when it exits.
    #[arg(short = 'p', long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Run COMMAND and trace only it and its children (also: `-- COMMAND ARGS...`).
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    pub command: Option<String>,
    /// Record at most N levels below FUNCTION (the tracer's max_graph_depth; 0: no limit).
    #[arg(long, value_name = "N", default_value = "0")]
    pub max_depth: u32,
    /// Leave out calls shorter than this (`10us`, `2ms`, `1s`, or nanoseconds).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub min_duration: Option<u64>,
    /// Only calls made by tasks named NAME (their comm, as in /proc/PID/comm).
    #[arg(long, value_name = "NAME")]
    pub comm: Option<String>,
    /// Each call as one JSON record a line (`graph_call`), then `graph_summary` and `lost_events`,
    /// as docs/json.md describes.
    #[arg(long)]
    pub json: bool,
    /// Stop after N calls.
    #[arg(short = 'n', long, value_name = "N")]
    pub count: Option<u64>,
    /// Stop after this long (`5s`, `500ms`).
    #[arg(short = 'd', long, value_name = "DURATION", value_parser = parse_duration)]
    pub duration: Option<u64>,
    /// The kernel function whose calls to trace.
    pub function: String,
    /// The command to run and trace, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub cmd: Vec<String>,
}

/// `-c LINE` as typed, or the words after `--` exactly as typed.
fn command(a: &GraphArgs) -> Option<Command> {
    match (&a.command, a.cmd.is_empty()) {
        (Some(line), _) => Some(Command::Line(line.clone())),
        (None, false) => Some(Command::Argv(a.cmd.clone())),
        (None, true) => None,
    }
}

fn parse_duration(s: &str) -> Result<u64, String> {
    let (num, mult) = [("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000)]
        .iter()
        .find_map(|(u, m)| s.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((s, 1));
    num.trim()
        .parse::<u64>()
        .map(|n| n * mult)
        .map_err(|_| format!("`{s}` is not a duration (write e.g. 10us, 2ms, 1s)"))
}

pub fn run(a: &GraphArgs) -> Result<i32, Failure> {
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
    let mut target = Target::new(command(a).as_ref(), &Vec::from_iter(a.pid))?;
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
    let deadline = a.duration.map(|d| Instant::now() + Duration::from_nanos(d));
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
    a: &'a GraphArgs,
    stdout: std::io::BufWriter<Sink>,
    folded: Folded,
    calls: u64,
    /// The held command's pid until its exec is seen.
    gate: Option<u32>,
    /// Task names by pid: from exec events, else /proc (the tracer's column holds 7 bytes).
    comms: HashMap<u32, String>,
}

impl<'a> CallSink<'a> {
    fn new(a: &'a GraphArgs, out: Sink) -> CallSink<'a> {
        CallSink {
            a,
            stdout: std::io::BufWriter::new(out),
            folded: Folded::new(),
            calls: 0,
            gate: None,
            comms: HashMap::new(),
        }
    }

    /// Consume whole lines from `buf`; true once --count calls have been seen.
    fn lines(&mut self, buf: &mut Vec<u8>, b: &mut Builder) -> Result<bool, Failure> {
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
                if self.gate == Some(call.task.pid)
                    || call.root.total_ns.unwrap_or(0) < self.a.min_duration.unwrap_or(0)
                {
                    continue;
                }
                self.name_task(&mut call);
                if self.a.comm.as_deref().is_some_and(|c| !comm_matches(&call.task.comm, c)) {
                    continue;
                }
                self.calls += 1;
                self.call(&call)?;
                if self.a.count.is_some_and(|n| self.calls >= n) {
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
            Mode::Folded | Mode::Raw => {}
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
            Mode::Tree | Mode::Raw => {}
        }
        let _ = self.stdout.flush();
        Ok(())
    }
}

/// The summed SVG: `-o FILE`, or `FUNCTION.svg` in the `-o` directory (with --step) or here.
fn svg_path(a: &GraphArgs, function: &str) -> PathBuf {
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
fn check_output(a: &GraphArgs) -> Result<(), Failure> {
    if a.json && (a.mode == Mode::Raw || (a.mode == Mode::Folded && a.output.is_none())) {
        return Err(Failure::Usage(
            "--json prints calls as JSON lines: it goes with -m tree or svg, or -m folded -o FILE"
                .into(),
        ));
    }
    if a.mode == Mode::Svg && a.step.is_some() {
        let Some(d) = &a.output else {
            return Err(Failure::Usage(
                "--step writes one SVG per call: name their directory with -o DIR".into(),
            ));
        };
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
    let env = HostEnv::new();
    let listed = env.kernel_functions().map_err(|e| Failure::Setup(e.to_string()))?;
    if listed.iter().any(|f| f == name) {
        return Ok(name.to_string());
    }
    if let Some(twin) = kernel_functions::twin_of(&env, name) {
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
    use super::{comm_matches, command, full_name};
    use crate::child::Command;
    use crate::cli::{Cli, Face};
    use clap::Parser;

    #[test]
    fn the_words_after_the_double_dash_reach_the_command_unchanged() {
        let words = ["touch", "a b", "q'd", ";", "$(id)", "*", ""];
        let argv = ["sonde", "graph", "vfs_read", "--"].iter().chain(&words);
        let Some(Face::Graph(a)) = Cli::try_parse_from(argv).unwrap().face else { panic!() };
        let want = words.iter().map(|w| w.to_string()).collect();
        assert_eq!(command(&a), Some(Command::Argv(want)));
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
