//! Attaching fentry/fexit programs through BPF trampolines, and tp_btf programs (BTF-typed raw
//! tracepoints) the same way.

use crate::attach::link::Link;
use crate::error::{KernelError, Result};
use crate::object::prog::{AttachType, ProgType, Program};
use crate::sys::{self, cmd, RawTracepointAttr};

/// Attach a TRACING program (fentry/fexit, loaded with [`crate::object::prog::ProgSpec::fentry`] or
/// [`crate::object::prog::ProgSpec::fexit`]) to the function it was loaded for, through a BPF trampoline;
/// or a tp_btf one ([`crate::object::prog::ProgSpec::tp_btf`]) to its tracepoint.
/// Uses BPF_RAW_TRACEPOINT_OPEN with no name, which every kernel with trampolines (5.5+) takes.
#[doc(alias = "fentry")]
#[doc(alias = "fexit")]
pub fn attach_tracing(prog: &Program) -> Result<Link> {
    if prog.prog_type() != ProgType::Tracing
        || !matches!(
            prog.expected_attach_type(),
            Some(AttachType::TraceFentry | AttachType::TraceFexit | AttachType::TraceRawTp)
        )
    {
        return Err(KernelError::WrongAttachType {
            prog: prog.name().to_string(),
            needed:
                "fentry, fexit or tp_btf (BPF_PROG_TYPE_TRACING with BPF_TRACE_FENTRY/FEXIT/RAW_TP)",
        });
    }
    // A tp_btf program needs no trampoline: the kernel's own tracepoint calls it.
    let raw_tp = prog.expected_attach_type() == Some(AttachType::TraceRawTp);
    let mut attr = RawTracepointAttr { name: 0, prog_fd: prog.fd() as u32, _pad: 0 };
    let fd = sys::bpf_fd(cmd::RAW_TRACEPOINT_OPEN, &mut attr).map_err(|e| match e {
        libc::EOPNOTSUPP | crate::object::prog::ENOTSUPP if !raw_tp => {
            KernelError::NoTrampolines { errno: e }
        }
        _ => KernelError::Syscall { op: "bpf(BPF_RAW_TRACEPOINT_OPEN) for fentry/fexit", errno: e },
    })?;
    Ok(Link::bpf(fd))
}
