//! `-p PID`: noticing when the traced process exits, so tracing stops with it (as bpftrace
//! does): nothing can fire for a process that is gone.

use std::os::fd::{FromRawFd, OwnedFd};

pub struct PidWatch {
    pid: u32,
    /// A pidfd (Linux 5.3+), readable once the process has exited; without one, `kill(pid, 0)`.
    pidfd: Option<OwnedFd>,
}

impl PidWatch {
    pub fn new(pid: u32) -> PidWatch {
        // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
        // SAFETY: a non-negative return is a new fd that nothing else owns.
        let pidfd = (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) });
        PidWatch { pid, pidfd }
    }

    pub fn exited(&self) -> bool {
        use std::os::fd::AsRawFd;
        match &self.pidfd {
            Some(fd) => {
                let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd, no waiting.
                unsafe { libc::poll(&mut p, 1, 0) == 1 && p.revents & libc::POLLIN != 0 }
            }
            None => {
                // SAFETY: signal 0 only checks that the process exists.
                let r = unsafe { libc::kill(self.pid as libc::pid_t, 0) };
                r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
            }
        }
    }
}
