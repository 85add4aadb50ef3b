//! Where every syscall (or a large set) is traced: the BTF-typed raw tracepoints `sys_enter`
//! `(struct pt_regs *regs, long id)` and `sys_exit` `(struct pt_regs *regs, long ret)`, which
//! build no perf record and detach in a moment, or, without BTF (or on an architecture whose
//! registers this does not name), `raw_syscalls`' perf-event tracepoints. The same for the
//! task lifecycle sites (`sched_process_fork`, `sched_process_exit`).

use super::Plan;

/// The syscall arguments' registers at `sys_enter`, and the register the syscall number stays
/// in until the exit.
#[cfg(target_arch = "x86_64")]
const REGS: Option<([&str; 6], &str)> = Some((["di", "si", "dx", "r10", "r8", "r9"], "orig_ax"));
#[cfg(target_arch = "aarch64")]
const REGS: Option<([&str; 6], &str)> =
    Some((["regs[0]", "regs[1]", "regs[2]", "regs[3]", "regs[4]", "regs[5]"], "syscallno"));
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const REGS: Option<([&str; 6], &str)> = None;

/// The user stack pointer's register, where rt_sigreturn's signal frame is read at its entry
/// (x86-64's frame layout only).
#[cfg(target_arch = "x86_64")]
const STACK_POINTER: Option<&str> = Some("sp");
#[cfg(not(target_arch = "x86_64"))]
const STACK_POINTER: Option<&str> = None;

/// The tracepoints and expressions of one way of tracing every syscall.
pub(crate) struct Site {
    pub enter: &'static str,
    pub exit: &'static str,
    /// The syscall number at the entry and at the exit.
    pub enter_id: String,
    pub exit_id: String,
    pub ret: &'static str,
    pub args: Vec<String>,
    /// The user stack pointer at the entry, where the site has the registers.
    pub sp: Option<String>,
    /// `sched_process_fork`'s site and the new task's id there; `sched_process_exit`'s site.
    pub fork: &'static str,
    pub child: &'static str,
    pub task_exit: &'static str,
}

impl Plan<'_> {
    /// The raw tracepoints where BTF types them, else the perf-event ones.
    pub(crate) fn site(&self) -> Site {
        match (self.raw_tracepoints, REGS) {
            (true, Some((regs, nr))) => Site {
                enter: "rawtracepoint:sys_enter",
                exit: "rawtracepoint:sys_exit",
                enter_id: "arg1".into(),
                exit_id: format!("arg0->{nr}"),
                ret: "arg1",
                args: regs.iter().map(|r| format!("arg0->{r}")).collect(),
                sp: STACK_POINTER.map(|r| format!("arg0->{r}")),
                fork: "rawtracepoint:sched_process_fork",
                child: "arg1->pid",
                task_exit: "rawtracepoint:sched_process_exit",
            },
            _ => Site {
                enter: "tracepoint:raw_syscalls:sys_enter",
                exit: "tracepoint:raw_syscalls:sys_exit",
                enter_id: "args->id".into(),
                exit_id: "args->id".into(),
                ret: "args->ret",
                args: (0..6).map(|i| format!("args->args[{i}]")).collect(),
                sp: None,
                fork: "tracepoint:sched:sched_process_fork",
                child: "args->child_pid",
                task_exit: "tracepoint:sched:sched_process_exit",
            },
        }
    }
}
