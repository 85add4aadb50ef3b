//! One tracing session: compile, load, attach, run BEGIN, deliver events until asked to stop, run
//! END, print the maps, detach. Everything the kernel holds is owned here and released on drop.

use crate::child::{Command, HeldChild};
use crate::cli::Cli;
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::misses::{Misses, ProbeRuns};
use crate::output::{Action, Output};
use crate::signals;
use sonde_compile::provider::AttachPoint;
use sonde_compile::{Compiled, Options};
use sonde_kernel::attach::link::Link;
use sonde_kernel::host::process::PidWatch;
use sonde_kernel::object::prog::Program;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_symbols::Symbolizer;
use sonde_syntax::diag::SourceFile;
use std::time::Instant;

/// What a user without the privileges hears, before any kernel interface refuses them.
pub const NEEDS_ROOT: &str = "needs root (or the capabilities CAP_BPF and CAP_PERFMON, with read access to tracefs): \
sonde loads BPF programs into the kernel and attaches them to kernel events, which only a privileged user may do";

/// How often the reader wakes to drain the ring buffer. Records are written without waking it
/// (waking costs tens of microseconds per event on small VMs), so this bounds output latency.
const POLL_MS: i32 = 20;

pub fn run(cli: &Cli, source: SourceFile) -> Result<i32, Failure> {
    let t0 = Instant::now();
    // Until `arm` below, a signal ends sonde at once (nothing to clean up); after it, it asks
    // for a clean stop (END, maps, detach).
    signals::install();
    let ast = sonde_syntax::parse(&source.text).map_err(|d| Failure::Compile(d, source.clone()))?;
    if !sonde_kernel::sys::has_bpf_capabilities() {
        // Said first: otherwise the first root-only file (tracefs, kallsyms) is blamed instead.
        return Err(Failure::Setup(NEEDS_ROOT.into()));
    }
    if let Some(pid) = cli.pid {
        // Said before anything is loaded: no probe could ever fire for a process that is gone.
        if !std::path::Path::new(&format!("/proc/{}", pid)).exists() {
            return Err(Failure::Usage(format!(
                "-p {}: no process has that pid (it may have exited)",
                pid
            )));
        }
    }
    if cli.dump {
        println!("{}", sonde_syntax::dump(&ast));
    }
    let mut child = match &cli.command {
        Some(c) => Some(HeldChild::start(&Command::Line(c.clone()))?),
        None => None,
    };
    let mut opts = Options::new();
    opts.filter_pid = cli.pid;
    opts.allow_unsafe = cli.allow_unsafe;
    (opts.params, opts.named) = crate::options::split(&cli.params);
    opts.child_pid = child.as_ref().map(HeldChild::pid);
    opts.start_ns = sonde_kernel::host::clock::monotonic_ns();
    let env = HostEnv::for_pid(cli.pid);
    let typed =
        sonde_compile::check(&ast, &env, &opts).map_err(|d| Failure::Compile(d, source.clone()))?;
    if crate::options::check(&opts.named, &typed.options)? {
        print!("{}", crate::options::help(&typed.options));
        return Ok(0);
    }
    if let Some(why) = env.btf_missing() {
        eprintln!(
            "sonde: {}: kernel types are unavailable; integer arguments and tracepoints still work",
            why
        );
    }
    for w in &typed.warnings {
        eprint!("{}", sonde_syntax::render(w, &source, crate::error::stderr_is_terminal()));
    }
    if cli.dump {
        println!("{}", sonde_compile::dump::typed(&typed));
    }
    let compiled =
        sonde_compile::lower(&typed, &opts).map_err(|d| Failure::Compile(d, source.clone()))?;
    if cli.dump {
        println!("{}", sonde_compile::dump::compiled(&compiled, &source.text));
    }
    debug(cli, &format!("compiled {} program(s) in {:?}", compiled.programs.len(), t0.elapsed()));
    signals::arm();
    let probes_functions = compiled
        .programs
        .iter()
        .flat_map(|p| &p.sites)
        .any(|s| matches!(s.point, AttachPoint::Kprobe { .. } | AttachPoint::Uprobe { .. }));
    if probes_functions {
        // Only the tracefs fallback leaves anything behind when a run is SIGKILLed: remove it.
        if let Some(tracefs) = sonde_kernel::tracefs::Tracefs::find() {
            crate::leftovers::clean(&tracefs);
        }
        if cli.debug {
            crate::list::report_skipped(&ast, &env);
        }
    }

    crate::limits::check(&compiled)?;
    let maps = crate::load::create_maps(&compiled)?;
    let programs = crate::load::load_programs(&compiled, &maps, &source)?;
    debug(cli, &format!("loaded into the kernel after {:?}", t0.elapsed()));
    if cli.dry_run {
        eprintln!("{} program(s) passed the verifier; nothing attached (dry run)", programs.len());
        return Ok(0);
    }

    // usym() resolves in the -p process or the -c command.
    let symbols = Symbolizer::new(opts.filter_pid.or(opts.child_pid));
    let mut output =
        Output::new(cli.format, cli.flame.as_deref(), &source.text, &compiled, &maps, symbols)
            .unbuffered(cli.unbuffer)
            .source_name(&source.name);
    let mut ring =
        RingBuf::new(&maps[sonde_compile::lower::EVENTS_MAP]).map_err(Failure::kernel)?;
    let mut misses = Misses::new(compiled.programs.iter().map(|p| p.name.clone()));
    let mut links: Vec<Link> = Vec::new();
    let mut probes = 0;
    for (def, prog) in compiled.programs.iter().zip(&programs) {
        let (l, n) = crate::attach::attach_program(def, prog, &env, cli.pid)?;
        links.extend(l);
        probes += n;
    }
    let begin = special_programs(&compiled, &programs, &AttachPoint::Begin);
    let end = special_programs(&compiled, &programs, &AttachPoint::End);
    probes += begin.len() + end.len();
    output.attached(probes);
    let attached = Instant::now();
    debug(cli, &format!("attached after {:?}", t0.elapsed()));

    for prog in begin {
        prog.test_run(&[]).map_err(Failure::kernel)?;
    }
    let begin_action = drain(&mut ring, &mut output)?;
    // The exit of the -c command or the -p process wakes the event loop through its pidfd, not
    // after the next poll timeout (its SIGCHLD can land before the wait starts).
    let watch = cli.pid.or(child.as_ref().map(HeldChild::pid)).map(PidWatch::new);
    if let Some(fd) = watch.as_ref().and_then(PidWatch::fd) {
        ring.wake_on(fd).map_err(Failure::kernel)?;
    }
    if let Some(c) = child.as_mut() {
        c.release();
    }
    let (mut status, lost_seen) = match begin_action {
        Action::Exit(code) => (code, 0),
        Action::Continue => {
            let target = watch.as_ref().filter(|_| cli.pid.is_some());
            let mut live =
                LiveMisses { misses: &mut misses, programs: &programs, last: Instant::now() };
            deliver_events(cli, &mut ring, &mut output, &mut live, child.as_mut(), target)?
        }
    };
    // Silence every probe at once, so END has the last word and the maps print now, not after
    // the kernel has taken its time to detach them (see CONTROL_MAP).
    let timers = stop_probes(&compiled, &maps, attached)?;
    drain(&mut ring, &mut output)?;
    // The programs are silent now: the kernel's teardown (RCU grace periods, tens of ms a probe)
    // runs while END runs and the maps print, not after.
    let detaching = detach(cli, links, probes);
    for prog in end {
        prog.test_run(&[]).map_err(Failure::kernel)?;
    }
    drain(&mut ring, &mut output)?;
    let runs: Vec<ProbeRuns> =
        programs.iter().zip(timers).map(|(program, timer)| ProbeRuns { program, timer }).collect();
    misses.write(&runs, &mut output);
    let lost = output.lost_events()?;
    if lost > lost_seen {
        output.warn_lost(lost - lost_seen);
        if !cli.keep_going && status == 0 {
            status = 1;
        }
    }
    output.print_all_maps();
    if let Some(c) = child.as_mut() {
        c.kill();
    }
    detaching.finish();
    Ok(status)
}

/// Set the stop flag (see CONTROL_MAP), keeping the interval probes' run counts beside it, which
/// are read in the same step: each timer's (runs, whole periods since `attached`).
fn stop_probes(
    compiled: &sonde_compile::Compiled,
    maps: &[sonde_kernel::object::map::Map],
    attached: Instant,
) -> Result<Vec<Option<(u64, u64)>>, Failure> {
    let control = &maps[sonde_compile::lower::CONTROL_MAP];
    let key = 0u32.to_le_bytes();
    let mut value = control.lookup(&key).map_err(Failure::kernel)?.unwrap_or_default();
    let elapsed = attached.elapsed();
    value.resize(control.value_size(), 0);
    let timers = crate::misses::timer_runs(compiled, &value, elapsed);
    // A run between the read and this write loses its count, but it came after `elapsed`.
    value[..8].copy_from_slice(&1u64.to_le_bytes());
    control.update(&key, &value, 0).map_err(Failure::kernel)?;
    Ok(timers)
}

/// Remove every probe, on a thread of its own; [`Detaching::finish`] waits for it, so sonde
/// never exits before the kernel is as it found it. Where each kprobe is its own perf event
/// (kernels without kprobe_multi), the kernel waits for RCU grace periods on each one: say so
/// when that will take a while, so a silent pause does not look like a hang.
fn detach(cli: &Cli, links: Vec<Link>, probes: usize) -> Detaching {
    // BEGIN/END alone: no thread to start (~0.1 ms of a 3 ms run).
    if links.is_empty() {
        return Detaching(None);
    }
    let one_by_one = links.iter().filter(|l| !l.is_bpf_link()).count();
    if one_by_one >= SLOW_DETACH_NOTE {
        eprintln!(
            "sonde: detaching {} probes (this kernel removes them one by one; it can take a while)",
            one_by_one
        );
    }
    let debug = cli.debug;
    let work = move || {
        let t = Instant::now();
        sonde_kernel::attach::link::detach_all(links);
        if debug {
            eprintln!("sonde: detached {} probe(s) in {:?}", probes, t.elapsed());
        }
    };
    // If no thread can be had, the closure is dropped unrun, and with it the links: they
    // detach right here, one by one.
    Detaching(std::thread::Builder::new().name("detach".into()).spawn(work).ok())
}

/// The detach thread, joined before sonde returns.
struct Detaching(Option<std::thread::JoinHandle<()>>);

impl Detaching {
    fn finish(self) {
        if let Some(h) = self.0 {
            let _ = h.join();
        }
    }
}

/// From this many perf-event probes on, detaching is slow enough to announce.
const SLOW_DETACH_NOTE: usize = 100;

/// Print events as they come until exit(), a signal, the end of the `-c` command or of the `-p`
/// process, or lost events (without `-k`) stop tracing. The exit status so far, and the lost
/// events reported.
fn deliver_events(
    cli: &Cli,
    ring: &mut RingBuf,
    output: &mut Output,
    live: &mut LiveMisses,
    mut child: Option<&mut HeldChild>,
    target: Option<&PidWatch>,
) -> Result<(i32, u64), Failure> {
    let mut lost_seen = 0;
    loop {
        ring.poll(POLL_MS).map_err(Failure::kernel)?;
        if let Action::Exit(code) = drain(ring, output)? {
            return Ok((code, lost_seen));
        }
        if signals::stop_requested().is_some() {
            return Ok((0, lost_seen));
        }
        let command_ended = child.as_deref_mut().is_some_and(HeldChild::poll_exit);
        let target_ended = target.is_some_and(PidWatch::exited);
        if command_ended || target_ended {
            debug(
                cli,
                if command_ended { "the -c command exited" } else { "the -p process exited" },
            );
            if let Some(code @ 1..) = child.as_deref().and_then(|c| c.exited) {
                eprintln!("sonde: the -c command exited with status {}", code);
            }
            // No waiting for stragglers: a program runs inside the syscall or event that fires
            // it, so the process's last events were committed before it could exit.
            drain(ring, output)?;
            return Ok((0, lost_seen));
        }
        if cli.debug && live.last.elapsed() >= MISSES_EVERY {
            live.misses.write(live.programs, output);
            live.last = Instant::now();
        }
        let lost = output.lost_events()?;
        if lost > lost_seen {
            output.warn_lost(lost - lost_seen);
            lost_seen = lost;
            if !cli.keep_going {
                eprintln!("sonde: stopping because events were lost (use -k to keep going)");
                return Ok((1, lost_seen));
            }
        }
    }
}

/// With `-d`, skipped runs are reported as they happen, this often, besides at the end.
const MISSES_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// The skipped-run counts `-d` reports while events flow.
struct LiveMisses<'a> {
    misses: &'a mut Misses,
    programs: &'a [Program],
    last: Instant,
}

/// The programs that run once, by hand, for BEGIN or END.
fn special_programs<'a>(
    c: &Compiled,
    programs: &'a [Program],
    point: &AttachPoint,
) -> Vec<&'a Program> {
    c.programs
        .iter()
        .zip(programs)
        .filter(|(d, _)| d.sites.iter().any(|s| &s.point == point))
        .map(|(_, p)| p)
        .collect()
}

fn drain(ring: &mut RingBuf, output: &mut Output) -> Result<Action, Failure> {
    let mut action = Action::Continue;
    ring.drain(|rec| {
        if matches!(action, Action::Continue) {
            action = output.record(rec);
        }
    })
    .map_err(Failure::kernel)?;
    output.flush();
    Ok(action)
}

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
    Ok(SourceFile { name: "<program>".into(), text: arg.to_string() })
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
