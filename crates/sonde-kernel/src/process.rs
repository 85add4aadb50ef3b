//! Watching a process exit (`-p PID`: tracing stops with the traced process, as bpftrace's does).

use crate::sys;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

pub struct PidWatch {
    pid: u32,
    /// A pidfd (Linux 5.3+), readable once the process has exited; without one, `kill(pid, 0)`.
    pidfd: Option<OwnedFd>,
}

impl PidWatch {
    pub fn new(pid: u32) -> PidWatch {
        PidWatch { pid, pidfd: sys::pidfd_open(pid).ok() }
    }

    /// The pidfd, readable once the process has exited (none before Linux 5.3).
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.pidfd.as_ref().map(|fd| fd.as_fd())
    }

    pub fn exited(&self) -> bool {
        match &self.pidfd {
            Some(fd) => sys::readable_now(fd),
            None => sys::process_gone(self.pid),
        }
    }
}
