//! Attaching loaded programs to events. A [`Link`] owns the kernel objects that keep a program
//! attached; dropping it detaches.
//!
//! kprobes and uprobes (`probe.rs`, re-exported here) are perf events too; kprobe_multi and
//! fentry/fexit are BPF links with no perf event under them.
//!
//! Tracepoints and perf events go through a perf event fd. Since 5.15 a BPF link
//! (BPF_LINK_CREATE, attach_type BPF_PERF_EVENT) can hold the program on it; before that only
//! PERF_EVENT_IOC_SET_BPF can. We try the link once and remember if the kernel lacks it.
//!
//! Measured on the 6.18 VM (examples/attach_timing.rs): both ways attach in 0.1-0.3 ms and detach
//! in the same 40 ms (syscall tracepoints) to 75 ms (others): the cost is the kernel destroying the
//! tracepoint's perf event (RCU grace periods), not the attach method. We still prefer the link:
//! closing it stops the program by itself (~27 ms of that total on 6.18), apart from the event's
//! destruction, which is what lets [`detach_all_in_background`] leave the slow part to another
//! process. Raw tracepoint links detach in ~0.1 ms, but their programs see the tracepoint's C
//! arguments rather than its tracefs record; CPU-clock perf events detach in microseconds.

use crate::error::{KernelError, Result};
use crate::probe::TracefsProbe;
use crate::prog::{AttachType, ProgType, Program};
use crate::sys::{
    self, cmd, KprobeMultiLinkAttr, LinkCreateAttr, PerfEventAttr, RawTracepointAttr,
};
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU8, Ordering};

pub use crate::probe::{
    attach_kprobe, attach_kprobe_with, attach_uprobe, attach_uprobe_with, cleanup_dead_runs,
    cleanup_dead_runs_in, KprobeSpec, ProbeVia, UprobeSpec,
};

/// uapi `enum bpf_attach_type` value BPF_PERF_EVENT.
const BPF_PERF_EVENT: u32 = 41;

/// `link_create.kprobe_multi.flags`: run at function return instead of entry.
pub const BPF_F_KPROBE_MULTI_RETURN: u32 = 1;

/// Keeps a program attached. Fields drop in order: the link (if any), then the perf event, then
/// the tracefs probe event the perf event was opened on (which the kernel refuses to remove while
/// the perf event is open).
#[derive(Debug)]
pub struct Link {
    link: Option<OwnedFd>,
    event: Option<OwnedFd>,
    probe: Option<TracefsProbe>,
}

impl Link {
    /// True if the program hangs on a BPF link rather than on a perf event's ioctl.
    pub fn is_bpf_link(&self) -> bool {
        self.link.is_some()
    }

    /// The tracefs event (`sonde/sonde_<pid>_<n>`) this probe was created as, if it went through
    /// tracefs rather than the kprobe/uprobe PMU. Removed when the link drops.
    pub fn tracefs_event(&self) -> Option<&str> {
        self.probe.as_ref().map(TracefsProbe::name)
    }

    pub(crate) fn with_probe(mut self, probe: TracefsProbe) -> Link {
        self.probe = Some(probe);
        self
    }
}

/// Detach many links at once: every BPF link first, so all programs stop together, then the perf
/// events. Both waits are the kernel's RCU grace periods, mostly serialized under its mutexes
/// (measured for tracepoints in `examples/detach_timing.rs`). Closing many kprobe perf events
/// from several threads lets the part outside the mutexes overlap: 425 kprobes on Debian's 6.1
/// under qemu TCG took 40.2 s one by one and 31.5 s from 16 threads.
pub fn detach_all(links: Vec<Link>) {
    let (link_fds, event_fds, probes) = into_fds(links);
    close_all(link_fds);
    close_all(event_fds);
    drop(probes);
}

/// From this many fds on, `close_all` closes them from `CLOSE_THREADS` threads.
const PARALLEL_CLOSE_FROM: usize = 64;
const CLOSE_THREADS: usize = 16;

fn close_all(fds: Vec<OwnedFd>) {
    if fds.len() < PARALLEL_CLOSE_FROM {
        return drop(fds);
    }
    let mut shares: Vec<Vec<OwnedFd>> = (0..CLOSE_THREADS).map(|_| Vec::new()).collect();
    for (i, fd) in fds.into_iter().enumerate() {
        shares[i % CLOSE_THREADS].push(fd);
    }
    std::thread::scope(|s| {
        for share in shares {
            // No thread to be had: the share is closed right here (dropped with the error).
            let _ = std::thread::Builder::new().spawn_scoped(s, move || drop(share));
        }
    });
}

/// Hand every link to a detached grandchild process that closes them (links first, then perf
/// events), so a caller about to exit does not wait 40-75 ms per tracepoint. Returns in about a
/// millisecond; the programs keep running until the grandchild reaches them (tens of ms later), so
/// call this last, or only on programs that already ignore events (e.g. gated on a stop flag). The
/// grandchild keeps nothing else open (not even stdout), so pipelines end when we do.
///
/// Probes that went through tracefs are the exception: their tracefs events can only be removed
/// once their perf events are closed, so those links are detached here, before returning.
pub fn detach_all_in_background(links: Vec<Link>) {
    let (with_probe, links): (Vec<Link>, Vec<Link>) =
        links.into_iter().partition(|l| l.probe.is_some());
    detach_all(with_probe);
    let (mut fds, mut events, _) = into_fds(links);
    fds.append(&mut events);
    if fds.is_empty() {
        return;
    }
    // If no process could be started, close them here: slower, never wrong.
    if let Err(fds) = crate::sys::close_in_background(fds) {
        drop(fds);
    }
}

/// The BPF link fds and the perf event fds (to close in that order: links before the events under
/// them), and the tracefs probe events, to remove after the fds are closed.
fn into_fds(links: Vec<Link>) -> (Vec<OwnedFd>, Vec<OwnedFd>, Vec<TracefsProbe>) {
    let mut events = Vec::new();
    let mut probes = Vec::new();
    let fds: Vec<OwnedFd> = links
        .into_iter()
        .filter_map(|mut l| {
            events.extend(l.event.take());
            probes.extend(l.probe.take());
            l.link.take()
        })
        .collect();
    (fds, events, probes)
}

/// How a program is put on a perf event fd. `Auto` is what the attach functions use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfAttach {
    /// BPF_LINK_CREATE when the kernel has it (5.15+), else the ioctl.
    Auto,
    Link,
    Ioctl,
}

/// Whether BPF_LINK_CREATE takes perf events here: 0 unknown, 1 yes, 2 no.
static PERF_LINK: AtomicU8 = AtomicU8::new(0);

/// Attach a TRACEPOINT program to the tracepoint with tracefs id `tracepoint_id`.
///
/// One perf event, opened with pid -1 on CPU 0, is enough for every CPU: the kernel keeps the
/// program on the tracepoint itself (`trace_event_call`), not on the per-CPU event list, so it runs
/// wherever the tracepoint fires (checked by the `tracepoint_fires_on_every_cpu` test).
pub fn attach_tracepoint(prog: &Program, tracepoint_id: u64) -> Result<Link> {
    attach_tracepoint_with(prog, tracepoint_id, PerfAttach::Auto)
}

pub fn attach_tracepoint_with(prog: &Program, tracepoint_id: u64, how: PerfAttach) -> Result<Link> {
    let mut attr = PerfEventAttr {
        type_: sys::PERF_TYPE_TRACEPOINT,
        config: tracepoint_id,
        ..Default::default()
    };
    let event = sys::perf_event_open(&mut attr, -1, 0)
        .map_err(KernelError::sys("perf_event_open(PERF_TYPE_TRACEPOINT)"))?;
    attach_perf_fd(prog, event, how)
}

/// The kernel's software events (`PERF_COUNT_SW_*`), by the names perf and bpftrace use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftwareEvent {
    CpuClock,
    TaskClock,
    PageFaults,
    ContextSwitches,
    CpuMigrations,
    MinorFaults,
    MajorFaults,
    AlignmentFaults,
    EmulationFaults,
    Dummy,
}

impl SoftwareEvent {
    pub const ALL: [SoftwareEvent; 10] = [
        SoftwareEvent::CpuClock,
        SoftwareEvent::TaskClock,
        SoftwareEvent::PageFaults,
        SoftwareEvent::ContextSwitches,
        SoftwareEvent::CpuMigrations,
        SoftwareEvent::MinorFaults,
        SoftwareEvent::MajorFaults,
        SoftwareEvent::AlignmentFaults,
        SoftwareEvent::EmulationFaults,
        SoftwareEvent::Dummy,
    ];

    /// The `PERF_COUNT_SW_*` number (perf_event_attr.config).
    pub fn config(self) -> u64 {
        self as u64
    }

    /// The canonical name: `cpu-clock`, `page-faults`, `context-switches`, ...
    pub fn name(self) -> &'static str {
        match self {
            SoftwareEvent::CpuClock => "cpu-clock",
            SoftwareEvent::TaskClock => "task-clock",
            SoftwareEvent::PageFaults => "page-faults",
            SoftwareEvent::ContextSwitches => "context-switches",
            SoftwareEvent::CpuMigrations => "cpu-migrations",
            SoftwareEvent::MinorFaults => "minor-faults",
            SoftwareEvent::MajorFaults => "major-faults",
            SoftwareEvent::AlignmentFaults => "alignment-faults",
            SoftwareEvent::EmulationFaults => "emulation-faults",
            SoftwareEvent::Dummy => "dummy",
        }
    }

    /// By name, including perf's and bpftrace's aliases (`cs`, `faults`, `migrations`, `cpu`).
    pub fn from_name(name: &str) -> Option<SoftwareEvent> {
        let alias = match name {
            "cpu" => SoftwareEvent::CpuClock,
            "faults" => SoftwareEvent::PageFaults,
            "cs" => SoftwareEvent::ContextSwitches,
            "migrations" => SoftwareEvent::CpuMigrations,
            _ => return SoftwareEvent::ALL.into_iter().find(|e| e.name() == name),
        };
        Some(alias)
    }

    /// Whether the period counts nanoseconds (the clocks) rather than occurrences.
    pub fn is_clock(self) -> bool {
        matches!(self, SoftwareEvent::CpuClock | SoftwareEvent::TaskClock)
    }
}

/// What a perf event counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerfKind {
    /// The CPU clock software event (period in ns): `interval:` and `profile:`.
    #[doc(alias = "PERF_COUNT_SW_CPU_CLOCK")]
    CpuClock,
    /// The task clock software event: time the traced task runs.
    #[doc(alias = "PERF_COUNT_SW_TASK_CLOCK")]
    TaskClock,
    /// Any software event by its `PERF_COUNT_SW_*` number.
    Software(u64),
    /// Any hardware event by its `PERF_COUNT_HW_*` number (often missing in VMs: ENOENT).
    Hardware(u64),
}

/// When the event samples (and so runs the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Every N units: nanoseconds for the clock events, occurrences for the others.
    Period(u64),
    /// N times per second; the kernel adjusts the period.
    Freq(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerfEventSpec {
    pub kind: PerfKind,
    pub sampling: Sampling,
    pub cpu: u32,
}

impl PerfEventSpec {
    /// A CPU-clock event on `cpu` firing every `period_ns` nanoseconds.
    pub fn cpu_clock(period_ns: u64, cpu: u32) -> PerfEventSpec {
        PerfEventSpec {
            kind: PerfKind::CpuClock,
            sampling: Sampling::Period(period_ns),
            cpu,
        }
    }

    /// A CPU-clock event on `cpu` firing `hz` times a second (`profile:hz:N`). The kernel turns a
    /// CPU-clock frequency into the fixed period 1e9/hz ns.
    pub fn cpu_clock_freq(hz: u64, cpu: u32) -> PerfEventSpec {
        PerfEventSpec {
            kind: PerfKind::CpuClock,
            sampling: Sampling::Freq(hz),
            cpu,
        }
    }

    /// Software event `ev` on `cpu`: every `Period(n)` occurrences (ns for the clocks) or
    /// `Freq(hz)` times a second (`software:page-faults:1`).
    pub fn software(ev: SoftwareEvent, sampling: Sampling, cpu: u32) -> PerfEventSpec {
        let kind = match ev {
            SoftwareEvent::CpuClock => PerfKind::CpuClock,
            SoftwareEvent::TaskClock => PerfKind::TaskClock,
            other => PerfKind::Software(other.config()),
        };
        PerfEventSpec {
            kind,
            sampling,
            cpu,
        }
    }

    /// [`PerfEventSpec::software`] by name (`page-faults`, `cs`, ...); None for an unknown name.
    pub fn software_by_name(name: &str, sampling: Sampling, cpu: u32) -> Option<PerfEventSpec> {
        SoftwareEvent::from_name(name).map(|ev| PerfEventSpec::software(ev, sampling, cpu))
    }

    /// The same event on another CPU.
    pub fn on_cpu(self, cpu: u32) -> PerfEventSpec {
        PerfEventSpec { cpu, ..self }
    }
}

/// Attach a PERF_EVENT program to one perf event on one CPU (all tasks).
pub fn attach_perf_event(prog: &Program, ev: PerfEventSpec) -> Result<Link> {
    let (type_, config) = match ev.kind {
        PerfKind::CpuClock => (sys::PERF_TYPE_SOFTWARE, 0),
        PerfKind::TaskClock => (sys::PERF_TYPE_SOFTWARE, 1),
        PerfKind::Software(c) => (sys::PERF_TYPE_SOFTWARE, c),
        PerfKind::Hardware(c) => (0, c),
    };
    let (period, flags) = match ev.sampling {
        Sampling::Period(p) => (p.max(1), 0),
        Sampling::Freq(f) => (f.max(1), sys::PERF_FLAG_FREQ),
    };
    let mut attr = PerfEventAttr {
        type_,
        config,
        sample_period_or_freq: period,
        flags,
        ..Default::default()
    };
    let event = sys::perf_event_open(&mut attr, -1, ev.cpu as i32)
        .map_err(KernelError::sys("perf_event_open"))?;
    attach_perf_fd(prog, event, PerfAttach::Auto)
}

/// `spec` on every online CPU (its `cpu` is ignored): what `profile:` and `software:` need, since a
/// perf event for all tasks samples one CPU. On error, the links made so far are dropped.
pub fn attach_on_every_cpu(prog: &Program, spec: PerfEventSpec) -> Result<Vec<Link>> {
    crate::cpus::online_cpus()?
        .into_iter()
        .map(|cpu| attach_perf_event(prog, spec.on_cpu(cpu)))
        .collect()
}

/// Put `prog` on an open perf event and enable it. Shared by tracepoints, perf events, kprobes and
/// uprobes; the returned link owns the event.
pub fn attach_perf_fd(prog: &Program, event: OwnedFd, how: PerfAttach) -> Result<Link> {
    let try_link = match how {
        PerfAttach::Auto => PERF_LINK.load(Ordering::Relaxed) != 2,
        PerfAttach::Link => true,
        PerfAttach::Ioctl => false,
    };
    let mut link = None;
    if try_link {
        let mut attr = LinkCreateAttr {
            prog_fd: prog.fd() as u32,
            target_fd: event.as_raw_fd() as u32,
            attach_type: BPF_PERF_EVENT,
            ..Default::default()
        };
        match sys::bpf_fd(cmd::LINK_CREATE, &mut attr) {
            Ok(fd) => {
                PERF_LINK.store(1, Ordering::Relaxed);
                link = Some(fd);
            }
            // Before 5.15 the kernel does not know this attach type.
            Err(libc::EINVAL)
                if how == PerfAttach::Auto && PERF_LINK.load(Ordering::Relaxed) == 0 =>
            {
                PERF_LINK.store(2, Ordering::Relaxed)
            }
            Err(libc::EINVAL) if crate::version::running().is_some_and(|v| v < (5, 15)) => {
                return Err(KernelError::NeedsKernel {
                    what: "a BPF link on a perf event (PerfAttach::Auto uses the ioctl instead)",
                    version: "5.15",
                })
            }
            Err(e) => {
                return Err(KernelError::Syscall {
                    op: "bpf(BPF_LINK_CREATE)",
                    errno: e,
                })
            }
        }
    }
    if link.is_none() {
        sys::ioctl(&event, sys::PERF_EVENT_IOC_SET_BPF, prog.fd() as u64)
            .map_err(KernelError::sys("ioctl(PERF_EVENT_IOC_SET_BPF)"))?;
    }
    sys::ioctl(&event, sys::PERF_EVENT_IOC_ENABLE, 0)
        .map_err(KernelError::sys("ioctl(PERF_EVENT_IOC_ENABLE)"))?;
    Ok(Link {
        link,
        event: Some(event),
        probe: None,
    })
}

/// Attach a RAW_TRACEPOINT program to the kernel tracepoint `name` (e.g. `sched_switch`,
/// `sys_enter`). The program sees the tracepoint's raw arguments, not the tracefs record.
pub fn attach_raw_tracepoint(prog: &Program, name: &str) -> Result<Link> {
    let name = CString::new(name).map_err(|_| KernelError::Syscall {
        op: "bpf(BPF_RAW_TRACEPOINT_OPEN)",
        errno: libc::EINVAL,
    })?;
    let mut attr = RawTracepointAttr {
        name: sys::addr_cstr(&name),
        prog_fd: prog.fd() as u32,
        _pad: 0,
    };
    let fd = sys::bpf_fd(cmd::RAW_TRACEPOINT_OPEN, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_RAW_TRACEPOINT_OPEN)"))?;
    Ok(Link {
        link: Some(fd),
        event: None,
        probe: None,
    })
}

/// Attach a TRACING program (fentry/fexit, loaded with [`crate::prog::ProgSpec::fentry`] or
/// [`crate::prog::ProgSpec::fexit`]) to the function it was loaded for, through a BPF trampoline.
/// Uses BPF_RAW_TRACEPOINT_OPEN with no name, which every kernel with trampolines (5.5+) takes.
#[doc(alias = "fentry")]
#[doc(alias = "fexit")]
pub fn attach_tracing(prog: &Program) -> Result<Link> {
    if prog.prog_type() != ProgType::Tracing
        || !matches!(
            prog.expected_attach_type(),
            Some(AttachType::TraceFentry | AttachType::TraceFexit)
        )
    {
        return Err(KernelError::WrongAttachType {
            prog: prog.name().to_string(),
            needed: "fentry or fexit (BPF_PROG_TYPE_TRACING with BPF_TRACE_FENTRY/FEXIT)",
        });
    }
    let mut attr = RawTracepointAttr {
        name: 0,
        prog_fd: prog.fd() as u32,
        _pad: 0,
    };
    let fd = sys::bpf_fd(cmd::RAW_TRACEPOINT_OPEN, &mut attr).map_err(|e| match e {
        libc::EOPNOTSUPP | crate::prog::ENOTSUPP => KernelError::NoTrampolines { errno: e },
        _ => KernelError::Syscall {
            op: "bpf(BPF_RAW_TRACEPOINT_OPEN) for fentry/fexit",
            errno: e,
        },
    })?;
    Ok(Link {
        link: Some(fd),
        event: None,
        probe: None,
    })
}

/// Attach one KPROBE program (loaded with [`crate::prog::ProgSpec::kprobe_multi`]) to every
/// function in `symbols` at once, at entry or (`retprobe`) at return: one BPF link, one fprobe,
/// attached in milliseconds however many functions (5.18+, CONFIG_FPROBE; see
/// [`crate::features::has_kprobe_multi`]). Duplicate names are dropped. Nothing is left behind if
/// sonde dies: the kernel removes the probes when the link's fd closes.
pub fn attach_kprobe_multi(prog: &Program, symbols: &[&str], retprobe: bool) -> Result<Link> {
    if prog.expected_attach_type() != Some(AttachType::TraceKprobeMulti) {
        return Err(KernelError::WrongAttachType {
            prog: prog.name().to_string(),
            needed: "kprobe_multi (expected_attach_type BPF_TRACE_KPROBE_MULTI)",
        });
    }
    let mut syms: Vec<&str> = symbols.to_vec();
    syms.sort_unstable();
    syms.dedup();
    if syms.is_empty() {
        return Err(KernelError::NothingToAttach {
            what: "a kprobe_multi link",
        });
    }
    if let Some(bad) = syms.iter().find(|s| s.is_empty() || s.contains('\0')) {
        return Err(KernelError::NotProbeable {
            symbol: bad.to_string(),
            errno: libc::EINVAL,
        });
    }
    match kprobe_multi_link(prog, &syms, retprobe) {
        Ok(fd) => Ok(Link {
            link: Some(fd),
            event: None,
            probe: None,
        }),
        Err(e @ (libc::ESRCH | libc::ENOENT)) if syms.len() == 1 => {
            Err(KernelError::NotProbeable {
                symbol: syms[0].to_string(),
                errno: e,
            })
        }
        Err(e @ (libc::ESRCH | libc::ENOENT)) => Err(KernelError::MultiNotProbeable {
            count: syms.len(),
            errno: e,
        }),
        Err(libc::EOPNOTSUPP | crate::prog::ENOTSUPP) if !crate::features::has_kprobes() => {
            Err(KernelError::NoKprobes)
        }
        Err(libc::EOPNOTSUPP | crate::prog::ENOTSUPP) => Err(KernelError::NoKprobeMulti),
        // Before 5.18 the attach type is unknown: EINVAL.
        Err(libc::EINVAL) if !crate::features::has_kprobe_multi() => {
            Err(KernelError::NoKprobeMulti)
        }
        Err(e) => Err(KernelError::Syscall {
            op: "bpf(BPF_LINK_CREATE) for kprobe_multi",
            errno: e,
        }),
    }
}

/// BPF_LINK_CREATE with BPF_TRACE_KPROBE_MULTI on `syms` (no checks: see attach_kprobe_multi).
pub(crate) fn kprobe_multi_link(
    prog: &Program,
    syms: &[&str],
    retprobe: bool,
) -> std::result::Result<OwnedFd, sys::Errno> {
    let names: Vec<CString> = syms
        .iter()
        .map(|s| CString::new(*s).map_err(|_| libc::EINVAL))
        .collect::<std::result::Result<_, _>>()?;
    // `addrs` must outlive the call: the kernel copies the pointers, then the strings.
    let addrs = sys::cstr_addrs(&names);
    let mut attr = KprobeMultiLinkAttr {
        prog_fd: prog.fd() as u32,
        attach_type: AttachType::TraceKprobeMulti.id(),
        kprobe_flags: if retprobe {
            BPF_F_KPROBE_MULTI_RETURN
        } else {
            0
        },
        cnt: addrs.len() as u32,
        syms: sys::addr_u64s(&addrs),
        ..Default::default()
    };
    sys::bpf_fd(cmd::LINK_CREATE, &mut attr)
}
