//! The event loop every face runs between attach and stop.

use super::target::Target;
use crate::error::Failure;
use crate::signals;
use sonde_output::sink::{Health, WriteFailure};
use std::time::Instant;

/// How long a wait for events lasts. Records are written without waking the reader (a wake-up
/// costs tens of microseconds per event on small VMs), so this bounds the output's latency.
pub const POLL_MS: i32 = 20;

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// SIGINT, SIGTERM or SIGHUP asked.
    Signal(i32),
    /// The command, or every `-p` process, exited.
    TargetEnded,
    /// The program called `exit(N)`.
    Exit(i32),
    /// The face's own limit: a duration, a number of events or calls.
    Limit,
    /// Events were lost and the face stops on a loss (the language without `-k`).
    Lost,
    /// The output could not be written: a closed pipe, a full disk.
    Output(WriteFailure),
}

/// A face's events, as the loop sees them.
pub trait Events {
    /// Waits up to `timeout_ms` for events, or for a watched process to exit.
    fn wait(&mut self, timeout_ms: i32) -> Result<(), Failure>;
    /// Reads and writes what is there; `Some` once the face's own end is reached.
    fn drain(&mut self) -> Result<Option<Reason>, Failure>;
    /// Once the target has ended, may the run end? (`sonde trace` follows the command's
    /// children until they end too.)
    fn target_done(&mut self) -> bool {
        true
    }
}

/// Reads events until something stops the run, and says what.
pub fn until_stopped(
    events: &mut dyn Events,
    target: &mut Target,
    output: &Health,
    deadline: Option<Instant>,
) -> Result<Reason, Failure> {
    loop {
        events.wait(POLL_MS)?;
        let stop = events.drain()?;
        // A closed pipe is noticed while nothing is written too: `| head -1` after the one
        // line it wanted ends the run now, not at the next event.
        output.reader_gone();
        if let Some(f) = output.failure() {
            return Ok(Reason::Output(f));
        }
        if let Some(reason) = stop {
            return Ok(reason);
        }
        if let Some(sig) = signals::stop_requested() {
            return Ok(Reason::Signal(sig));
        }
        // No waiting for stragglers: a program runs inside the syscall or event that fires it,
        // so the target's last events were committed before it could exit.
        if target.ended() && events.target_done() {
            return Ok(Reason::TargetEnded);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Reason::Limit);
        }
    }
}

/// The line said on stderr for how the run ended, if it needs one: a failed output (a closed
/// pipe is the reader's choice and needs none), or a command that failed.
pub fn report(reason: &Reason, target: &Target) {
    if let Reason::Output(f) = reason {
        if !f.closed_pipe() {
            eprintln!("sonde: {}", f.sentence());
        }
        return;
    }
    // 128 + N when signal N killed it, as a shell reports it.
    if let (Reason::TargetEnded, Some(code @ 1..)) = (reason, target.command_status()) {
        eprintln!("sonde: the command exited with status {code}");
    }
}
