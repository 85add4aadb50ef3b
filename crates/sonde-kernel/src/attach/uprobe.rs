//! uprobes and uretprobes on an instruction of a user-space file, through the uprobe PMU or,
//! without it, tracefs `uprobe_events`.

use crate::attach::link::Link;
use crate::attach::perf_attach::attach_probe_fd;
use crate::attach::pmu::{pmu, ProbeVia};
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, PerfEventAttr};
use crate::tracefs::probe_event::{CreateError, Kind, TracefsProbe, GROUP};
use crate::tracefs::Tracefs;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A user-space instruction to probe: a file offset in an executable or library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UprobeSpec<'a> {
    pub path: &'a Path,
    /// File offset of the instruction (a symbol's address converted through its PT_LOAD segment,
    /// not the address itself).
    pub offset: u64,
    /// At return (uretprobe) rather than at the instruction.
    pub retprobe: bool,
    /// Only this process (`-p PID`); None for every process that maps the file.
    pub pid: Option<u32>,
}

/// Attach a KPROBE program to an instruction in a user-space file ([`ProbeVia::Auto`]).
pub fn attach_uprobe(prog: &Program, spec: UprobeSpec) -> Result<Link> {
    attach_uprobe_with(prog, spec, ProbeVia::Auto)
}

pub fn attach_uprobe_with(prog: &Program, spec: UprobeSpec, via: ProbeVia) -> Result<Link> {
    let target = |errno| KernelError::UprobeTarget {
        path: spec.path.display().to_string(),
        offset: spec.offset,
        errno,
    };
    let path = CString::new(spec.path.as_os_str().as_bytes()).map_err(|_| target(libc::EINVAL))?;
    // A process, on every CPU it runs on; or every process, with the program on the probe itself.
    let (pid, cpu) = match spec.pid {
        Some(p) => (p as i32, -1),
        None => (-1, 0),
    };
    let open_error = |errno| match errno {
        libc::ESRCH => KernelError::Syscall {
            op: "perf_event_open(uprobe) for a process that does not exist",
            errno,
        },
        libc::EPERM | libc::EACCES | libc::EMFILE | libc::ENFILE | libc::ENOMEM => {
            KernelError::Syscall { op: "perf_event_open(uprobe)", errno }
        }
        _ => target(errno),
    };
    let pmu = match via {
        ProbeVia::Tracefs => None,
        _ => pmu(Kind::Uprobe)?,
    };
    let event = match (pmu, via) {
        (Some(pmu), _) => {
            let mut attr = PerfEventAttr {
                type_: pmu.type_,
                config: if spec.retprobe { pmu.retprobe } else { 0 },
                config1: sys::addr_cstr(&path),
                config2: spec.offset,
                ..Default::default()
            };
            (sys::perf_event_open(&mut attr, pid, cpu).map_err(open_error)?, None)
        }
        (None, ProbeVia::Pmu) => return Err(KernelError::NoUprobes),
        (None, _) => {
            let tracefs = Tracefs::find_or_mount()?;
            if !Kind::Uprobe.available(&tracefs) {
                return Err(KernelError::NoUprobes);
            }
            // tracefs takes `PATH:OFFSET` separated by spaces: other paths cannot be written.
            let p = match spec.path.to_str() {
                Some(p) if !p.contains(char::is_whitespace) && !p.is_empty() => p,
                _ => return Err(target(libc::EINVAL)),
            };
            let kind = if spec.retprobe { 'r' } else { 'p' };
            let offset = spec.offset;
            let probe = TracefsProbe::create(&tracefs, Kind::Uprobe, |name| {
                format!("{kind}:{GROUP}/{name} {p}:{offset:#x}")
            })
            .map_err(|e| match e {
                CreateError::Write(errno) => target(errno),
                CreateError::Other(e) => e,
            })?;
            let fd = probe.open(pid, cpu).map_err(|e| match e.errno() {
                Some(errno) if !matches!(e, KernelError::Io { .. }) => open_error(errno),
                _ => e,
            })?;
            (fd, Some(probe))
        }
    };
    attach_probe_fd(prog, event)
}
