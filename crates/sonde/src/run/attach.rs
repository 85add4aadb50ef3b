//! Attach every loaded program to its sites. BEGIN and END are not attached: the session runs them.

use crate::error::Failure;
use crate::host_env::HostEnv;
use sonde_compile::provider::AttachPoint;
use sonde_compile::ProgramDef;
use sonde_kernel::attach::breakpoint::{attach_breakpoint, Access, Breakpoint};
use sonde_kernel::attach::fentry::attach_tracing;
use sonde_kernel::attach::iter::attach_iter;
use sonde_kernel::attach::kprobe::{attach_kprobe, KprobeSpec};
use sonde_kernel::attach::kprobe_multi::attach_kprobe_multi;
use sonde_kernel::attach::link::Link;
use sonde_kernel::attach::perf_event::{
    attach_on_every_cpu, attach_perf_event, PerfEventSpec, PerfKind, Sampling,
};
use sonde_kernel::attach::tracepoint::attach_tracepoint;
use sonde_kernel::attach::uprobe::{attach_uprobe, UprobeSpec};
use sonde_kernel::host::cpus::{format_list, online_cpus};
use sonde_kernel::object::prog::Program;

/// The processes a run traces: `-p`'s, or the `-c` command's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Traced {
    /// `-p PID`: uprobes are restricted to it.
    pub pid: Option<u32>,
    /// The `-c` command, held before its exec.
    pub command: Option<u32>,
}

impl Traced {
    /// The process whose threads per-task events (watchpoints) go on.
    pub fn task(&self) -> Option<u32> {
        self.pid.or(self.command)
    }
}

/// Attach `prog` (compiled as `def`) everywhere it goes; returns the links and how many probes
/// they stand for.
pub fn attach_program(
    def: &ProgramDef,
    prog: &Program,
    env: &HostEnv,
    traced: Traced,
) -> Result<(Vec<Link>, usize), Failure> {
    if sonde_load::uses_kprobe_multi(def) {
        let symbols: Vec<&str> = def
            .sites
            .iter()
            .filter_map(|s| match &s.point {
                AttachPoint::Kprobe { symbol, .. } => Some(symbol.as_str()),
                _ => None,
            })
            .collect();
        let ret = matches!(def.sites[0].point, AttachPoint::Kprobe { retprobe: true, .. });
        let link = attach_kprobe_multi(prog, &symbols, ret).map_err(|e| {
            Failure::Attach(
                format!("{} kernel functions ({}...)", symbols.len(), def.name),
                e.to_string(),
            )
        })?;
        return Ok((vec![link], symbols.len()));
    }
    let mut links = Vec::new();
    let mut probes = 0;
    for site in &def.sites {
        let failed = |e: sonde_kernel::error::KernelError| {
            Failure::Attach(site.point.describe(), reason(&site.point, e))
        };
        match &site.point {
            AttachPoint::Begin
            | AttachPoint::End
            | AttachPoint::Signal { .. }
            | AttachPoint::Bench { .. } => continue,
            AttachPoint::Tracepoint { category, name } => {
                let tfs = env.tracefs().map_err(|e| Failure::Setup(e.to_string()))?;
                let id = tfs.tracepoint_id(category, name).map_err(Failure::kernel)?;
                links.push(attach_tracepoint(prog, id).map_err(failed)?);
            }
            AttachPoint::Interval { period_ns } => {
                links.push(
                    attach_perf_event(prog, PerfEventSpec::cpu_clock(*period_ns, 0))
                        .map_err(failed)?,
                );
            }
            AttachPoint::Kprobe { symbol, offset, retprobe } => {
                let spec = KprobeSpec { symbol, offset: *offset, retprobe: *retprobe };
                links.push(attach_kprobe(prog, spec).map_err(failed)?);
            }
            AttachPoint::Uprobe { path, offset, retprobe, .. } => {
                let spec = UprobeSpec {
                    path: std::path::Path::new(path),
                    offset: *offset,
                    retprobe: *retprobe,
                    pid: traced.pid,
                };
                links.push(attach_uprobe(prog, spec).map_err(failed)?);
            }
            AttachPoint::Fentry { .. } | AttachPoint::RawTracepoint { .. } => {
                links.push(attach_tracing(prog).map_err(failed)?)
            }
            AttachPoint::Profile { hz, cpu: None } => {
                links.extend(
                    attach_on_every_cpu(prog, PerfEventSpec::cpu_clock_freq(*hz, 0))
                        .map_err(failed)?,
                );
            }
            AttachPoint::Profile { hz, cpu: Some(cpu) } => {
                let online = online_cpus().map_err(Failure::kernel)?;
                if !online.contains(cpu) {
                    let why =
                        format!("CPU {} is not online (online: {})", cpu, format_list(&online));
                    return Err(Failure::Attach(site.point.describe(), why));
                }
                links.push(
                    attach_perf_event(prog, PerfEventSpec::cpu_clock_freq(*hz, *cpu))
                        .map_err(failed)?,
                );
            }
            AttachPoint::Software { event, period } => {
                let spec = PerfEventSpec::software_by_name(event, Sampling::Period(*period), 0)
                    .ok_or_else(|| Failure::Setup(format!("unknown software event `{}`", event)))?;
                links.extend(attach_on_every_cpu(prog, spec).map_err(failed)?);
            }
            AttachPoint::Hardware { config, period, .. } => {
                let kind = PerfKind::Hardware(*config);
                let spec = PerfEventSpec { kind, sampling: Sampling::Period(*period), cpu: 0 };
                links.extend(attach_on_every_cpu(prog, spec).map_err(failed)?);
            }
            AttachPoint::Iter { .. } => links.push(attach_iter(prog).map_err(failed)?),
            AttachPoint::Watchpoint { addr, len, mode } => {
                let access = Access {
                    read: mode.contains('r'),
                    write: mode.contains('w'),
                    execute: mode.contains('x'),
                };
                let bp = Breakpoint { addr: *addr, len: *len, access };
                links.extend(attach_breakpoint(prog, bp, traced.task()).map_err(failed)?);
            }
        }
        probes += 1;
    }
    Ok((links, probes))
}

fn reason(point: &AttachPoint, e: sonde_kernel::error::KernelError) -> String {
    match point {
        AttachPoint::Tracepoint { category, .. } if category == "ftrace" => {
            "ftrace's own events (ftrace:*) cannot run BPF programs".into()
        }
        AttachPoint::Hardware { .. } if e.errno() == Some(libc::ENOENT) => {
            "this machine's CPUs have no such hardware counter (virtual machines often have none)"
                .into()
        }
        AttachPoint::Watchpoint { .. } if e.errno() == Some(libc::EINVAL) => {
            "the CPU cannot watch that address with that length and mode (the address must be a \
             multiple of the length)"
                .into()
        }
        _ => e.to_string(),
    }
}
