//! Putting a program on an open perf event fd: shared by tracepoints, perf events, kprobes and
//! uprobes (as aya's `perf_attach` is under its kprobe/uprobe/tracepoint programs).
//!
//! Since 5.15 a BPF link (BPF_LINK_CREATE, attach_type BPF_PERF_EVENT) can hold the program on
//! the event; before that only PERF_EVENT_IOC_SET_BPF can. We try the link once and remember if
//! the kernel lacks it.
//!
//! Measured on the 6.18 VM (examples/attach_timing.rs): both ways attach in 0.1-0.3 ms and detach
//! in the same 40 ms (syscall tracepoints) to 75 ms (others): the cost is the kernel destroying the
//! tracepoint's perf event (RCU grace periods), not the attach method. We still prefer the link:
//! closing it stops the program by itself (~27 ms of that total on 6.18), apart from the event's
//! destruction. sonde still waits for that destruction before it exits, so the kernel is as it
//! found it when sonde returns (handing the fds to a helper process to close saved the wait but
//! left probes behind a finished run for tens of ms; it was removed). Raw tracepoint links detach in ~0.1 ms, but their programs see the
//! tracepoint's C arguments rather than its tracefs record; CPU-clock perf events detach in
//! microseconds.

use crate::attach::link::Link;
use crate::error::{KernelError, Result};
use crate::object::prog::Program;
use crate::sys::{self, cmd, LinkCreateAttr};
use crate::tracefs::probe_event::TracefsProbe;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU8, Ordering};

/// uapi `enum bpf_attach_type` value BPF_PERF_EVENT.
const BPF_PERF_EVENT: u32 = 41;

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
            Err(libc::EINVAL) if crate::sys::version::running().is_some_and(|v| v < (5, 15)) => {
                return Err(KernelError::NeedsKernel {
                    what: "a BPF link on a perf event (PerfAttach::Auto uses the ioctl instead)",
                    version: "5.15",
                })
            }
            Err(e) => return Err(KernelError::Syscall { op: "bpf(BPF_LINK_CREATE)", errno: e }),
        }
    }
    if link.is_none() {
        sys::ioctl(&event, sys::PERF_EVENT_IOC_SET_BPF, prog.fd() as u64)
            .map_err(KernelError::sys("ioctl(PERF_EVENT_IOC_SET_BPF)"))?;
    }
    sys::ioctl(&event, sys::PERF_EVENT_IOC_ENABLE, 0)
        .map_err(KernelError::sys("ioctl(PERF_EVENT_IOC_ENABLE)"))?;
    Ok(Link::perf(link, event))
}

/// [`attach_perf_fd`] for a kprobe or uprobe: the event, and the tracefs probe it was opened on
/// when it did not come from a PMU, which the link then owns.
pub(crate) fn attach_probe_fd(
    prog: &Program,
    (event, probe): (OwnedFd, Option<TracefsProbe>),
) -> Result<Link> {
    // On error the probe drops after the event: it is removed again.
    let link = attach_perf_fd(prog, event, PerfAttach::Auto)?;
    Ok(match probe {
        Some(p) => link.with_probe(p),
        None => link,
    })
}
