//! BPF iterators (`iter:task`, `iter:task_file`, ...): a TRACING program loaded for a
//! `bpf_iter_NAME` target is held by an iterator link; each BPF_ITER_CREATE on the link opens a
//! file whose read() runs the program once per object (task, open file, mapping) and returns
//! what it wrote with bpf_seq_printf, up to EOF when every object has been visited.

use crate::attach::link::Link;
use crate::error::{KernelError, Result};
use crate::object::prog::{AttachType, ProgType, Program};
use crate::sys::{self, cmd, IterCreateAttr, LinkCreateAttr};
use std::io::Read;
use std::os::fd::AsRawFd;

/// Attach an iterator program ([`crate::object::prog::ProgSpec::iter`]) to its target.
pub fn attach_iter(prog: &Program) -> Result<Link> {
    if prog.prog_type() != ProgType::Tracing
        || prog.expected_attach_type() != Some(AttachType::TraceIter)
    {
        return Err(KernelError::WrongAttachType {
            prog: prog.name().to_string(),
            needed: "an iterator (BPF_PROG_TYPE_TRACING with BPF_TRACE_ITER)",
        });
    }
    let mut attr = LinkCreateAttr {
        prog_fd: prog.fd() as u32,
        attach_type: AttachType::TraceIter.id(),
        ..Default::default()
    };
    let fd = sys::bpf_fd(cmd::LINK_CREATE, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_LINK_CREATE) for an iterator"))?;
    Ok(Link::bpf(fd))
}

/// Runs the iterator `link` holds once, handing `each` what the program wrote, a chunk at a
/// time, until the iteration ends or `each` returns false.
pub fn iterate(link: &Link, mut each: impl FnMut(&[u8]) -> bool) -> Result<()> {
    let Some(link_fd) = link.link_fd() else {
        return Err(KernelError::Syscall { op: "bpf(BPF_ITER_CREATE)", errno: libc::EBADF });
    };
    let mut attr = IterCreateAttr { link_fd: link_fd.as_raw_fd() as u32, flags: 0 };
    let fd = sys::bpf_fd(cmd::ITER_CREATE, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_ITER_CREATE)"))?;
    let mut file = std::fs::File::from(fd);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) if each(&buf[..n]) => {}
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                return Err(KernelError::Syscall { op: "read() of a BPF iterator", errno });
            }
        }
    }
}
