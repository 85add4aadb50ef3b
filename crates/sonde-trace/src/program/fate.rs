//! The programs that see the traced tasks' fate (`crate::fate` prints it): signals delivered,
//! signals sent (a fatal one may kill without being delivered), and each task's exit code. They
//! read the kernel's `kernel_siginfo` and `task_struct` through BTF (`rawtracepoint:` arguments
//! and `curtask`): without BTF the command's end is printed from its wait status alone.

use super::{Mode, Plan, TAG_FATE, TAG_SENT, TAG_SIGNAL};
use std::fmt::Write;

/// The siginfo fields a line shows, read from `$i` (a `struct kernel_siginfo *`).
const SIGINFO: &str = "$i->si_errno, $i->si_code, $i->_sifields._sigfault._addr, \
     $i->_sifields._sigchld._status, $i->_sifields._sigchld._utime, $i->_sifields._sigchld._stime";

impl Plan<'_> {
    /// Lines (not summaries) show the fate, where BTF types the structs it is read from.
    pub(crate) fn shows_fate(&self) -> bool {
        self.fate && self.mode == Mode::Lines
    }

    /// The exit record, in the program of `sched_process_exit` (before the task is forgotten).
    pub(crate) fn fate_exit(&self) -> String {
        match self.shows_fate() {
            true => format!("print({TAG_FATE}, tid, pid, nsecs, curtask->exit_code, comm); "),
            false => String::new(),
        }
    }

    /// Signals delivered to traced tasks (SIGKILL never is, for strace either), and signals sent
    /// to them (`arg2`, the task signalled, is traced: the sender may not be).
    pub(crate) fn fate_signals(&self, p: &mut String, target: &str) {
        if !self.shows_fate() {
            return;
        }
        let info = |arg: &str| SIGINFO.replace("$i", arg);
        let _ = writeln!(
            p,
            "rawtracepoint:signal_deliver /{target} && arg0 != 9/ {{ \
             print({TAG_SIGNAL}, tid, pid, nsecs, arg0, {}, comm); }}",
            info("arg1")
        );
        let _ = writeln!(
            p,
            "rawtracepoint:signal_generate /{} && arg0 != 9/ {{ \
             print({TAG_SENT}, arg2->pid, arg2->tgid, nsecs, arg0, {}, (uint64)arg1, arg4, pid, uid); }}",
            self.signalled(),
            info("arg1")
        );
    }

    /// The predicate on the task a signal is sent to (`arg2`): its user's, and the CPU's where
    /// it is sent from (the task may run elsewhere).
    fn signalled(&self) -> String {
        let mut t = self.tasks_of("arg2->pid", "arg2->tgid");
        if let Some(uid) = self.uid {
            t.push_str(&format!(" && arg2->cred->uid.val == {uid}"));
        }
        if !self.cpus.is_empty() {
            let c: Vec<String> = self.cpus.iter().map(|c| format!("cpu == {c}")).collect();
            t.push_str(&format!(" && ({})", c.join(" || ")));
        }
        t
    }
}
