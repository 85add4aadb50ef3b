//! Attaching loaded programs to events. A [`Link`] owns the kernel objects that keep a program
//! attached; dropping it detaches.
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
use crate::prog::Program;
use crate::sys::{self, cmd, LinkCreateAttr, PerfEventAttr, RawTracepointAttr};
use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU8, Ordering};

/// uapi `enum bpf_attach_type` value BPF_PERF_EVENT.
const BPF_PERF_EVENT: u32 = 41;

/// Keeps a program attached. Fields drop in order: the link (if any) before the perf event.
#[derive(Debug)]
pub struct Link {
    link: Option<OwnedFd>,
    event: Option<OwnedFd>,
}

impl Link {
    /// True if the program hangs on a BPF link rather than on a perf event's ioctl.
    pub fn is_bpf_link(&self) -> bool {
        self.link.is_some()
    }
}

/// Detach many links at once: every BPF link first, so all programs stop together, then the perf
/// events. Both waits are the kernel's RCU grace periods, serialized under its mutexes, so threads
/// would not help (measured; see `examples/detach_timing.rs`).
pub fn detach_all(links: Vec<Link>) {
    drop(into_fds(links));
}

/// Hand every link to a detached grandchild process that closes them (links first, then perf
/// events), so a caller about to exit does not wait 40-75 ms per tracepoint. Returns in about a
/// millisecond; the programs keep running until the grandchild reaches them (tens of ms later), so
/// call this last, or only on programs that already ignore events (e.g. gated on a stop flag). The
/// grandchild keeps nothing else open (not even stdout), so pipelines end when we do.
pub fn detach_all_in_background(links: Vec<Link>) {
    let fds = into_fds(links);
    if fds.is_empty() {
        return;
    }
    // If no process could be started, close them here: slower, never wrong.
    if let Err(fds) = crate::sys::close_in_background(fds) {
        drop(fds);
    }
}

/// The fds in the order they should be closed: links before the events under them.
fn into_fds(links: Vec<Link>) -> Vec<OwnedFd> {
    let mut events = Vec::new();
    let mut fds: Vec<OwnedFd> = links
        .into_iter()
        .filter_map(|mut l| {
            events.extend(l.event.take());
            l.link.take()
        })
        .collect();
    fds.append(&mut events);
    fds
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

    /// A CPU-clock event on `cpu` firing `hz` times a second.
    pub fn cpu_clock_freq(hz: u64, cpu: u32) -> PerfEventSpec {
        PerfEventSpec {
            kind: PerfKind::CpuClock,
            sampling: Sampling::Freq(hz),
            cpu,
        }
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

/// Put `prog` on an open perf event and enable it. Shared by tracepoints, perf events and, later,
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
    })
}
