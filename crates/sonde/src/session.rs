//! The language face: compile, then the run lifecycle (`run`): load, attach, BEGIN, events until
//! something stops the run, END, the maps, detach.

use crate::child::Command;
use crate::cli::{Cli, Mode};
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::map_full::FullMaps;
use crate::misses::{Misses, ProbeRuns};
use crate::output::{Action, Output};
use crate::run::attach::Traced;
use crate::run::bpf::{Attached, Loaded};
use crate::run::{poll, Events, Needs, Reason, Target};
use crate::signals;
use sonde_compile::provider::AttachPoint;
use sonde_compile::sema::config::Config;
use sonde_compile::tir::TProgram;
use sonde_compile::{Compiled, Options};
use sonde_kernel::object::prog::Program;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_symbols::Symbolizer;
use sonde_syntax::diag::SourceFile;
use std::time::Instant;

pub fn run(cli: &Cli, source: SourceFile) -> Result<i32, Failure> {
    let t0 = Instant::now();
    // Until `arm` below, a signal ends sonde at once (nothing to clean up); after it, it asks
    // for a clean stop (END, maps, detach).
    signals::install();
    let ast = sonde_syntax::parse(&source.text).map_err(|d| Failure::Compile(d, source.clone()))?;
    // Said first: otherwise the first root-only file (tracefs, kallsyms) is blamed instead.
    crate::run::prepare::check_privileges(Needs::Bpf)?;
    if cli.dump {
        crate::stdout::println(&sonde_syntax::dump(&ast))?;
    }
    let command = cli.command.clone().map(Command::Line);
    // Settled just before the attach: the command's start overlaps the compile and the load.
    let mut target = Target::start(command.as_ref(), &Vec::from_iter(cli.pid))?;
    let opts = options(cli, &target)?;
    let env = HostEnv::for_pid(cli.pid).unchecked_uprobes(cli.allow_unsafe);
    let typed =
        sonde_compile::check(&ast, &env, &opts).map_err(|d| Failure::Compile(d, source.clone()))?;
    if crate::options::check(&opts.named, &typed.options)? {
        crate::stdout::print(&crate::options::help(&typed.options))?;
        return Ok(0);
    }
    warn(cli, &typed, &env, &source)?;
    let print_maps = typed.print_maps_on_exit;
    crate::decode::set_trunc_trailer(&typed.str_trunc_trailer, typed.max_strlen);
    let mut compiled =
        sonde_compile::lower(&typed, &opts).map_err(|d| Failure::Compile(d, source.clone()))?;
    if let Some(pattern) = &cli.probe_filter {
        crate::probe_filter::apply(&mut compiled, pattern)?;
    }
    if cli.dump {
        crate::stdout::println(&sonde_compile::dump::compiled(&compiled, &source.text))?;
    }
    check_mode(cli, &compiled)?;
    debug(cli, &format!("compiled {} program(s) in {:?}", compiled.programs.len(), t0.elapsed()));
    signals::arm();
    signals::usr1_prints();
    crate::run::prepare(Needs::Bpf)?;
    if cli.debug && probes_functions(&compiled) {
        crate::list::report_skipped(&ast, &env);
    }
    crate::run::load::VERIFIER_STATS.store(cli.debug, std::sync::atomic::Ordering::Relaxed);
    let loaded = Loaded::load(&compiled, &source)?;
    for line in crate::run::load::verifier_report(&compiled, &loaded.programs) {
        debug(cli, &line);
    }
    debug(cli, &format!("loaded into the kernel after {:?}", t0.elapsed()));
    if cli.dry_run {
        eprintln!(
            "{} program(s) passed the verifier; nothing attached (dry run)",
            loaded.programs.len()
        );
        return Ok(0);
    }
    let mut output = output(cli, &source, &compiled, &loaded, &opts)
        .max_cat_bytes(typed.max_cat_bytes)
        .source_name(&source.name);
    let health = output.health();
    let ring = loaded.ring()?;
    let misses = Misses::new(compiled.programs.iter().map(|p| p.name.clone()));
    // BEGIN runs before the probes attach, as bpftrace's does: what it sets (`@start = nsecs`)
    // is there before any probe can read it. Its records wait in the ring buffer until after
    // the attach line; the -c command is still held before its exec.
    loaded.run_special(&compiled, &AttachPoint::Begin)?;
    target.settle();
    let bench = cli.mode == Mode::Bench;
    let attached = if bench {
        Attached::nothing()
    } else {
        let traced = Traced { pid: cli.pid, command: target.command_pid() };
        let attached = loaded.attach(&compiled, &env, traced)?;
        output.attached(attached.probes);
        attached
    };
    debug(cli, &format!("attached after {:?}", t0.elapsed()));
    let mut events = ScriptEvents {
        cli,
        ring,
        output,
        misses,
        full: FullMaps::new(&compiled, &loaded.maps),
        programs: &loaded.programs,
        on_usr1: loaded.special(&compiled, &AttachPoint::Signal { name: "SIGUSR1".into() }),
        lost_seen: 0,
        last_misses: Instant::now(),
    };
    let begun = events.drain()?;
    // The exit of the -c command or the -p process wakes the loop through its pidfd, not after
    // the next poll timeout (its SIGCHLD can land before the wait starts).
    for fd in target.wake_fds() {
        events.ring.wake_on(fd).map_err(Failure::kernel)?;
    }
    target.release();
    let reason = match begun {
        Some(r) => r,
        // An iterator's run is one pass over its objects, then the run ends.
        None if attached.has_iterators() => {
            attached.iterate(|text| events.output.printed_by_kernel(text))?;
            events.drain()?.unwrap_or(Reason::Exit(0))
        }
        None if bench => run_benches(&compiled, &loaded, &mut events)?,
        // Nothing can fire after BEGIN: the run ends, as bpftrace's does (not with a -c
        // command, which runs to its end).
        None if only_begin_end(&compiled) && !target.has_command() => Reason::Exit(0),
        None => poll::until_stopped(&mut events, &mut target, &health, None)?,
    };
    debug(cli, &format!("stopped: {reason:?}"));
    // Silence every probe at once, so END has the last word and the maps print now, not after
    // the kernel has taken its time to detach them (see CONTROL_MAP).
    let control = loaded.control()?;
    let timers = crate::misses::timer_runs(&compiled, &control, attached.at.elapsed());
    loaded.silence(control)?;
    events.drain()?;
    // The programs are silent now: the kernel's teardown (RCU grace periods, tens of ms a probe)
    // runs while END runs and the maps print, not after.
    let detaching = attached.detach(cli.debug);
    loaded.run_special(&compiled, &AttachPoint::End)?;
    events.drain()?;
    let runs: Vec<ProbeRuns> = loaded
        .programs
        .iter()
        .zip(timers)
        .map(|(program, timer)| ProbeRuns { program, timer })
        .collect();
    let ScriptEvents { mut output, mut misses, mut full, lost_seen, .. } = events;
    let lost = output.lost_events()?;
    // Once the output failed, its one sentence is all there is to say.
    if health.failure().is_none() {
        misses.write(&runs, &mut output);
        full.write(&mut output);
        if lost > lost_seen {
            output.warn_lost(lost - lost_seen);
        }
        output.end_of_run();
        if print_maps {
            output.print_all_maps();
        }
    }
    detaching.finish();
    Ok(crate::run::conclude(reason, &mut target, &health, lost, cli.keep_going))
}

/// The compiler's options from the flags, the environment's `BPFTRACE_*` settings and the run's
/// target and clocks.
fn options(cli: &Cli, target: &Target) -> Result<Options, Failure> {
    let mut opts = Options::new();
    opts.filter_pid = cli.pid;
    opts.allow_unsafe = cli.allow_unsafe;
    opts.exit_silences = true;
    opts.settings = Config::from_environment(std::env::vars())
        .map_err(|(name, why)| Failure::Usage(format!("{}: {}", name, why)))?;
    (opts.params, opts.named) = crate::options::split(&cli.params);
    opts.child_pid = target.command_pid();
    opts.start_ns = sonde_kernel::host::clock::monotonic_ns();
    opts.wall_offset_ns = sonde_kernel::host::clock::realtime_ns()
        .wrapping_sub(sonde_kernel::host::clock::boottime_ns());
    // bpftrace's test hook: tseries() reads the time from this map (its runtime tests use it).
    opts.dummy_ts_map = std::env::var("BPFTRACE_DUMMY_TS_MAP").ok();
    opts.pid_namespace = sonde_kernel::host::pid_namespace::own();
    Ok(opts)
}

/// Where the program's records and maps are written, with the flags' format and buffering.
fn output<'a>(
    cli: &Cli,
    source: &'a SourceFile,
    compiled: &'a Compiled,
    loaded: &'a Loaded,
    opts: &Options,
) -> Output<'a> {
    // usym() resolves in the -p process or the -c command; the uprobes' executables name
    // their own addresses once their processes are gone.
    let uprobed = compiled.programs.iter().flat_map(|p| &p.sites).filter_map(|s| match &s.point {
        AttachPoint::Uprobe { path, .. } => Some(std::path::Path::new(path.as_str())),
        _ => None,
    });
    let symbols = Symbolizer::new(opts.filter_pid.or(opts.child_pid)).with_executables(uprobed);
    let format = cli.format;
    Output::new(format, cli.flame.as_deref(), &source.text, compiled, &loaded.maps, symbols)
        .unbuffered(cli.unbuffer)
        .without_warnings(cli.no_warnings)
}

/// The compiler's warnings (unless `--no-warnings`) and, with `-S`, the typed program.
fn warn(cli: &Cli, typed: &TProgram, env: &HostEnv, source: &SourceFile) -> Result<(), Failure> {
    match env.btf_missing() {
        Some(why) if !cli.no_warnings => eprintln!(
            "sonde: {}: kernel types are unavailable; integer arguments and tracepoints still work",
            why
        ),
        _ => {}
    }
    let shown = if cli.no_warnings { &[][..] } else { &typed.warnings[..] };
    for w in shown {
        eprint!("{}", sonde_syntax::render(w, source, crate::error::stderr_is_terminal()));
    }
    if cli.dump {
        crate::stdout::println(&sonde_compile::dump::typed(typed))?;
    }
    Ok(())
}

/// `--mode bench` with `bench:` probes, or a run without: anything else is a usage error.
fn check_mode(cli: &Cli, compiled: &Compiled) -> Result<(), Failure> {
    let benches = bench_names(compiled).len();
    match cli.mode {
        Mode::Bench if benches == 0 => Err(Failure::Usage(
            "--mode bench runs the program's `bench:NAME` probes, and it has none".into(),
        )),
        Mode::Run if benches > 0 && only_begin_end(compiled) => Err(Failure::Usage(
            "the program's `bench:` probes run only with --mode bench, and it has no other".into(),
        )),
        _ => Ok(()),
    }
}

/// The names of the program's `bench:NAME` probes, in the program's order.
fn bench_names(compiled: &Compiled) -> Vec<String> {
    let names = compiled.programs.iter().flat_map(|p| &p.sites).filter_map(|s| match &s.point {
        AttachPoint::Bench { name } => Some(name.clone()),
        _ => None,
    });
    names.collect()
}

/// `--mode bench`: each bench run and its result printed (what the runs print is dropped), then
/// the run ends as after `exit()`.
fn run_benches(
    compiled: &Compiled,
    loaded: &Loaded,
    events: &mut ScriptEvents,
) -> Result<Reason, Failure> {
    let names = bench_names(compiled);
    let benches: Vec<(String, &Program)> = names
        .iter()
        .map(|n| {
            let point = AttachPoint::Bench { name: n.clone() };
            (n.clone(), loaded.special(compiled, &point)[0])
        })
        .collect();
    let ScriptEvents { ring, output, .. } = events;
    let mut discard = || ring.drain(|_| {}).map(|_| ()).map_err(Failure::kernel);
    let mut report = |i, average, runs| output.bench(&names, i, average, runs);
    crate::bench::run(&benches, &mut discard, &mut report)?;
    Ok(Reason::Exit(0))
}

/// Every probe of the program is BEGIN or END (or a bench, which only `--mode bench` runs).
fn only_begin_end(compiled: &Compiled) -> bool {
    let special = |s: &sonde_compile::provider::Site| {
        matches!(s.point, AttachPoint::Begin | AttachPoint::End | AttachPoint::Bench { .. })
    };
    compiled.programs.iter().all(|p| p.sites.iter().all(special))
}

fn probes_functions(compiled: &Compiled) -> bool {
    compiled
        .programs
        .iter()
        .flat_map(|p| &p.sites)
        .any(|s| matches!(s.point, AttachPoint::Kprobe { .. } | AttachPoint::Uprobe { .. }))
}

/// A script's events: records from the ring buffer, written as they come; runs the kernel
/// skipped and updates full maps refused reported each second with `-d`; lost events stop the
/// run unless `-k`.
struct ScriptEvents<'a> {
    cli: &'a Cli,
    ring: RingBuf,
    output: Output<'a>,
    misses: Misses,
    full: FullMaps<'a>,
    programs: &'a [Program],
    /// The `self:signal:SIGUSR1` probes, which SIGUSR1 runs (else it prints the maps).
    on_usr1: Vec<&'a Program>,
    lost_seen: u64,
    last_misses: Instant,
}

impl Events for ScriptEvents<'_> {
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure> {
        self.ring.poll(timeout_ms).map_err(Failure::kernel)
    }

    fn drain(&mut self) -> Result<Option<Reason>, Failure> {
        let failed = |o: &Output| o.health().failure().is_some();
        // Once the output failed, records are only consumed (nothing more can be written), and
        // its one sentence is all there is to say.
        if failed(&self.output) {
            self.ring.drain(|_| {}).map_err(Failure::kernel)?;
            return Ok(None);
        }
        let mut action = Action::Continue;
        let output = &mut self.output;
        self.ring
            .drain(|rec| {
                if matches!(action, Action::Continue) {
                    action = output.record(rec);
                }
            })
            .map_err(Failure::kernel)?;
        if signals::print_requested() {
            if self.on_usr1.is_empty() {
                output.print_all_maps();
            }
            // The probes' records are read with the next drain.
            for p in &self.on_usr1 {
                p.test_run(&[]).map_err(Failure::kernel)?;
            }
        }
        output.flush();
        if failed(output) {
            return Ok(None);
        }
        if let Action::Exit(code) = action {
            return Ok(Some(Reason::Exit(code)));
        }
        if self.cli.debug && self.last_misses.elapsed() >= MISSES_EVERY {
            self.misses.write(self.programs, &mut self.output);
            self.full.write(&mut self.output);
            self.last_misses = Instant::now();
        }
        let lost = self.output.lost_events()?;
        if lost > self.lost_seen {
            self.output.warn_lost(lost - self.lost_seen);
            self.lost_seen = lost;
            if !self.cli.keep_going {
                eprintln!("sonde: stopping because events were lost (use -k to keep going)");
                return Ok(Some(Reason::Lost));
            }
        }
        Ok(None)
    }
}

/// With `-d`, skipped runs are reported as they happen, this often, besides at the end.
const MISSES_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

fn debug(cli: &Cli, msg: &str) {
    if cli.debug {
        eprintln!("sonde: {}", msg);
    }
}

/// Text name of the program source for diagnostics.
pub fn source_from_arg(arg: &str) -> Result<SourceFile, Failure> {
    let path = std::path::Path::new(arg);
    // A program is text with braces or a BEGIN/END; anything else that names a file is a file.
    if !arg.contains('{') && path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("cannot read {}: {}", arg, e)))?;
        return Ok(SourceFile { name: arg.to_string(), text });
    }
    if looks_like_a_path(arg) {
        // Said as a file problem, not as a parse error at the first `/`.
        return Err(Failure::Usage(if path.is_dir() {
            format!("{}: is a directory, not a program file", arg)
        } else {
            format!("{}: no such file (a program in the argument needs `{{ ... }}`)", arg)
        }));
    }
    Ok(SourceFile { name: sonde_syntax::diag::PROGRAM_TEXT.into(), text: arg.to_string() })
}

/// An argument meant as a program file: no braces, and a program file's extension or a `/`
/// (without blanks or `;`, which a one-statement program such as `p:f /pid == 1/ @ = count();`
/// has).
fn looks_like_a_path(arg: &str) -> bool {
    let statement = arg.contains(|c: char| c.is_whitespace() || c == ';');
    !arg.contains('{')
        && ([".bt", ".ply", ".sonde"].iter().any(|e| arg.ends_with(e))
            || (arg.contains('/') && !statement))
}
