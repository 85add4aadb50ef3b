//! Hardware breakpoints (`watchpoint:`): a perf event of type PERF_TYPE_BREAKPOINT on an
//! address, in one process's threads or on every CPU, with a PERF_EVENT program on it.

use crate::attach::link::Link;
use crate::attach::perf_attach::{attach_perf_fd, PerfAttach};
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, PerfEventAttr};

/// `enum perf_type_id` PERF_TYPE_BREAKPOINT.
const PERF_TYPE_BREAKPOINT: u32 = 5;
/// `perf_event_attr` bit `inherit`: threads and children created later carry the event.
const INHERIT: u64 = 1 << 1;

/// What the breakpoint fires on (`HW_BREAKPOINT_R`, `_W`, `_X`), combinable as the CPU allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub read: bool,
    pub write: bool,
    pub execute: bool,
}

impl Access {
    fn bp_type(self) -> u32 {
        u32::from(self.read) | u32::from(self.write) << 1 | u32::from(self.execute) << 2
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breakpoint {
    pub addr: u64,
    /// Bytes watched: 1, 2, 4 or 8 (an execution breakpoint is always a word, as the kernel
    /// requires).
    pub len: u64,
    pub access: Access,
}

impl Breakpoint {
    fn attr(&self) -> PerfEventAttr {
        let len =
            if self.access.execute { std::mem::size_of::<libc::c_long>() as u64 } else { self.len };
        PerfEventAttr {
            type_: PERF_TYPE_BREAKPOINT,
            sample_period_or_freq: 1,
            flags: INHERIT,
            bp_type: self.access.bp_type(),
            config1: self.addr,
            config2: len,
            ..Default::default()
        }
    }
}

/// `bp` in every thread of process `pid` (and the threads and children they create later), or,
/// with no pid, on every online CPU. Threads that exit meanwhile are skipped; the run fails only
/// when no breakpoint could be set.
pub fn attach_breakpoint(prog: &Program, bp: Breakpoint, pid: Option<u32>) -> Result<Vec<Link>> {
    let places: Vec<(i32, i32)> = match pid {
        Some(pid) => threads(pid)?.into_iter().map(|tid| (tid as i32, -1)).collect(),
        None => crate::host::cpus::online_cpus()?.into_iter().map(|cpu| (-1, cpu as i32)).collect(),
    };
    let mut links = Vec::new();
    for (tid, cpu) in places {
        match sys::perf_event_open(&mut bp.attr(), tid, cpu) {
            Ok(event) => links.push(attach_perf_fd(prog, event, PerfAttach::Auto)?),
            // The thread exited since it was listed.
            Err(libc::ESRCH) if pid.is_some() => {}
            Err(libc::ENOSPC) => return Err(KernelError::NoDebugRegisters),
            Err(e) => return Err(KernelError::Syscall { op: BREAKPOINT_OPEN, errno: e }),
        }
    }
    if links.is_empty() {
        return Err(KernelError::Syscall { op: BREAKPOINT_OPEN, errno: libc::ESRCH });
    }
    Ok(links)
}

const BREAKPOINT_OPEN: &str = "perf_event_open (hardware breakpoint)";

/// The thread ids of process `pid` (`/proc/PID/task`).
fn threads(pid: u32) -> Result<Vec<u32>> {
    let path = format!("/proc/{}/task", pid);
    let io = |source| KernelError::Io { path: path.clone(), source };
    let mut tids = Vec::new();
    for entry in std::fs::read_dir(&path).map_err(io)? {
        let name = entry.map_err(io)?.file_name();
        tids.extend(name.to_str().and_then(|n| n.parse::<u32>().ok()));
    }
    Ok(tids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attr_carries_address_length_and_access() {
        let access = Access { read: true, write: true, execute: false };
        let attr = Breakpoint { addr: 0x1000, len: 4, access }.attr();
        assert_eq!((attr.type_, attr.bp_type, attr.config1, attr.config2), (5, 3, 0x1000, 4));
        let exec = Access { read: false, write: false, execute: true };
        let attr = Breakpoint { addr: 0x1000, len: 1, access: exec }.attr();
        assert_eq!((attr.bp_type, attr.config2), (4, 8));
    }
}
