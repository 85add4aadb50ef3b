//! Steps 3, 5 and 6 for the faces that run BPF programs: load, attach, run BEGIN and END,
//! silence every probe at once, detach in the background.

use super::attach::{attach_program, Traced};
use super::{Events, Reason, Target};
use crate::error::Failure;
use crate::host_env::HostEnv;
use sonde_compile::provider::AttachPoint;
use sonde_compile::Compiled;
use sonde_kernel::attach::link::Link;
use sonde_kernel::object::map::Map;
use sonde_kernel::object::prog::Program;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_output::sink::Health;
use sonde_syntax::diag::SourceFile;
use std::time::{Duration, Instant};

/// The compiled program's maps and programs, in the kernel.
pub struct Loaded {
    pub maps: Vec<Map>,
    pub programs: Vec<Program>,
}

impl Loaded {
    /// Checks the descriptors it needs fit the open-file limit, then creates the maps and
    /// loads the programs (a refusal names the probe and its source line).
    pub fn load(compiled: &Compiled, source: &SourceFile) -> Result<Loaded, Failure> {
        super::limits::check(compiled)?;
        let maps = super::load::create_maps(compiled)?;
        let programs = super::load::load_programs(compiled, &maps, source)?;
        Ok(Loaded { maps, programs })
    }

    /// The ring buffer the programs' records arrive in.
    pub fn ring(&self) -> Result<RingBuf, Failure> {
        RingBuf::new(&self.maps[sonde_compile::abi::EVENTS_MAP]).map_err(Failure::kernel)
    }

    /// Attaches every program but BEGIN's and END's, where `traced` says. A stop signal
    /// before the last is attached detaches them all again: the run never began.
    pub fn attach(
        &self,
        compiled: &Compiled,
        env: &HostEnv,
        traced: Traced,
    ) -> Result<Attached, Failure> {
        let mut links = Vec::new();
        let mut iterators = Vec::new();
        let mut probes = 0;
        // The kernel runs the programs of one uprobe newest first: attached last to first,
        // they run in the program's order, as other probes do.
        let (uprobes, others): (Vec<_>, Vec<_>) =
            compiled.programs.iter().zip(&self.programs).partition(|(def, _)| {
                def.sites.iter().any(|s| matches!(s.point, AttachPoint::Uprobe { .. }))
            });
        for (def, prog) in others.into_iter().chain(uprobes.into_iter().rev()) {
            if crate::signals::stopping() {
                return Err(Failure::Interrupted);
            }
            let (l, n) = attach_program(def, prog, env, traced)?;
            if def.sites.iter().any(|s| matches!(s.point, AttachPoint::Iter { .. })) {
                iterators.extend(links.len()..links.len() + l.len());
            }
            links.extend(l);
            probes += n;
        }
        if crate::signals::stopping() {
            return Err(Failure::Interrupted);
        }
        probes += self.special(compiled, &AttachPoint::Begin).len();
        probes += self.special(compiled, &AttachPoint::End).len();
        probes += self.special(compiled, &AttachPoint::Signal { name: "SIGUSR1".into() }).len();
        Ok(Attached { links, iterators, probes, at: Instant::now() })
    }

    /// Runs the BEGIN (or END) programs once, by hand.
    pub fn run_special(&self, compiled: &Compiled, point: &AttachPoint) -> Result<(), Failure> {
        for prog in self.special(compiled, point) {
            prog.test_run(&[]).map_err(Failure::kernel)?;
        }
        Ok(())
    }

    /// The programs run by hand at `point`, in the program's order.
    pub fn special(&self, c: &Compiled, point: &AttachPoint) -> Vec<&Program> {
        c.programs
            .iter()
            .zip(&self.programs)
            .filter(|(d, _)| d.sites.iter().any(|s| &s.point == point))
            .map(|(_, p)| p)
            .collect()
    }

    /// Steps 4 and 5 once attached (and the target's wake fds added to the events' wait): the
    /// command released, events read until the run stops (after `duration_ns` at the latest),
    /// then every program silenced at once and what the kernel still holds drained.
    pub fn read_until_stopped(
        &self,
        events: &mut dyn Events,
        target: &mut Target,
        health: &Health,
        duration_ns: Option<u64>,
    ) -> Result<Reason, Failure> {
        target.release();
        let deadline = duration_ns.map(|d| Instant::now() + Duration::from_nanos(d));
        let reason = super::poll::until_stopped(events, target, health, deadline)?;
        self.silence(self.control()?)?;
        events.drain()?;
        Ok(reason)
    }

    /// The control map's value (see `CONTROL_MAP`), read just before [`Loaded::silence`].
    pub fn control(&self) -> Result<Vec<u8>, Failure> {
        let control = &self.maps[sonde_compile::abi::CONTROL_MAP];
        let mut value = control.lookup(&0u32.to_le_bytes()).map_err(Failure::kernel)?;
        let mut value = value.take().unwrap_or_default();
        value.resize(control.value_size(), 0);
        Ok(value)
    }

    /// Silences every program at once (the stop flag every program tests first), so what the
    /// kernel holds can be drained whole and END has the last word while the probes detach.
    pub fn silence(&self, mut control: Vec<u8>) -> Result<(), Failure> {
        control[..8].copy_from_slice(&1u64.to_le_bytes());
        let map = &self.maps[sonde_compile::abi::CONTROL_MAP];
        map.update(&0u32.to_le_bytes(), &control, 0).map_err(Failure::kernel)
    }
}

/// Once the output failed, the ring's records are only consumed (nothing more can be written,
/// and its one sentence is all there is to say): true then.
pub fn consumed_after_failure(ring: &mut RingBuf, health: &Health) -> Result<bool, Failure> {
    if health.failure().is_none() {
        return Ok(false);
    }
    ring.drain(|_| {}).map_err(Failure::kernel)?;
    Ok(true)
}

/// The programs' links, and how many probes they stand for.
pub struct Attached {
    links: Vec<Link>,
    /// Which of `links` are iterators (`iter:`), read by [`Attached::iterate`].
    iterators: Vec<usize>,
    pub probes: usize,
    /// When the last probe was attached.
    pub at: Instant,
}

impl Attached {
    /// Whether the program is an iterator's, whose run is one pass of [`Attached::iterate`].
    pub fn has_iterators(&self) -> bool {
        !self.iterators.is_empty()
    }

    /// Runs each iterator once to its end, handing `each` what its program printed, a chunk at
    /// a time; a stop signal ends the pass early.
    pub fn iterate(&self, mut each: impl FnMut(&[u8])) -> Result<(), Failure> {
        for &i in &self.iterators {
            sonde_kernel::attach::iter::iterate(&self.links[i], |chunk| {
                each(chunk);
                !crate::signals::stopping()
            })
            .map_err(Failure::kernel)?;
        }
        Ok(())
    }

    /// No probe attached: `--mode bench` runs its programs by hand.
    pub fn nothing() -> Attached {
        Attached { links: Vec::new(), iterators: Vec::new(), probes: 0, at: Instant::now() }
    }

    /// Removes every probe: a few BPF links at once, others on a thread of its own (while the
    /// last output is written); [`Detaching::finish`] waits for it, so
    /// sonde never exits before the kernel is as it found it. Where each kprobe is its own perf
    /// event, the kernel waits for RCU grace periods on each one: that is said when it will take
    /// a while, so a silent pause does not look like a hang.
    pub fn detach(self, debug: bool) -> Detaching {
        // BEGIN/END alone: no thread to start (~0.1 ms of a 3 ms run).
        if self.links.is_empty() {
            return Detaching(None);
        }
        let one_by_one = self.links.iter().filter(|l| !l.is_bpf_link()).count();
        if one_by_one >= SLOW_DETACH_NOTE {
            eprintln!(
                "sonde: detaching {one_by_one} probes (this kernel removes them one by one; it can take a while)"
            );
        }
        let quick =
            self.links.len() <= QUICK_DETACH_MAX && self.links.iter().all(Link::is_bpf_link);
        let (links, probes) = (self.links, self.probes);
        let work = move || {
            let t = Instant::now();
            sonde_kernel::attach::link::detach_all(links);
            if debug {
                eprintln!("sonde: detached {probes} probe(s) in {:?}", t.elapsed());
            }
        };
        // A few BPF links close in well under a millisecond: less than starting a thread and
        // waiting for it on a busy machine.
        if quick {
            work();
            return Detaching(None);
        }
        // If no thread can be had, the closure is dropped unrun, and with it the links: they
        // detach right here, one by one.
        Detaching(std::thread::Builder::new().name("detach".into()).spawn(work).ok())
    }
}

/// Up to this many BPF links (raw tracepoints, fentry) are closed right away (~0.1 ms each).
const QUICK_DETACH_MAX: usize = 8;

/// From this many perf-event probes on, detaching is slow enough to announce.
const SLOW_DETACH_NOTE: usize = 100;

/// The detach thread, joined before sonde returns.
pub struct Detaching(Option<std::thread::JoinHandle<()>>);

impl Detaching {
    pub fn finish(self) {
        if let Some(h) = self.0 {
            let _ = h.join();
        }
    }
}
