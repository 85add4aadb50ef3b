//! The builtin variables.

use crate::model::tir::Builtin;
use crate::model::types::Type;
use crate::provider::context::ContextName;
use crate::sema::builtins::spec::{base, Check, Form, Returns, Spec};

/// A variable bpftrace also spells as a call (`pid()`).
const CALLABLE: Form = Form::Variable { call: true, shadowed: false };
/// A name only: what the probe is handed.
const NAME: Form = Form::Variable { call: false, shadowed: false };
/// bpftrace's names that came after ply's: callable, and hidden by a map or enum of the name.
const LATER: Form = Form::Variable { call: true, shadowed: true };

const VARIABLE: Spec = base(CALLABLE, Check::Var(|cx, name, span| cx.unknown_variable(name, span)));

pub const VARIABLES: &[Spec] = &[
    Spec {
        name: "comm",
        also: &["execname"],
        returns: Returns::Type(&Type::Str(16)),
        doc: "The current task's name, as the kernel keeps it (16 bytes).",
        example: "tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }",
        check: Check::Builtin(Builtin::Comm),
        ..VARIABLE
    },
    Spec {
        name: "pid",
        returns: Returns::Type(&Type::U32),
        doc: "The current process's id (the kernel's thread group id), as seen from sonde's pid namespace.",
        example: "tracepoint:syscalls:sys_enter_read { @[pid] = count(); }",
        check: Check::Var(|cx, _, span| cx.task_id(false, false, span)),
        ..VARIABLE
    },
    Spec {
        name: "tid",
        also: &["kpid"],
        returns: Returns::Type(&Type::U32),
        doc: "The current thread's id (the kernel's pid), as seen from sonde's pid namespace.",
        example: "tracepoint:syscalls:sys_enter_read { @[tid] = count(); }",
        check: Check::Var(|cx, _, span| cx.task_id(true, false, span)),
        ..VARIABLE
    },
    Spec {
        name: "uid",
        returns: Returns::Type(&Type::U32),
        doc: "The current user id.",
        example: "tracepoint:syscalls:sys_enter_openat { @[uid] = count(); }",
        check: Check::Builtin(Builtin::Uid),
        ..VARIABLE
    },
    Spec {
        name: "gid",
        returns: Returns::Type(&Type::U32),
        doc: "The current group id.",
        example: "tracepoint:syscalls:sys_enter_openat { @[gid] = count(); }",
        check: Check::Builtin(Builtin::Gid),
        ..VARIABLE
    },
    Spec {
        name: "cpu",
        returns: Returns::Type(&Type::U32),
        doc: "The CPU the probe runs on.",
        example: "tracepoint:sched:sched_switch { @[cpu] = count(); }",
        check: Check::Builtin(Builtin::Cpu),
        ..VARIABLE
    },
    Spec {
        name: "nsecs",
        also: &["time"],
        returns: Returns::Type(&Type::U64),
        doc: "Nanoseconds since boot (the monotonic clock).",
        example: "tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; }",
        check: Check::Builtin(Builtin::Nsecs),
        ..VARIABLE
    },
    Spec {
        name: "walltime",
        returns: Returns::Type(&Type::Walltime),
        doc: "The time now, printed as an RFC 3339 UTC timestamp by `%s` and `print`.",
        example: "BEGIN { printf(\"%s\\n\", walltime); }",
        check: Check::Builtin(Builtin::Nsecs),
        ..VARIABLE
    },
    Spec {
        name: "elapsed",
        returns: Returns::Type(&Type::U64),
        doc: "Nanoseconds since sonde started.",
        example: "interval:1s { printf(\"%d\\n\", elapsed); }",
        check: Check::Builtin(Builtin::Elapsed),
        ..VARIABLE
    },
    Spec {
        name: "cpid",
        returns: Returns::Type(&Type::U32),
        doc: "The pid of the command run with `-c` (also `$target`), a constant.",
        example: "tracepoint:syscalls:sys_enter_read /pid == cpid/ { @reads = count(); }",
        check: Check::Var(|cx, _, span| cx.child_pid(span)),
        ..VARIABLE
    },
    Spec {
        name: "args",
        also: &["data"],
        form: NAME,
        returns: Returns::Computed("a record of the fields"),
        doc: "The probe's record, read by field (`args.FIELD` or `args->FIELD`): a tracepoint's, or the arguments of fentry, fexit, rawtracepoint and uprobe probes by name (a uprobe's from the binary's debug info). Alone, `args` is a record of all its fields, to print or keep in a map, a tuple or a key.",
        example: "tracepoint:syscalls:sys_enter_openat { printf(\"%s\\n\", str(args.filename)); }",
        check: Check::Var(|cx, name, span| cx.whole_record(name, span)),
        ..VARIABLE
    },
    Spec {
        name: "ppid",
        form: LATER,
        returns: Returns::Computed("the parent's `tgid`, from BTF"),
        doc: "The parent process's id, `curtask->real_parent->tgid` (needs BTF); `ppid(task)` reads another task's.",
        example: "tracepoint:syscalls:sys_enter_execve { @[ppid] = count(); }",
        check: Check::Var(|cx, name, span| cx.task_field(name, None, span)),
        ..VARIABLE
    },
    Spec {
        name: "cgroup",
        form: LATER,
        returns: Returns::Type(&Type::U64),
        doc: "The current task's cgroup v2 id (`cgroup_path(cgroup)` prints its path).",
        example: "tracepoint:syscalls:sys_enter_read { @[cgroup] = count(); }",
        check: Check::Builtin(Builtin::Cgroup),
        ..VARIABLE
    },
    Spec {
        name: "pcomm",
        form: LATER,
        returns: Returns::Computed("the parent's `comm`, from BTF"),
        doc: "The parent process's name, `curtask->real_parent->comm`, as bpftrace's (needs BTF); `pcomm(task)` reads another task's.",
        example: "tracepoint:syscalls:sys_enter_read { @[pcomm] = count(); }",
        check: Check::Var(|cx, name, span| cx.task_field(name, None, span)),
        ..VARIABLE
    },
    Spec {
        name: "leader_comm",
        form: LATER,
        returns: Returns::Computed("the leader's `comm`, from BTF"),
        doc: "The process's name: its thread group leader's `comm`, `curtask->group_leader->comm` (needs BTF); `leader_comm(task)` reads another task's.",
        example: "tracepoint:syscalls:sys_enter_read { @[leader_comm] = count(); }",
        check: Check::Var(|cx, name, span| cx.task_field(name, None, span)),
        ..VARIABLE
    },
    Spec {
        name: "leader_tid",
        form: LATER,
        returns: Returns::Computed("the leader's `pid`, from BTF"),
        doc: "The thread group leader's thread id, `curtask->group_leader->pid` (needs BTF); `leader_tid(task)` reads another task's.",
        example: "tracepoint:syscalls:sys_enter_read { @[leader_tid] = count(); }",
        check: Check::Var(|cx, name, span| cx.task_field(name, None, span)),
        ..VARIABLE
    },
    Spec {
        name: "ncpus",
        form: LATER,
        returns: Returns::Type(&Type::U32),
        doc: "The number of online CPUs when the program is compiled.",
        example: "BEGIN { printf(\"%d CPUs\\n\", ncpus); }",
        check: Check::Var(|cx, _, span| cx.ncpus(span)),
        ..VARIABLE
    },
    Spec {
        name: "numaid",
        form: LATER,
        returns: Returns::Type(&Type::U32),
        doc: "The NUMA node of the current CPU.",
        example: "tracepoint:sched:sched_switch { @[numaid] = count(); }",
        check: Check::Builtin(Builtin::NumaId),
        ..VARIABLE
    },
    Spec {
        name: "rand",
        form: LATER,
        returns: Returns::Type(&Type::U32),
        doc: "A pseudo-random number.",
        example: "tracepoint:syscalls:sys_enter_read /rand % 100 == 0/ { @sampled = count(); }",
        check: Check::Builtin(Builtin::Rand),
        ..VARIABLE
    },
    Spec {
        name: "username",
        form: LATER,
        returns: Returns::Type(&Type::Username),
        doc: "The current user's name in /etc/passwd, found when it is printed (empty when it has none).",
        example: "tracepoint:syscalls:sys_enter_execve { @[username] = count(); }",
        check: Check::Builtin(Builtin::Uid),
        ..VARIABLE
    },
    Spec {
        name: "jiffies",
        form: LATER,
        returns: Returns::Type(&Type::U64),
        doc: "The kernel's jiffies (`bpf_jiffies64`, Linux 5.5).",
        example: "BEGIN { printf(\"%d\\n\", jiffies); }",
        check: Check::Builtin(Builtin::Jiffies),
        ..VARIABLE
    },
    Spec {
        name: "retval",
        form: NAME,
        returns: Returns::Computed("the function's return type, from BTF where known"),
        doc: "The probed function's return value (kretprobe, uretprobe, fexit).",
        example: "kretprobe:vfs_read { @bytes = hist(retval); }",
        check: Check::Var(|cx, _, span| cx.context(ContextName::Retval, span)),
        ..VARIABLE
    },
    Spec {
        name: super::ARG_N,
        form: NAME,
        returns: Returns::Computed("the argument's type, from BTF where known"),
        doc: "The probed function's arguments `arg0`, `arg1`...: registers `arg0`..`arg5` in kprobes and uprobes, the arguments of fentry, fexit and rawtracepoint probes.",
        example: "kprobe:vfs_read { @[arg2] = count(); }",
        check: Check::Var(|cx, name, span| cx.arg_n(name, span)),
        ..VARIABLE
    },
    Spec {
        name: "regs",
        form: NAME,
        returns: Returns::Computed("`struct pt_regs *` (an integer without BTF)"),
        doc: "The probe's registers (kprobe, uprobe).",
        example: "kprobe:vfs_read { @[regs->di] = count(); }",
        check: Check::Var(|cx, _, span| cx.context(ContextName::Regs, span)),
        ..VARIABLE
    },
    Spec {
        name: "ctx",
        form: NAME,
        returns: Returns::Computed("`struct bpf_iter__NAME *` in `iter:NAME`, from BTF; elsewhere a kernel `void *`"),
        doc: "The probe's context: in an iter probe, the object visited (`ctx.task`, `ctx.file`, `ctx.vma`); in other probes but BEGIN and END its address, to cast (`((struct x *)ctx).x`).",
        example: "iter:task { printf(\"%d %s\\n\", ctx.task.pid, ctx.task.comm); }",
        check: Check::Var(|cx, _, span| cx.context(ContextName::Ctx, span)),
        ..VARIABLE
    },
    Spec {
        name: "caller",
        also: &["func"],
        form: NAME,
        returns: Returns::Computed("a symbol; in uprobes the function's name"),
        doc: "The probed function (kprobe, kretprobe, fentry, fexit, uprobe), printed as its name.",
        example: "kprobe:vfs_read { @[func] = count(); }",
        check: Check::Var(|cx, _, span| cx.context(ContextName::Caller, span)),
        ..VARIABLE
    },
    Spec {
        name: "curtask",
        form: NAME,
        returns: Returns::Computed("`struct task_struct *` (an integer without BTF)"),
        doc: "The current task.",
        example: "tracepoint:syscalls:sys_enter_read { @[curtask] = count(); }",
        check: Check::Var(|cx, _, span| cx.curtask(span)),
        ..VARIABLE
    },
    Spec {
        name: "probe",
        form: NAME,
        returns: Returns::Computed("a string, a constant of each probe"),
        doc: "The name of the probe that fired, as `provider:definition`.",
        example: "tracepoint:syscalls:sys_enter_read, tracepoint:syscalls:sys_enter_write { @[probe] = count(); }",
        check: Check::Var(|cx, _, span| cx.probe_name(span)),
        ..VARIABLE
    },
    Spec {
        name: "kstack",
        form: NAME,
        returns: Returns::Computed("a stack, printed one frame a line"),
        doc: "The kernel stack, 127 frames at most; `kstack(mode, frames)` chooses how it prints and how deep it goes.",
        example: "profile:hz:99 { @[kstack] = count(); }",
        check: Check::Var(|cx, name, span| cx.stack_variable(name, span)),
        ..VARIABLE
    },
    Spec {
        name: "ustack",
        form: NAME,
        returns: Returns::Computed("a stack, printed one frame a line"),
        doc: "The user stack (frame pointers), symbolized from the process's mappings when printed.",
        example: "profile:hz:99 { @[ustack] = count(); }",
        check: Check::Var(|cx, name, span| cx.stack_variable(name, span)),
        ..VARIABLE
    },
    Spec {
        name: "stack",
        form: NAME,
        returns: Returns::Computed("a stack, printed one frame a line"),
        doc: "ply's name for `kstack`.",
        example: "profile:hz:99 { @[stack] = count(); }",
        check: Check::Var(|cx, name, span| cx.stack_variable(name, span)),
        ..VARIABLE
    },
    Spec {
        name: "usermode",
        returns: Returns::Type(&Type::U8),
        doc: "1 when the probe fired in user mode (uprobes, BEGIN, END; a profile sample of user code), else 0.",
        example: "profile:hz:99 { @[usermode] = count(); }",
        check: Check::Var(|cx, _, span| cx.usermode(span)),
        ..VARIABLE
    },
    Spec {
        name: "probetype",
        returns: Returns::Computed("a string"),
        doc: "The provider of the probe that fired: `tracepoint`, `kprobe`, `uprobe`... (`special` for BEGIN and END).",
        example: "tracepoint:syscalls:sys_enter_openat, kprobe:vfs_open { @[probetype] = count(); }",
        check: Check::Var(|cx, _, span| cx.probe_type(span)),
        ..VARIABLE
    },
];
