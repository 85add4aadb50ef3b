//! The command line, defined once with its documentation: the language's flags here, each face's
//! in its own file. Each face's flags are checked in one step (`settings()`) into what the face
//! runs with, before any work; man pages, completions and the docs' option lists come from these
//! definitions (`docs.rs`).

pub mod graph;
pub mod probe;
mod shared;
pub mod trace;

#[cfg(test)]
mod docs;
#[cfg(test)]
pub(crate) mod tests;

use clap::{Parser, Subcommand, ValueEnum};

/// What a run does with the program (bpftrace's `--mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Attach the probes and trace.
    Run,
    /// Run each `bench:NAME` probe many times by hand and print its average time a run.
    Bench,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// Stack-keyed maps as folded stacks (`frame;frame;... N`), for flame-graph tools.
    Folded,
}

/// Dynamically instrument the running kernel: ply's language (and bpftrace's spellings), compiled
/// straight to BPF.
#[derive(Parser, Debug)]
#[command(
    name = "sonde",
    version,
    about,
    // `-v` is ply's version flag and bpftrace's verbose flag: both, told apart by context (main.rs).
    disable_version_flag = true,
    // `sonde PROGRAM` as always, or `sonde FACE ...`; a program that is one of the faces' names
    // is written after `--` (or kept in a file).
    args_conflicts_with_subcommands = true,
    disable_help_subcommand = true,
    after_help = "Examples:\n  sonde 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'\n  sonde -c 'ls' 'tracepoint:syscalls:sys_exit_read /pid == cpid/ { @ = hist(args->ret); }'\n  sonde -lv 'tracepoint:sched:*'\n\nExit status: 0 on success, 1 when the kernel refuses something or events were lost, 2 for usage and compile errors."
)]
pub struct Cli {
    #[command(subcommand)]
    pub face: Option<Face>,

    /// Start COMMAND once every probe is attached; stop when it exits. `cpid` and `$target` hold its pid (a plain command is exec'd directly; shell syntax runs under `sh -c`).
    #[arg(short = 'c', long = "command", value_name = "COMMAND")]
    pub command: Option<String>,

    /// Print the program (the file or text given) back in bpftrace's standard format, comments
    /// and blank lines kept, and exit; with -o, into FILE (replaced whole, never half-written).
    /// Reads no kernel state: any user may run it.
    #[arg(long = "fmt")]
    pub fmt: bool,

    /// Print debugging output (what is loaded and attached, how long it took, what the verifier
    /// spent on each program, runs the kernel skipped each second)
    #[arg(short = 'd', long)]
    pub debug: bool,

    /// Compile and load every program into the kernel's verifier, attach nothing, and exit.
    #[arg(short = 'e', long = "dry-run")]
    pub dry_run: bool,

    /// Dump the AST, the typed program, the BPF instructions (with source lines) and the maps.
    #[arg(short = 'S', long)]
    pub dump: bool,

    /// On lost events, warn and keep going instead of exiting with an error.
    #[arg(short = 'k', long = "keep-going")]
    pub keep_going: bool,

    /// Attach only the probes whose names REGEX matches (anywhere in the name; BEGIN and END always run), as bpftrace's --probe-filter.
    #[arg(long = "probe-filter", value_name = "REGEX")]
    pub probe_filter: Option<String>,

    /// Say no warnings: the compiler's, and the program's warnf() (bpftrace's --no-warnings).
    #[arg(long = "no-warnings")]
    pub no_warnings: bool,

    /// Allow actions that change the traced system: bpftrace's `signal()`, `system()` and
    /// `override()` (bpftrace's --unsafe).
    #[arg(long = "unsafe")]
    pub allow_unsafe: bool,

    /// Write every event to stdout the moment it is read, even into a pipe (ply's flag): no output waits in a buffer.
    #[arg(short = 'u', long = "unbuffer")]
    pub unbuffer: bool,

    /// Report what this kernel offers sonde (versions, config, features; every provider attached for real) and what to do about what is missing; exit 0 when everything sonde needs works. With -f json: one object.
    #[arg(short = 'T', long = "self-test")]
    pub self_test: bool,

    /// Trace only process PID (uprobe library names resolve in its mappings); stop when it exits.
    #[arg(short = 'p', long, value_name = "PID")]
    pub pid: Option<u32>,

    /// List the probes matching the pattern given in place of the program (e.g. 'tracepoint:syscalls:*', 'sched:*'; all when omitted) and exit.
    #[arg(short = 'l', long)]
    pub list: bool,

    /// Alone: print the version. With -l: show each probe's arguments and their types.
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Print the version.
    #[arg(long)]
    pub version: bool,

    /// `run` attaches the probes; `bench` runs each `bench:NAME` probe by hand until its runs add
    /// up to a millisecond and prints its average time a run (bpftrace's --mode bench), between
    /// BEGIN and END, attaching nothing.
    #[arg(long, value_enum, default_value = "run")]
    pub mode: Mode,

    /// Look for the separate debug info of stripped binaries in DIR too, before the standard places: DIR/.build-id/xx/rest.debug, the binary's .gnu_debuglink name, NAME.debug (bpftrace's --debuginfo; repeatable, or DIR:DIR; a relative DIR is read from the binary's directory, then from the working one).
    #[arg(long = "debuginfo", value_name = "DIR", value_delimiter = ':')]
    pub debuginfo: Vec<std::path::PathBuf>,

    /// Output format: text, or one JSON object per line (bpftrace's schema).
    #[arg(short = 'f', long, value_enum, default_value = "text")]
    pub format: Format,

    /// One JSON object per line: the same as -f json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Draw the stack-keyed maps as one SVG flame graph in FILE (instead of printing them); with
    /// --fmt, write the formatted program to FILE.
    #[arg(short = 'o', long = "flame", visible_alias = "output", value_name = "FILE")]
    pub flame: Option<std::path::PathBuf>,

    /// The program text, or a file holding it.
    #[arg(value_name = "PROGRAM-FILE | PROGRAM-TEXT")]
    pub program: Option<String>,

    /// The program's positional parameters: `$1`, `$2`... (integers), `str($1)` (text), `$#`;
    /// after `--` they may start with `-`, and `--NAME[=VALUE]` is a named option (`getopt()`).
    #[arg(value_name = "ARG")]
    pub params: Vec<String>,
}

/// The faces beside scripts (docs/architecture.md says where each lives). A program text that is
/// one of their names is written after `--`.
#[derive(Subcommand, Debug)]
pub enum Face {
    /// The ftrace front end: surftrace expressions as kprobe/uprobe events (docs/probe.md).
    Probe(probe::ProbeArgs),
    /// The syscall tracer: strace's lines and summaries at perf trace's cost (docs/trace.md).
    Trace(Box<trace::TraceArgs>),
    /// A kernel function's calls as trees with timings, or flame graphs (function_graph).
    Graph(graph::GraphArgs),
    /// Programs' maps as Prometheus metrics, read at each scrape of /metrics (docs/serve.md).
    Serve(crate::face_serve::ServeArgs),
    /// Print a completion script for SHELL: `source <(sonde completions bash)`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

impl Cli {
    /// The language's settings: `--json` is `-f json`.
    pub fn settled(mut self) -> Cli {
        if self.json {
            self.format = Format::Json;
        }
        self
    }
}

/// The whole command line as clap sees it, for man pages and completions.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}
