//! A [`Link`] owns the kernel objects that keep a program attached; dropping it detaches, and
//! [`detach_all`] detaches many at once. The bottom of the attachment layers: every attach
//! function (`perf_attach`, `tracepoint`, `perf_event`, `kprobe`, `uprobe`, `kprobe_multi`,
//! `fentry`) returns one.

use crate::tracefs::probe_event::TracefsProbe;
use std::os::fd::OwnedFd;

/// Keeps a program attached. Fields drop in order: the link (if any), then the perf event, then
/// the tracefs probe event the perf event was opened on (which the kernel refuses to remove while
/// the perf event is open).
#[derive(Debug)]
pub struct Link {
    link: Option<OwnedFd>,
    event: Option<OwnedFd>,
    probe: Option<TracefsProbe>,
}

impl Link {
    /// True if the program hangs on a BPF link rather than on a perf event's ioctl.
    pub fn is_bpf_link(&self) -> bool {
        self.link.is_some()
    }

    /// The tracefs event (`sonde/sonde_<pid>_<n>`) this probe was created as, if it went through
    /// tracefs rather than the kprobe/uprobe PMU. Removed when the link drops.
    pub fn tracefs_event(&self) -> Option<&str> {
        self.probe.as_ref().map(TracefsProbe::name)
    }

    /// The BPF link's fd, if the program hangs on one.
    pub(crate) fn link_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd;
        self.link.as_ref().map(|l| l.as_fd())
    }

    /// A program held by a BPF link alone (kprobe_multi, fentry/fexit, raw tracepoints).
    pub(crate) fn bpf(link: OwnedFd) -> Link {
        Link { link: Some(link), event: None, probe: None }
    }

    /// A program on a perf event, by a BPF link on it or (`link` None) by the event's ioctl.
    pub(crate) fn perf(link: Option<OwnedFd>, event: OwnedFd) -> Link {
        Link { link, event: Some(event), probe: None }
    }

    pub(crate) fn with_probe(mut self, probe: TracefsProbe) -> Link {
        self.probe = Some(probe);
        self
    }
}

/// Detach many links at once: every BPF link first, so all programs stop together, then the perf
/// events. Both waits are the kernel's RCU grace periods, mostly serialized under its mutexes
/// (measured for tracepoints in `examples/detach_timing.rs`). Closing many kprobe perf events
/// from several threads lets the part outside the mutexes overlap: 425 kprobes on Debian's 6.1
/// under qemu TCG took 40.2 s one by one and 31.5 s from 16 threads.
pub fn detach_all(links: Vec<Link>) {
    let (link_fds, event_fds, probes) = into_fds(links);
    close_all(link_fds);
    close_all(event_fds);
    drop(probes);
}

/// From this many fds on, `close_all` closes them from `CLOSE_THREADS` threads.
const PARALLEL_CLOSE_FROM: usize = 64;
const CLOSE_THREADS: usize = 16;

fn close_all(fds: Vec<OwnedFd>) {
    if fds.len() < PARALLEL_CLOSE_FROM {
        return drop(fds);
    }
    let mut shares: Vec<Vec<OwnedFd>> = (0..CLOSE_THREADS).map(|_| Vec::new()).collect();
    for (i, fd) in fds.into_iter().enumerate() {
        shares[i % CLOSE_THREADS].push(fd);
    }
    std::thread::scope(|s| {
        for share in shares {
            // No thread to be had: the share is closed right here (dropped with the error).
            let _ = std::thread::Builder::new().spawn_scoped(s, move || drop(share));
        }
    });
}

/// The BPF link fds and the perf event fds (to close in that order: links before the events under
/// them), and the tracefs probe events, to remove after the fds are closed.
fn into_fds(links: Vec<Link>) -> (Vec<OwnedFd>, Vec<OwnedFd>, Vec<TracefsProbe>) {
    let mut events = Vec::new();
    let mut probes = Vec::new();
    let fds: Vec<OwnedFd> = links
        .into_iter()
        .filter_map(|mut l| {
            events.extend(l.event.take());
            probes.extend(l.probe.take());
            l.link.take()
        })
        .collect();
    (fds, events, probes)
}
