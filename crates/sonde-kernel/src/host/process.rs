//! Processes: watching one exit (`-p PID`: tracing stops with the traced process, as bpftrace's
//! does), and starting the `-c` command held, stopped, before its exec ([`HeldProcess`]).

use crate::sys;
use std::ffi::CString;
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

    pub fn pid(&self) -> u32 {
        self.pid
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

/// A forked child held, stopped, before its exec until [`HeldProcess::release`]: its pid can be
/// put into programs and probes first, and what their syscall probes see of it starts with the
/// command's own `execve`. Killed and reaped on drop if never released.
pub struct HeldProcess {
    pid: i32,
    held: bool,
    /// Seen stopped (or gone): [`HeldProcess::settle`] has returned.
    settled: bool,
    exited: Option<i32>,
}

impl HeldProcess {
    /// Fork; the child will exec `path` with `argv` (its first word included) and `envp`
    /// (`NAME=value` strings) once released. Not waited for: the caller's own work (loading
    /// programs) overlaps the child's start, and [`HeldProcess::settle`] must come before
    /// anything that must not see the child's set-up calls is attached.
    pub fn start(
        path: &CString,
        argv: &[CString],
        envp: &[CString],
    ) -> std::io::Result<HeldProcess> {
        let pid = sys::fork_held(path, argv, envp).map_err(std::io::Error::from_raw_os_error)?;
        Ok(HeldProcess { pid, held: true, settled: false, exited: None })
    }

    /// Returns once the child has stopped itself (at once after the first time).
    pub fn settle(&mut self) {
        if !std::mem::replace(&mut self.settled, true) {
            wait_stopped(self.pid);
        }
    }

    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// Let it exec.
    pub fn release(&mut self) {
        // A continue sent before the child's own stop would leave it stopped for good.
        self.settle();
        if std::mem::take(&mut self.held) {
            sys::continue_child(self.pid);
        }
    }

    /// Its exit status once it has exited (reaped then): 128 + the signal if one killed it.
    pub fn try_exit(&mut self) -> Option<i32> {
        if self.exited.is_none() {
            // An error means it is no longer our child to wait for: count it as gone.
            self.exited = sys::wait_child(self.pid, false).unwrap_or(Some(128));
        }
        self.exited
    }

    /// SIGKILL and reap it, unless it has exited already.
    pub fn kill(&mut self) {
        if self.try_exit().is_none() {
            sys::kill_child(self.pid);
            self.exited = sys::wait_child(self.pid, true).unwrap_or(Some(137));
        }
    }
}

/// Return once the held child has stopped itself, so probes attached next see none of its set-up
/// calls (resetting signals: they ran after the attach when the child was scheduled late), and
/// the continue finds it stopped. Typically one look at /proc: the child stops in tens of
/// microseconds. A child that died, or one not stopped within a second (a stopped machine), is
/// left as it is: never an error.
fn wait_stopped(pid: i32) {
    let path = format!("/proc/{pid}/stat");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    loop {
        // "PID (COMM) STATE ...": the state follows the last ')' (a comm may hold one).
        let state = std::fs::read_to_string(&path).ok().and_then(|s| {
            s.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next())
        });
        match state {
            // 't': stopped under a debugger's ptrace (sonde itself run under strace or gdb).
            Some('T' | 't' | 'Z' | 'X') | None => return,
            _ if std::time::Instant::now() >= deadline => return,
            _ => std::thread::sleep(std::time::Duration::from_micros(20)),
        }
    }
}

impl Drop for HeldProcess {
    fn drop(&mut self) {
        // A child never released must not outlive a failed sonde.
        if self.held {
            self.kill();
        }
    }
}
