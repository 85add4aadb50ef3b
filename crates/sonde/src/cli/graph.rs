//! `sonde graph`'s flags (perf-tools' funcgraph is the anchor: `-d` the run time, `-p`, and
//! `--max-depth` for its `-m maxdepth`, since `-m` was sonde's mode first), and the settings
//! they come to once checked.

use super::shared::{self, JsonFormat};
use crate::child::Command;
use crate::error::Failure;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Tree,
    Svg,
    Folded,
    Raw,
    // --errors: a Chrome/Perfetto trace-event JSON timeline.
    Perfetto,
}

/// Trace every call of one kernel function with the function_graph tracer.
#[derive(Args, Debug)]
// `-f json` as in the language: funcgraph has no -f.
#[command(mut_arg("format", |a| a.short('f')))]
pub struct GraphArgs {
    /// tree: each call as an indented tree; svg: flame graphs; folded: `a;b;c ns` lines; raw:
    /// the tracer's own lines; perfetto (--errors): a trace-event JSON timeline. (funcgraph's
    /// `-m maxdepth` is --max-depth here.)
    #[arg(short = 'm', long, value_enum, default_value = "tree")]
    pub mode: Mode,
    /// The output file (folded, one summed SVG) or, with --step, the directory for the SVGs.
    #[arg(short = 'o', long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// svg: also one flame graph of every Nth call.
    #[arg(long, value_name = "N")]
    pub step: Option<u64>,
    /// Only calls made by process PID (and its new children); stop when it exits.
    #[arg(short = 'p', long, value_name = "PID")]
    pub pid: Option<u32>,
    /// Run COMMAND and trace only it and its children (also: `-- COMMAND ARGS...`).
    #[arg(short = 'c', long = "command", value_name = "COMMAND", conflicts_with = "pid")]
    pub command: Option<String>,
    /// Record at most N levels of calls, FUNCTION being the first: 2 is FUNCTION and what it
    /// calls (the tracer's max_graph_depth, funcgraph's -m; 0: no limit).
    #[arg(long, value_name = "N", default_value = "0")]
    pub max_depth: u32,
    /// Leave out calls shorter than this (`10us`, `2ms`, `1s`; a bare number is milliseconds).
    #[arg(long, value_name = "DURATION", value_parser = shared::call_time)]
    pub min_duration: Option<u64>,
    /// Only calls made by tasks named NAME (their comm, as in /proc/PID/comm).
    #[arg(long, value_name = "NAME")]
    pub comm: Option<String>,
    #[command(flatten)]
    pub format: JsonFormat,
    /// Stop after N calls.
    #[arg(short = 'n', long = "max-events", visible_alias = "count", value_name = "N")]
    pub max_events: Option<u64>,
    /// Stop after this long (`5s`, `500ms`; a bare number is seconds, as funcgraph's -d).
    #[arg(short = 'd', long, value_name = "DURATION", value_parser = shared::run_time)]
    pub duration: Option<u64>,
    /// Show only the calls of FUNCTION that fail (-Exxx, NULL, or slower than --latency), each
    /// with the path its failure came up through (BPF probes instead of function_graph).
    #[arg(long)]
    pub errors: bool,
    /// --errors: also record these functions inside FUNCTION (a name or a glob; repeatable).
    #[arg(short = 'a', long = "also", value_name = "GLOB", requires = "errors")]
    pub also: Vec<String>,
    /// --errors: a call (or frame) at least this slow fails too (`10ms`; a bare number is ms).
    #[arg(long, value_name = "DURATION", value_parser = shared::call_time, requires = "errors")]
    pub latency: Option<u64>,
    /// The kernel function whose calls to trace.
    pub function: String,
    /// The command to run and trace, after `--`: its words reach it exactly as typed.
    #[arg(last = true, value_name = "CMD")]
    pub cmd: Vec<String>,
}

/// What `sonde graph` runs with, checked.
#[derive(Debug)]
pub struct Graph {
    pub function: String,
    pub mode: Mode,
    pub output: Option<PathBuf>,
    pub step: Option<u64>,
    pub pid: Option<u32>,
    pub command: Option<Command>,
    pub max_depth: u32,
    pub min_duration_ns: u64,
    pub comm: Option<String>,
    pub json: bool,
    pub max_events: Option<u64>,
    pub duration_ns: Option<u64>,
    /// --errors, with the functions recorded inside and the latency bound.
    pub errors: Option<Errors>,
}

#[derive(Debug)]
pub struct Errors {
    pub also: Vec<String>,
    pub latency_ns: Option<u64>,
}

impl GraphArgs {
    pub fn settings(&self) -> Result<Graph, Failure> {
        let json = self.format.json();
        if json && (self.mode == Mode::Raw || (self.mode == Mode::Folded && self.output.is_none()))
        {
            return Err(Failure::Usage(
                "--json prints calls as JSON lines: it goes with -m tree or svg, or -m folded -o FILE"
                    .into(),
            ));
        }
        if self.step.is_some() && (self.mode != Mode::Svg || self.output.is_none()) {
            return Err(Failure::Usage(
                "--step writes one SVG per call: it goes with -m svg and -o DIR, their directory"
                    .into(),
            ));
        }
        self.check_errors()?;
        let command = shared::command(self.pid, self.command.as_ref(), &self.cmd)?;
        Ok(Graph {
            function: self.function.clone(),
            mode: self.mode,
            output: self.output.clone(),
            step: self.step,
            pid: self.pid,
            command,
            max_depth: self.max_depth,
            min_duration_ns: self.min_duration.unwrap_or(0),
            comm: self.comm.clone(),
            json,
            max_events: self.max_events,
            duration_ns: self.duration,
            errors: self
                .errors
                .then(|| Errors { also: self.also.clone(), latency_ns: self.latency }),
        })
    }

    /// The modes and flags --errors goes with, and perfetto only with it.
    fn check_errors(&self) -> Result<(), Failure> {
        if !self.errors {
            return match self.mode {
                Mode::Perfetto => Err(Failure::Usage(
                    "-m perfetto is a timeline of failed calls: it goes with --errors".into(),
                )),
                _ => Ok(()),
            };
        }
        if matches!(self.mode, Mode::Svg | Mode::Raw) {
            return Err(Failure::Usage(
                "--errors shows failed calls as -m tree, folded or perfetto (svg and raw are the function_graph tracer's)"
                    .into(),
            ));
        }
        let graph_only = [
            (self.max_depth != 0, "--max-depth"),
            (self.min_duration.is_some(), "--min-duration"),
            (self.step.is_some(), "--step"),
        ];
        if let Some((_, flag)) = graph_only.iter().find(|(set, _)| *set) {
            return Err(Failure::Usage(format!(
                "{flag} is the function_graph tracer's: --errors records at most {} levels and takes --latency for slow calls",
                sonde_graph::errors::program::MAX_DEPTH
            )));
        }
        if self.mode == Mode::Perfetto && self.format.json() {
            return Err(Failure::Usage(
                "-m perfetto writes one JSON document of its own: leave out --json".into(),
            ));
        }
        Ok(())
    }
}
