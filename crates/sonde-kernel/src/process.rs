//! Watching a process exit (`-p PID`: tracing stops with the traced process, as bpftrace's does).

use crate::sys;
use std::os::fd::OwnedFd;

pub struct PidWatch {
    pid: u32,
    /// A pidfd (Linux 5.3+), readable once the process has exited; without one, `kill(pid, 0)`.
    pidfd: Option<OwnedFd>,
}

impl PidWatch {
    pub fn new(pid: u32) -> PidWatch {
        PidWatch { pid, pidfd: sys::pidfd_open(pid).ok() }
    }

    pub fn exited(&self) -> bool {
        match &self.pidfd {
            Some(fd) => sys::readable_now(fd),
            None => sys::process_gone(self.pid),
        }
    }
}
