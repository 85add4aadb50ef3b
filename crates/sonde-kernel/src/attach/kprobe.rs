//! kprobes and kretprobes on one kernel function each, through the kprobe PMU or, without it,
//! tracefs `kprobe_events`. Many functions at once: `kprobe_multi.rs`.

use crate::attach::link::Link;
use crate::attach::perf_attach::attach_probe_fd;
use crate::attach::pmu::{pmu, ProbeVia};
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, PerfEventAttr};
use crate::tracefs::probe_event::{CreateError, Kind, TracefsProbe, GROUP};
use crate::tracefs::Tracefs;
use std::ffi::CString;

/// A kernel function to probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KprobeSpec<'a> {
    /// The function's name, or "" to probe the absolute kernel address in `offset`.
    pub symbol: &'a str,
    /// Bytes into the function (0 for its entry), or the address when `symbol` is "".
    pub offset: u64,
    /// At return (kretprobe) rather than entry. Return probes take no offset.
    pub retprobe: bool,
}

impl<'a> KprobeSpec<'a> {
    /// Entry of `symbol`.
    pub fn entry(symbol: &'a str) -> KprobeSpec<'a> {
        KprobeSpec { symbol, offset: 0, retprobe: false }
    }

    /// Return of `symbol`.
    pub fn ret(symbol: &'a str) -> KprobeSpec<'a> {
        KprobeSpec { retprobe: true, ..KprobeSpec::entry(symbol) }
    }

    /// An absolute kernel address.
    pub fn address(addr: u64) -> KprobeSpec<'static> {
        KprobeSpec { symbol: "", offset: addr, retprobe: false }
    }

    fn display(&self) -> String {
        match (self.symbol, self.offset) {
            ("", a) => format!("{a:#x}"),
            (s, 0) => s.to_string(),
            (s, o) => format!("{s}+{o:#x}"),
        }
    }
}

/// Attach a KPROBE program to a kernel function's entry or return ([`ProbeVia::Auto`]).
pub fn attach_kprobe(prog: &Program, spec: KprobeSpec) -> Result<Link> {
    attach_kprobe_with(prog, spec, ProbeVia::Auto)
}

pub fn attach_kprobe_with(prog: &Program, spec: KprobeSpec, via: ProbeVia) -> Result<Link> {
    if spec.retprobe && spec.offset != 0 && !spec.symbol.is_empty() {
        return Err(KernelError::Unsupported {
            what: "a return probe at an offset into a function",
            hint: "return probes go on the function itself; drop the +offset",
        });
    }
    let not_probeable = |errno| {
        if spec.offset != 0 && !spec.symbol.is_empty() {
            KernelError::BadProbeOffset {
                symbol: spec.symbol.to_string(),
                offset: spec.offset,
                errno,
            }
        } else {
            KernelError::NotProbeable { symbol: spec.display(), errno }
        }
    };
    if spec.symbol.contains(|c: char| c == '\0' || c.is_whitespace()) {
        return Err(not_probeable(libc::EINVAL));
    }
    let pmu = match via {
        ProbeVia::Tracefs => None,
        _ => pmu(Kind::Kprobe)?,
    };
    let event = match (pmu, via) {
        (Some(pmu), _) => {
            let symbol = CString::new(spec.symbol).map_err(|_| not_probeable(libc::EINVAL))?;
            let mut attr = PerfEventAttr {
                type_: pmu.type_,
                config: if spec.retprobe { pmu.retprobe } else { 0 },
                config1: if spec.symbol.is_empty() { 0 } else { sys::addr_cstr(&symbol) },
                config2: spec.offset,
                ..Default::default()
            };
            // pid -1 on CPU 0 runs the program on every CPU, as for tracepoints.
            let fd = sys::perf_event_open(&mut attr, -1, 0)
                .map_err(|e| kprobe_error(e, &spec, "perf_event_open(kprobe PMU)"))?;
            (fd, None)
        }
        (None, ProbeVia::Pmu) => return Err(KernelError::NoKprobes),
        (None, _) => {
            let tracefs = Tracefs::find_or_mount()?;
            if !Kind::Kprobe.available(&tracefs) {
                return Err(KernelError::NoKprobes);
            }
            let target = spec.display();
            let kind = if spec.retprobe { 'r' } else { 'p' };
            let probe = TracefsProbe::create(&tracefs, Kind::Kprobe, |name| {
                format!("{kind}:{GROUP}/{name} {target}")
            })
            .map_err(|e| match e {
                CreateError::Write(errno) => kprobe_error(errno, &spec, "write(kprobe_events)"),
                CreateError::Other(e) => e,
            })?;
            let fd = probe.open(-1, 0)?;
            (fd, Some(probe))
        }
    };
    attach_probe_fd(prog, event)
}

fn kprobe_error(errno: i32, spec: &KprobeSpec, op: &'static str) -> KernelError {
    match errno {
        libc::ENOENT | libc::EINVAL | libc::EILSEQ
            if spec.offset != 0 && !spec.symbol.is_empty() =>
        {
            KernelError::BadProbeOffset {
                symbol: spec.symbol.to_string(),
                offset: spec.offset,
                errno,
            }
        }
        libc::ENOENT | libc::EINVAL | libc::EILSEQ => {
            KernelError::NotProbeable { symbol: spec.display(), errno }
        }
        libc::EADDRNOTAVAIL => KernelError::AmbiguousSymbol { symbol: spec.display() },
        _ => KernelError::Syscall { op, errno },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kprobe_targets_are_written_the_way_tracefs_reads_them() {
        assert_eq!(KprobeSpec::entry("vfs_read").display(), "vfs_read");
        let at = KprobeSpec { offset: 16, ..KprobeSpec::entry("vfs_read") };
        assert_eq!(at.display(), "vfs_read+0x10");
        assert_eq!(KprobeSpec::address(0xffffffff81000000).display(), "0xffffffff81000000");
    }
}
