//! What a run watches: the command it started (held before its exec until everything is
//! attached) or the processes `-p` named. The run ends when they do; the command's fate is the
//! run's exit status (see `run::status`).

use crate::child::{Command, HeldChild};
use crate::error::Failure;
use sonde_kernel::host::process::PidWatch;
use std::os::fd::BorrowedFd;

#[derive(Default)]
pub struct Target {
    child: Option<HeldChild>,
    /// The `-p` processes: the run ends once every one has exited.
    watched: Vec<PidWatch>,
    /// A pidfd of the command, so its exit wakes the poll at once.
    child_watch: Option<PidWatch>,
}

impl Target {
    /// Checks the `-p` pids exist, then starts `command` held and waits until it has stopped.
    /// Nothing is attached yet, so a mistake here is said before the kernel is touched.
    pub fn new(command: Option<&Command>, pids: &[u32]) -> Result<Target, Failure> {
        let mut target = Target::start(command, pids)?;
        target.settle();
        Ok(target)
    }

    /// [`Target::new`] without the wait: the command starts while sonde loads its programs,
    /// and [`Target::settle`] must come before they are attached.
    pub fn start(command: Option<&Command>, pids: &[u32]) -> Result<Target, Failure> {
        for pid in pids {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                return Err(Failure::Usage(format!(
                    "-p {pid}: no process has that pid (it may have exited)"
                )));
            }
        }
        let child = command.map(HeldChild::start).transpose()?;
        let child_watch = child.as_ref().map(|c| PidWatch::new(c.pid()));
        let watched = pids.iter().map(|&p| PidWatch::new(p)).collect();
        Ok(Target { child, watched, child_watch })
    }

    /// Returns once the command is held still before its exec (probes attached after this see
    /// none of its set-up).
    pub fn settle(&mut self) {
        if let Some(c) = self.child.as_mut() {
            c.settle();
        }
    }

    /// The command's pid, before it runs.
    pub fn command_pid(&self) -> Option<u32> {
        self.child.as_ref().map(HeldChild::pid)
    }

    /// The pids probes are restricted to: the command's, else the `-p` processes'.
    pub fn pids(&self) -> Vec<u32> {
        match self.command_pid() {
            Some(pid) => vec![pid],
            None => self.watched.iter().map(PidWatch::pid).collect(),
        }
    }

    pub fn has_command(&self) -> bool {
        self.child.is_some()
    }

    /// Descriptors that become readable when the watched processes exit (pidfds, 5.3+).
    pub fn wake_fds(&self) -> Vec<BorrowedFd<'_>> {
        self.watched.iter().chain(&self.child_watch).filter_map(PidWatch::fd).collect()
    }

    /// Lets the command run: called once every probe is attached.
    pub fn release(&mut self) {
        if let Some(c) = self.child.as_mut() {
            c.release();
        }
    }

    /// Has the command exited (it is reaped then), or every `-p` process?
    pub fn ended(&mut self) -> bool {
        if let Some(c) = self.child.as_mut() {
            return c.poll_exit();
        }
        !self.watched.is_empty() && self.watched.iter().all(PidWatch::exited)
    }

    /// The command's exit status, once it has exited: 128 + N when signal N killed it.
    pub fn command_status(&self) -> Option<i32> {
        self.child.as_ref().and_then(|c| c.exited)
    }

    /// Ends the command if it still runs (sonde is stopping first) and reaps it.
    pub fn finish(&mut self) {
        if let Some(c) = self.child.as_mut() {
            if !c.poll_exit() {
                c.kill();
            }
        }
    }
}
