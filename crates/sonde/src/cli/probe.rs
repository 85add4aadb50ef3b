//! `sonde probe`'s flags (surftrace's `-S`, `-s`, `-f FILE`, `-o`; perf probe's words where
//! surftrace has none), and the settings they come to once checked.

use super::shared::{self, JsonFormat};
use crate::child::Command;
use crate::error::Failure;
use clap::Args;

/// surftrace's expressions as ftrace kprobe/uprobe events.
#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// Print the tracefs commands it would run, and exit (surftrace's -S).
    #[arg(long = "show", short = 'S')]
    pub show: bool,
    /// Write the commands as a shell script (with its clean-up) to FILE, and exit.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Add a kernel stack to every event (surftrace's -s).
    #[arg(short = 's', long = "stack")]
    pub stack: bool,
    /// Use the kernel's BTF-aware fprobe events (`f:` in dynamic_events, Linux 6.4+) instead of kprobes.
    #[arg(long = "fprobe")]
    pub fprobe: bool,
    /// Print the probes as a sonde program (the BPF face: `sonde 'PROGRAM'`), and exit.
    #[arg(long = "to-language")]
    pub to_language: bool,
    /// Only events of process PID (and its threads); stop when it exits.
    #[arg(short = 'p', long = "pid", value_name = "PID")]
    pub pid: Option<u32>,
    /// Start COMMAND once the probes are enabled, record only it and its children, stop when it
    /// exits (also: `-- COMMAND ARGS...`).
    #[arg(short = 'c', long = "command", value_name = "COMMAND", conflicts_with = "pid")]
    pub command: Option<String>,
    #[command(flatten)]
    pub format: JsonFormat,
    /// Stop after this long (`5s`, `500ms`; a bare number is seconds).
    #[arg(long, value_name = "DURATION", value_parser = shared::run_time)]
    pub duration: Option<u64>,
    /// Read expressions from FILE, one a line (surftrace's -f).
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<String>,
    /// `p SYM [NAME=FETCH ...] [f:FILTER]`, `r SYM ...`, `e GROUP/EVENT f:...`, `P BIN:SYM ...`, `R BIN:SYM ...`
    pub exprs: Vec<String>,
    /// The command to run and record, after `--`: its words reach it exactly as typed.
    #[arg(last = true, value_name = "CMD")]
    pub cmd: Vec<String>,
}

/// What `sonde probe` runs with, checked.
#[derive(Debug)]
pub struct Probe {
    pub exprs: Vec<String>,
    pub show: bool,
    pub output: Option<String>,
    pub stack: bool,
    pub fprobe: bool,
    pub to_language: bool,
    pub pid: Option<u32>,
    pub command: Option<Command>,
    pub json: bool,
    pub duration_ns: Option<u64>,
}

impl ProbeArgs {
    pub fn settings(&self) -> Result<Probe, Failure> {
        let mut exprs = self.exprs.clone();
        if let Some(f) = &self.file {
            let text = std::fs::read_to_string(f)
                .map_err(|e| Failure::Usage(format!("cannot read {f}: {e}")))?;
            exprs.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(String::from),
            );
        }
        if exprs.is_empty() {
            return Err(Failure::Usage(
                "no expression given: `sonde probe 'p do_filp_open dfd=%0'` (see `sonde probe --help`)"
                    .into(),
            ));
        }
        let command = shared::command(self.pid, self.command.as_ref(), &self.cmd)?;
        Ok(Probe {
            exprs,
            show: self.show,
            output: self.output.clone(),
            stack: self.stack,
            fprobe: self.fprobe,
            to_language: self.to_language,
            pid: self.pid,
            command,
            json: self.format.json(),
            duration_ns: self.duration,
        })
    }
}
