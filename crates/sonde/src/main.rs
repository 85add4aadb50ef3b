//! sonde: dynamically instrument a running Linux system.
//!
//! The pipeline (see docs/architecture.md): program text -> AST (sonde-syntax) -> typed program ->
//! BPF instructions (sonde-compile) -> loaded programs and maps (sonde-kernel) -> events ->
//! output (sonde-output). This crate is the glue: flags, the session, signals, `-c`.

mod bench;
mod cgroup;
mod child;
mod cli;
mod collect;
mod decode;
mod error;
mod face_graph;
mod face_probe;
mod face_serve;
mod face_trace;
mod fmt;
mod host_env;
mod kept;
mod list;
mod map_full;
mod misses;
mod options;
mod output;
mod probe_filter;
mod run;
mod self_test;
mod session;
mod shell;
mod signal_name;
mod signals;
mod stdout;
mod strftime;

use clap::Parser;
use error::Failure;

fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c.settled(),
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    if let Some(cli::Face::Completions { shell }) = &cli.face {
        let mut cmd = cli::command();
        clap_complete::generate(*shell, &mut cmd, "sonde", &mut std::io::stdout());
        return 0;
    }
    sonde_symbols::debuginfo::set_search_dirs(cli.debuginfo.clone());
    // Formatting touches nothing of the kernel's or of other runs: it goes first, for any user.
    if cli.fmt {
        return fmt::run(&cli);
    }
    // Whatever this run does, what dead runs left goes first (said in one line if anything).
    run::prepare::clean_dead_runs();
    if let Some(face) = &cli.face {
        // Each face's flags are checked into its settings before anything is done.
        let result = match face {
            cli::Face::Probe(a) => a.settings().and_then(|s| face_probe::run(&s)),
            cli::Face::Trace(a) => a.settings().and_then(|s| face_trace::run(&s)),
            cli::Face::Graph(a) => a.settings().and_then(|s| face_graph::run(&s)),
            cli::Face::Serve(a) => face_serve::run(a),
            cli::Face::Completions { .. } => Ok(0),
        };
        return result.unwrap_or_else(|f| {
            f.report();
            f.exit_code()
        });
    }
    if cli.version || (cli.verbose && !cli.list && cli.program.is_none()) {
        let version = stdout::println(&format!("sonde {}", env!("CARGO_PKG_VERSION")));
        return version.map_or_else(
            |f| {
                f.report();
                f.exit_code()
            },
            |_| 0,
        );
    }
    let result = if cli.self_test {
        self_test::run(cli.format)
    } else if cli.list {
        list::run(cli.program.as_deref().unwrap_or("*"), cli.verbose || cli.debug, cli.pid)
    } else {
        match &cli.program {
            None => Err(Failure::Usage(
                "no program given: `sonde 'PROGRAM'` or `sonde FILE` (see `sonde --help`)".into(),
            )),
            Some(arg) => session::source_from_arg(arg).and_then(|src| session::run(&cli, src)),
        }
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            f.report();
            f.exit_code()
        }
    }
}
