//! Attaching to kernel tracepoints: through a perf event on the tracefs record
//! ([`attach_tracepoint`]) or as a raw tracepoint on the C arguments ([`attach_raw_tracepoint`]).

use crate::attach::link::Link;
use crate::attach::perf_attach::{attach_perf_fd, PerfAttach};
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, cmd, PerfEventAttr, RawTracepointAttr};
use std::ffi::CString;

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

/// Attach a RAW_TRACEPOINT program to the kernel tracepoint `name` (e.g. `sched_switch`,
/// `sys_enter`). The program sees the tracepoint's raw arguments, not the tracefs record.
pub fn attach_raw_tracepoint(prog: &Program, name: &str) -> Result<Link> {
    let name = CString::new(name).map_err(|_| KernelError::Syscall {
        op: "bpf(BPF_RAW_TRACEPOINT_OPEN)",
        errno: libc::EINVAL,
    })?;
    let mut attr =
        RawTracepointAttr { name: sys::addr_cstr(&name), prog_fd: prog.fd() as u32, _pad: 0 };
    let fd = sys::bpf_fd(cmd::RAW_TRACEPOINT_OPEN, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_RAW_TRACEPOINT_OPEN)"))?;
    Ok(Link::bpf(fd))
}
