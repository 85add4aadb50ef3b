//! Attaching to perf events: the CPU clock (`interval:`, `profile:`), software events
//! (`software:`) and hardware events.

use crate::attach::link::Link;
use crate::attach::perf_attach::{attach_perf_fd, PerfAttach};
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, PerfEventAttr};

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
        PerfEventSpec { kind: PerfKind::CpuClock, sampling: Sampling::Period(period_ns), cpu }
    }

    /// A CPU-clock event on `cpu` firing `hz` times a second (`profile:hz:N`). The kernel turns a
    /// CPU-clock frequency into the fixed period 1e9/hz ns.
    pub fn cpu_clock_freq(hz: u64, cpu: u32) -> PerfEventSpec {
        PerfEventSpec { kind: PerfKind::CpuClock, sampling: Sampling::Freq(hz), cpu }
    }

    /// Software event `ev` on `cpu`: every `Period(n)` occurrences (ns for the clocks) or
    /// `Freq(hz)` times a second (`software:page-faults:1`).
    pub fn software(ev: SoftwareEvent, sampling: Sampling, cpu: u32) -> PerfEventSpec {
        let kind = match ev {
            SoftwareEvent::CpuClock => PerfKind::CpuClock,
            SoftwareEvent::TaskClock => PerfKind::TaskClock,
            other => PerfKind::Software(other.config()),
        };
        PerfEventSpec { kind, sampling, cpu }
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
    let mut attr =
        PerfEventAttr { type_, config, sample_period_or_freq: period, flags, ..Default::default() };
    let event = sys::perf_event_open(&mut attr, -1, ev.cpu as i32)
        .map_err(KernelError::sys("perf_event_open"))?;
    attach_perf_fd(prog, event, PerfAttach::Auto)
}

/// `spec` on every online CPU (its `cpu` is ignored): what `profile:` and `software:` need, since a
/// perf event for all tasks samples one CPU. On error, the links made so far are dropped.
pub fn attach_on_every_cpu(prog: &Program, spec: PerfEventSpec) -> Result<Vec<Link>> {
    crate::host::cpus::online_cpus()?
        .into_iter()
        .map(|cpu| attach_perf_event(prog, spec.on_cpu(cpu)))
        .collect()
}
