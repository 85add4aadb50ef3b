//! One tracing session: compile, load, attach, run BEGIN, deliver events until asked to stop, run
//! END, print the maps, detach. Everything the kernel holds is owned here and released on drop.

use crate::child::HeldChild;
use crate::cli::Cli;
use crate::error::Failure;
use crate::host_env::HostEnv;
use crate::output::{Action, Output};
use crate::signals;
use sonde_compile::provider::AttachPoint;
use sonde_compile::{Compiled, Options};
use sonde_kernel::link::Link;
use sonde_kernel::prog::Program;
use sonde_kernel::ringbuf::RingBuf;
use sonde_symbols::Symbolizer;
use sonde_syntax::diag::SourceFile;
use std::time::{Duration, Instant};

/// How often the reader wakes to drain the ring buffer. Records are written without waking it
/// (waking costs tens of microseconds per event on small VMs), so this bounds output latency.
const POLL_MS: i32 = 20;

pub fn run(cli: &Cli, source: SourceFile) -> Result<i32, Failure> {
    let t0 = Instant::now();
    // From here on a signal asks for a clean stop (END, maps, detach) instead of killing us.
    signals::install();
    let ast = sonde_syntax::parse(&source.text).map_err(|d| Failure::Compile(d, source.clone()))?;
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
        Some(c) => Some(
            HeldChild::spawn(c)
                .map_err(|e| Failure::Setup(format!("cannot start `{}`: {}", c, e)))?,
        ),
        None => None,
    };
    let mut opts = Options::new();
    opts.filter_pid = cli.pid;
    opts.child_pid = child.as_ref().map(HeldChild::pid);
    opts.start_ns = sonde_kernel::clock::monotonic_ns();
    let env = HostEnv::for_pid(cli.pid);
    let typed =
        sonde_compile::check(&ast, &env, &opts).map_err(|d| Failure::Compile(d, source.clone()))?;
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
    let probes_functions = compiled
        .programs
        .iter()
        .flat_map(|p| &p.sites)
        .any(|s| matches!(s.point, AttachPoint::Kprobe { .. } | AttachPoint::Uprobe { .. }));
    if probes_functions {
        // Only the tracefs fallback leaves anything behind when a run is SIGKILLed: remove it.
        if let Ok(n @ 1..) = sonde_kernel::probe_event::cleanup_dead_runs() {
            debug(cli, &format!("removed {} probe event(s) left by dead sonde runs", n));
        }
        if cli.debug {
            crate::list::report_skipped(&ast, &env);
        }
    }

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
            .unbuffered(cli.unbuffer);
    let mut ring =
        RingBuf::new(&maps[sonde_compile::lower::EVENTS_MAP]).map_err(Failure::kernel)?;
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
    debug(cli, &format!("attached after {:?}", t0.elapsed()));

    for prog in begin {
        prog.test_run(&[]).map_err(Failure::kernel)?;
    }
    let begin_action = drain(&mut ring, &mut output)?;
    if let Some(c) = child.as_mut() {
        c.release();
    }
    let (mut status, lost_seen) = match begin_action {
        Action::Exit(code) => (code, 0),
        Action::Continue => {
            let watch = cli.pid.map(sonde_kernel::process::PidWatch::new);
            deliver_events(cli, &mut ring, &mut output, child.as_mut(), watch.as_ref())?
        }
    };
    // Silence every probe at once, so END has the last word and the maps print now, not after
    // the kernel has taken its time to detach them (see CONTROL_MAP).
    maps[sonde_compile::lower::CONTROL_MAP]
        .update(&0u32.to_le_bytes(), &1u64.to_le_bytes(), 0)
        .map_err(Failure::kernel)?;
    drain(&mut ring, &mut output)?;
    for prog in end {
        prog.test_run(&[]).map_err(Failure::kernel)?;
    }
    drain(&mut ring, &mut output)?;
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
    detach(cli, links, probes);
    Ok(status)
}

/// Remove every probe before exiting. Where each kprobe is its own perf event (kernels without
/// kprobe_multi), the kernel waits for RCU grace periods on each one: say so when that will take
/// a while, so a silent pause after the output does not look like a hang.
fn detach(cli: &Cli, links: Vec<Link>, probes: usize) {
    let t = Instant::now();
    let one_by_one = links.iter().filter(|l| !l.is_bpf_link()).count();
    if one_by_one >= SLOW_DETACH_NOTE {
        eprintln!(
            "sonde: detaching {} probes (this kernel removes them one by one; it can take a while)",
            one_by_one
        );
    }
    sonde_kernel::link::detach_all(links);
    debug(cli, &format!("detached {} probe(s) in {:?}", probes, t.elapsed()));
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
    mut child: Option<&mut HeldChild>,
    target: Option<&sonde_kernel::process::PidWatch>,
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
        let target_ended = target.is_some_and(sonde_kernel::process::PidWatch::exited);
        if command_ended || target_ended {
            debug(
                cli,
                if command_ended { "the -c command exited" } else { "the -p process exited" },
            );
            // Its last events may still be in flight: one more short round.
            std::thread::sleep(Duration::from_millis(POLL_MS as u64));
            drain(ring, output)?;
            return Ok((0, lost_seen));
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
    Ok(SourceFile { name: "<program>".into(), text: arg.to_string() })
}
