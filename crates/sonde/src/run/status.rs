//! One exit status rule for every face (docs/exit-status.md):
//!
//! - 2: a usage or compile error; nothing touched the kernel (`Failure::exit_code`);
//! - 1: the kernel or the system refused something, events were lost (unless the face was told
//!   to keep going), or the output could not be written (a full disk);
//! - the program's `exit(N)` with N > 0: N;
//! - else the command's own status, when sonde started one and it exited by itself with a
//!   failure (strace's rule: 128 + N when signal N killed it);
//! - else 0, also when the reader of sonde's output went away (`sonde ... | head -1`).

use super::poll::Reason;

pub struct Outcome {
    pub reason: Reason,
    /// Events (or, in `sonde trace`, calls) lost over the whole run.
    pub lost: u64,
    /// `-k`: losses are reported but are no failure.
    pub keep_going: bool,
    /// The command's status, if it exited before sonde stopped.
    pub command: Option<i32>,
}

pub fn exit_status(o: &Outcome) -> i32 {
    match &o.reason {
        Reason::Output(f) if f.closed_pipe() => return 0,
        Reason::Output(_) | Reason::Lost => return 1,
        Reason::Exit(code @ 1..) => return *code,
        _ => {}
    }
    if o.lost > 0 && !o.keep_going {
        return 1;
    }
    match (&o.reason, o.command) {
        (Reason::TargetEnded, Some(code)) => code,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::{exit_status, Outcome, Reason};
    use sonde_output::sink::WriteFailure;
    use std::io::ErrorKind;

    fn outcome(reason: Reason) -> Outcome {
        Outcome { reason, lost: 0, keep_going: false, command: None }
    }

    #[test]
    fn one_rule_for_every_face() {
        assert_eq!(exit_status(&outcome(Reason::Signal(2))), 0);
        assert_eq!(exit_status(&outcome(Reason::Exit(3))), 3);
        assert_eq!(exit_status(&Outcome { command: Some(3), ..outcome(Reason::TargetEnded) }), 3);
        // Killed by SIGSEGV: 128 + 11, as a shell reports it.
        assert_eq!(
            exit_status(&Outcome { command: Some(139), ..outcome(Reason::TargetEnded) }),
            139
        );
        // Stopped by Ctrl-C first: the command's status is not its own doing.
        assert_eq!(exit_status(&Outcome { command: Some(130), ..outcome(Reason::Signal(2)) }), 0);
        assert_eq!(exit_status(&Outcome { lost: 5, ..outcome(Reason::TargetEnded) }), 1);
        assert_eq!(
            exit_status(&Outcome { lost: 5, keep_going: true, ..outcome(Reason::Limit) }),
            0
        );
        let pipe =
            WriteFailure { kind: ErrorKind::BrokenPipe, message: "Broken pipe".into(), file: None };
        assert_eq!(exit_status(&outcome(Reason::Output(pipe.clone()))), 0);
        // A closed pipe beats losses, and the command's own status: the reader chose to stop.
        let pipe_and_more = Outcome { lost: 5, command: Some(3), ..outcome(Reason::Output(pipe)) };
        assert_eq!(exit_status(&pipe_and_more), 0);
        let full =
            WriteFailure { kind: ErrorKind::StorageFull, message: "No space".into(), file: None };
        assert_eq!(exit_status(&outcome(Reason::Output(full))), 1);
        let svg = WriteFailure {
            kind: ErrorKind::StorageFull,
            message: "No space".into(),
            file: Some("f.svg".into()),
        };
        assert_eq!(exit_status(&outcome(Reason::Output(svg))), 1);
        // Lost events are a failure, but a program's own exit(N) is said first.
        assert_eq!(exit_status(&Outcome { lost: 5, ..outcome(Reason::Exit(4)) }), 4);
        assert_eq!(exit_status(&Outcome { lost: 5, ..outcome(Reason::Exit(0)) }), 1);
        assert_eq!(exit_status(&outcome(Reason::Lost)), 1);
    }
}
