use super::*;
use crate::filter::parse_program;
use crate::fixtures::fixtures;
use sonde_compile::Options;

fn table() -> SyscallTable {
    SyscallTable::load(&fixtures()).unwrap()
}

fn plan<'a>(t: &'a SyscallTable, sel: &'a Selection, mode: Mode) -> Plan<'a> {
    Plan { mode, ..crate::fixtures::plan(t, sel) }
}

/// The program must compile with sonde's compiler against the kernel's formats.
pub(super) fn compiles(p: &Plan) -> String {
    let text = p.program();
    let opts = Options::new();
    let checked = parse_program(&text, p.filter.as_ref())
        .and_then(|ast| sonde_compile::check(&ast, &fixtures(), &opts))
        .and_then(|typed| sonde_compile::lower(&typed, &opts));
    if let Err(d) = checked {
        panic!("{text}\n{d:?}");
    }
    text
}

fn filter(text: &str) -> Option<Filter> {
    Some(Filter::parse(text).unwrap())
}

#[test]
fn a_few_syscalls_use_their_own_tracepoints_with_named_arguments() {
    let t = table();
    let sel = Selection::parse("openat,getpid", &t).unwrap();
    let text = compiles(&plan(&t, &sel, Mode::Lines));
    assert!(
        text.contains("tracepoint:syscalls:sys_enter_openat /(pid == 42 || tr[tid])/"),
        "{text}"
    );
    assert!(
        text.contains("args->dfd, args->filename, args->flags, args->mode, 0, 0, comm"),
        "{text}"
    );
    assert!(text.contains("print(11, tid, str(args->filename, 256))"), "{text}");
    assert!(text.contains("sched_process_fork"), "children are followed: {text}");
    assert!(!text.contains("raw_syscalls"), "{text}");
}

#[test]
fn everything_uses_raw_syscalls_without_a_set() {
    let t = table();
    let sel = Selection::everything(&t);
    let mut p = plan(&t, &sel, Mode::Lines);
    p.targets = Targets::AllBut(7);
    p.follow = false;
    let text = compiles(&p);
    assert!(text.contains("tracepoint:raw_syscalls:sys_enter /pid != 7/"), "{text}");
    assert!(
        text.contains(
            "$k = sk[args->id]; if ($k & 2) { print(11, tid, str(args->args[1], 256)); \
             if (args->args[1] != 0 && strncmp(str(args->args[1], 2), \"\", 1) == 0) \
             { ur[tid, 1] = args->args[1]; } }"
        ),
        "{text}"
    );
    // Which arguments are strings: one lookup a call, in a map user space fills (openat's second
    // a path, bit 1; write's second a buffer, bit 8 + 1); BEGIN only types it.
    assert_eq!(p.string_kinds().into_iter().collect::<Vec<_>>(), [(1, 512), (257, 2)]);
    assert!(text.contains("BEGIN { sk[-1] = 0; }"), "{text}");
    // The paths unread at entry are read again at exit, before the exit's record.
    assert!(
        text.contains(&format!(
            "$u1 = ur[tid, 1]; if ($u1) {{ print({}, tid, str($u1, 256)); delete ur[tid, 1]; }}",
            TAG_AGAIN + 1
        )),
        "{text}"
    );
    assert!(
        // strace's 32 bytes, and str()'s NUL.
        text.contains("if ($k & 512) { print(11, tid, str(args->args[1], 33)); }"),
        "write's buffer: {text}"
    );
    assert!(!text.contains("sched_process"), "{text}");
}

#[test]
fn failures_and_durations_are_filtered_in_the_kernel() {
    let t = table();
    let sel = Selection::parse("read,write,openat,accept,kill,fstat,rt_sigreturn", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.failure = true;
    p.duration_ns = Some(5_000_000);
    let text = compiles(&p);
    assert!(text.contains("args->ret < 0/ { $s = st[tid]; $d = nsecs - $s;"), "{text}");
    // Counted as made where it is chosen for a line.
    assert!(
        text.contains("if ($s && $d >= 5000000) { @made = count(); print(2, tid, nsecs,"),
        "{text}"
    );
    let read = text.lines().find(|l| l.contains("sys_enter_read ")).unwrap();
    assert!(!read.contains("str(args->buf"), "read's buffer is filled by the call: {text}");
    assert!(text.contains("print(11, tid, str(args->buf, 33))"), "write's is copied: {text}");
    // More syscalls than PER_SYSCALL_MAX: raw_syscalls, the set compared inline or in a map.
    let ten = Selection { nrs: (0..10).collect(), all: false };
    let text = compiles(&plan(&t, &ten, Mode::Lines));
    assert!(
        text.contains("/(pid == 42 || tr[tid]) && (args->id == 0 || args->id == 1 ||"),
        "{text}"
    );
    let many = Selection { nrs: (0..100).collect(), all: false };
    let text = compiles(&plan(&t, &many, Mode::Summary));
    assert!(text.contains("BEGIN { sel[0] = 1; sel[1] = 1;"), "{text}");
    assert!(text.contains("&& sel[args->id]"), "{text}");
}

#[test]
fn summaries_aggregate_in_maps_and_ship_no_records() {
    let t = table();
    let sel = Selection::everything(&t);
    let text = compiles(&plan(&t, &sel, Mode::Summary));
    assert!(!text.contains("print("), "{text}");
    assert!(text.contains("$id = args->id; @n[tid, $id] = stats($d)"), "{text}");
    assert!(text.contains("names[tid] = comm"), "{text}");
}

#[test]
fn summaries_use_the_btf_raw_tracepoints_where_the_kernel_types_them() {
    let t = table();
    let sel = Selection::everything(&t);
    let mut p = plan(&t, &sel, Mode::Summary);
    p.raw_tracepoints = true;
    // (The fixtures have no BTF to compile it against: the host and VM tests run it.)
    let text = p.program();
    assert!(
        text.contains("rawtracepoint:sys_enter /(pid == 42 || tr[tid])/ { st[tid] = nsecs;"),
        "{text}"
    );
    assert!(text.contains("rawtracepoint:sys_exit"), "{text}");
    assert!(text.contains("$id = arg0->orig_ax;"), "{text}");
    assert!(text.contains("if (arg1 < 0) { @errs[tid, $id, -arg1] = count(); }"), "{text}");
    assert!(!text.contains("raw_syscalls"), "{text}");
    // Lines too, the arguments read from the registers, the children followed on the raw
    // lifecycle tracepoints (no perf event to wait for at detach).
    let lines = Plan { mode: Mode::Lines, ..p.clone() }.program();
    #[cfg(target_arch = "x86_64")]
    assert!(
        lines.contains("print(1, tid, pid, nsecs, arg1, arg0->di, arg0->si, arg0->dx, arg0->r10, arg0->r8, arg0->r9, comm);"),
        "{lines}"
    );
    assert!(
        lines.contains(
            "rawtracepoint:sched_process_fork /(pid == 42 || tr[tid])/ { tr[arg1->pid] = 1; }"
        ),
        "{lines}"
    );
    assert!(lines.contains("rawtracepoint:sched_process_exit"), "{lines}");
    assert!(
        lines.lines().all(|l| l.starts_with("rawtracepoint:") || l.starts_with("BEGIN")),
        "{lines}"
    );
    // A filter naming no argument there too; without BTF, raw_syscalls.
    let filtered = Plan { filter: filter("comm != \"x\""), ..p.clone() }.program();
    assert!(filtered.contains("rawtracepoint:sys_exit"), "{filtered}");
    let plain = Plan { mode: Mode::Lines, raw_tracepoints: false, ..p.clone() }.program();
    assert!(plain.contains("tracepoint:raw_syscalls:sys_enter"), "{plain}");
    assert!(plain.contains("tracepoint:sched:sched_process_fork"), "{plain}");
}

#[test]
fn a_filter_goes_into_each_entry_and_restricts_to_syscalls_naming_its_arguments() {
    let t = table();
    let sel = Selection::everything(&t);
    let mut p = plan(&t, &sel, Mode::Summary);
    p.filter = filter("args->flags & 0x40 && comm != \"sshd\"");
    assert_eq!(p.filter_args(), ["flags"]);
    let text = compiles(&p);
    assert!(
        text.contains(&format!(
            "tracepoint:syscalls:sys_enter_openat /(pid == 42 || tr[tid]) && ({PLACEHOLDER})/"
        )),
        "{text}"
    );
    assert!(!text.contains("sshd"), "the filter's text is never in the program's: {text}");
    assert!(!text.contains("sys_enter_read "), "read has no flags: {text}");
    assert!(!text.contains("raw_syscalls"), "{text}");
    assert!(text.contains("st[tid] = 0;"), "a filtered-out call must not reuse a start: {text}");
    // Without argument names the filter stays on raw_syscalls.
    p.filter = filter("uid == 0");
    let text = compiles(&p);
    assert!(
        text.contains(&format!(
            "tracepoint:raw_syscalls:sys_enter /(pid == 42 || tr[tid]) && ({PLACEHOLDER})/"
        )),
        "{text}"
    );
}

#[test]
fn a_filter_that_fits_no_traced_syscall_points_at_the_argument() {
    let t = table();
    let sel = Selection::parse("getpid", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.filter = filter("comm != \"x\" && args->flags == 1");
    let d = p.filter_misfit().expect("getpid has no flags");
    assert_eq!(d.message, "no traced syscall has the argument `flags`");
    assert_eq!((d.span.lo, d.span.hi), (15, 26), "the caret is under `args->flags`");
    // A near name is offered from the traced syscalls' arguments.
    let sel = Selection::parse("openat", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.filter = filter("args->flag == 1");
    let d = p.filter_misfit().unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `args->flags`?"));
    p.filter = filter("args->flags == 1");
    assert!(p.filter_misfit().is_none());
    // Each argument is some syscall's, none has both: the whole filter is pointed at.
    let sel = Selection::parse("openat,read", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.filter = filter("args->flags == 1 || args->count > 2");
    let d = p.filter_misfit().unwrap();
    assert_eq!(d.message, "no traced syscall has all of args->flags, args->count");
    assert_eq!((d.span.lo, d.span.hi), (0, 35));
}

#[test]
fn threads_and_users_are_selected_in_the_kernel() {
    let t = table();
    let sel = Selection::parse("getpid", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.targets = Targets::Tids(vec![5, 6]);
    p.follow = false;
    p.uid = Some(1000);
    let text = compiles(&p);
    assert!(
        text.contains(
            "tracepoint:syscalls:sys_enter_getpid /(tid == 5 || tid == 6) && uid == 1000/"
        ),
        "{text}"
    );
    p.targets = Targets::AllBut(9);
    let text = compiles(&p);
    assert!(text.contains("/pid != 9 && uid == 1000/"), "{text}");
}

#[test]
fn cpus_are_selected_in_the_kernel() {
    let t = table();
    let sel = Selection::parse("getpid", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.targets = Targets::AllBut(9);
    p.follow = false;
    p.cpus = vec![0, 2, 3];
    let text = compiles(&p);
    let pred = "/pid != 9 && (cpu == 0 || cpu == 2 || cpu == 3)/";
    assert!(text.contains(&format!("tracepoint:syscalls:sys_enter_getpid {pred}")), "{text}");
    assert!(text.contains(&format!("tracepoint:syscalls:sys_exit_getpid {pred}")), "{text}");
}

#[test]
fn stacks_are_taken_at_the_exit() {
    let t = table();
    let sel = Selection::parse("getpid", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    p.stacks = true;
    let text = compiles(&p);
    assert!(text.contains("print(2, tid, nsecs, 39, args->ret, ustack, kstack);"), "{text}");
}

#[test]
fn other_events_print_their_fields() {
    use crate::events::{Event, Field, FieldKind};
    let t = table();
    let sel = Selection::parse("getpid", &t).unwrap();
    let mut p = plan(&t, &sel, Mode::Lines);
    let field = |name: &str, kind| Field { name: name.into(), kind };
    p.events = vec![Event {
        category: "sched".into(),
        name: "sched_process_fork".into(),
        fields: vec![field("parent_comm", FieldKind::Str), field("child_pid", FieldKind::Pid)],
        max_stack: Some(3),
    }];
    let text = p.program();
    assert!(
        text.contains(
            "tracepoint:sched:sched_process_fork /(pid == 42 || tr[tid])/ { print(200, tid, pid, \
             nsecs, comm, str(args->parent_comm, 64), args->child_pid, ustack, kstack); }"
        ),
        "{text}"
    );
    p.mode = Mode::Summary;
    assert!(!p.program().contains("print(200,"), "a summary prints no events");
}

#[test]
fn lines_show_the_fate_where_btf_types_it() {
    let t = table();
    let sel = Selection::parse("openat", &t).unwrap();
    let p = Plan { fate: true, ..plan(&t, &sel, Mode::Lines) };
    let text = p.program();
    assert!(
        text.contains("print(5, tid, pid, nsecs, curtask->exit_code, comm); delete tr[tid];"),
        "{text}"
    );
    assert!(
        text.contains("rawtracepoint:signal_deliver /(pid == 42 || tr[tid]) && arg0 != 9/"),
        "{text}"
    );
    assert!(
        text.contains(
            "rawtracepoint:signal_generate /(arg2->tgid == 42 || tr[arg2->pid]) && arg0 != 9/"
        ),
        "{text}"
    );
    // Summaries show no fate.
    let s = Plan { fate: true, ..plan(&t, &sel, Mode::Summary) }.program();
    assert!(!s.contains("signal_") && !s.contains("exit_code"), "{s}");
}

#[test]
fn rt_sigreturns_exit_is_the_next_exit_of_the_task_its_entry_marked() {
    let t = table();
    let nr = t.by_name("rt_sigreturn").unwrap().nr;
    let sel = Selection::everything(&t);
    let text = compiles(&plan(&t, &sel, Mode::Lines));
    let at = |tp: &str| text.lines().find(|l| l.starts_with(tp)).unwrap().to_string();
    let enter = at("tracepoint:raw_syscalls:sys_enter ");
    assert!(enter.contains(&format!("if (args->id == {nr}) {{ sr[tid] = 1; }}")), "{text}");
    // The restored registers hold no number (-1): only a marked task's such exit passes.
    let exit = at("tracepoint:raw_syscalls:sys_exit ");
    assert!(exit.contains("/((pid == 42 || tr[tid]) && args->id != -1) || sr[tid]/"), "{text}");
    assert!(
        exit.contains(&format!(
            "{{ $id = args->id; if (sr[tid]) {{ $id = {nr}; delete sr[tid]; }} "
        )),
        "{text}"
    );
    assert!(exit.contains("@made = count();"), "counted as any call: {text}");
    assert!(exit.contains("print(2, tid, nsecs, $id, args->ret);"), "{text}");
    // Where BTF types the task, its restored mask is copied before the exit record.
    let p = Plan { fate: true, ..plan(&t, &sel, Mode::Lines) };
    let text = p.program();
    let mask = format!("if ($id == {nr}) {{ print(16, tid, curtask->blocked.sig[0]); }} print(2,");
    assert!(text.contains(&mask), "{text}");
    // At a raw entry, where the registers are, the mask the signal frame holds (x86-64's).
    if cfg!(target_arch = "x86_64") {
        let p = Plan { raw_tracepoints: true, ..plan(&t, &sel, Mode::Lines) };
        let text = p.program();
        let enter = text.lines().find(|l| l.starts_with("rawtracepoint:sys_enter ")).unwrap();
        let frame = format!("if (arg1 == {nr}) {{ print(22, tid, mem(arg0->sp + 296, 8)); }}");
        assert!(enter.contains(&frame), "{text}");
    }
    // A marked task's exit always takes its mark off: with -Z its body checks the failure.
    let p = Plan { failure: true, ..plan(&t, &sel, Mode::Lines) };
    let text = compiles(&p);
    let exit = text.lines().find(|l| l.starts_with("tracepoint:raw_syscalls:sys_exit ")).unwrap();
    assert!(exit.contains("args->id != -1 && args->ret < 0) || sr[tid]/"), "{text}");
    assert!(exit.contains("delete sr[tid]; } if (args->ret < 0) { "), "{text}");
    // Summaries count it at its exit as before: no mark.
    let s = compiles(&plan(&t, &sel, Mode::Summary));
    assert!(!s.contains("sr[tid]"), "{s}");
}

#[test]
fn rt_sigreturn_alone_ends_at_the_exit_every_syscall_shares() {
    let t = table();
    let sel = Selection::parse("rt_sigreturn", &t).unwrap();
    let text = compiles(&plan(&t, &sel, Mode::Lines));
    assert!(
        text.contains("sys_enter_rt_sigreturn /(pid == 42 || tr[tid])/ { sr[tid] = 1; "),
        "{text}"
    );
    // Its own exit tracepoint never fires: the number there is the restored one.
    assert!(!text.contains("sys_exit_rt_sigreturn"), "{text}");
    assert!(
        text.contains("tracepoint:raw_syscalls:sys_exit /sr[tid]/ { delete sr[tid]; "),
        "{text}"
    );
}

#[test]
fn without_memory_copies_string_arguments_go_through_the_programs_functions() {
    let t = table();
    // Raw tracepoints: each string argument a call of copy_path/copy_buffer, the paths read
    // again at exit through read_again, each function defined once before the probes.
    let sel = Selection::everything(&t);
    let p = Plan { copies: false, ..plan(&t, &sel, Mode::Lines) };
    let text = compiles(&p);
    assert!(text.contains("if ($k & 2) { copy_path(11, 1, args->args[1]); }"), "{text}");
    assert!(text.contains("if ($k & 512) { copy_buffer(11, args->args[1]); }"), "{text}");
    assert!(text.contains(&format!("read_again({}, 1); ", TAG_AGAIN + 1)), "{text}");
    let copy_path =
        "fn copy_path($tag: int64, $i: int64, $p: int64) { print($tag, tid, str($p, 256)); \
                     if ($p != 0 && strncmp(str($p, 2), \"\", 1) == 0) { ur[tid, $i] = $p; } }\n";
    assert!(text.starts_with(copy_path), "{text}");
    assert_eq!(text.matches("fn copy_path(").count(), 1, "{text}");
    assert!(text
        .contains("fn copy_buffer($tag: int64, $p: int64) { print($tag, tid, str($p, 33)); }\n"));
    assert!(text.contains(
        "fn read_again($tag: int64, $i: int64) { $u = ur[tid, $i]; if ($u) { print($tag, tid, str($u, 256)); delete ur[tid, $i]; } }\n"
    ));
    // A few syscalls on their own tracepoints call them too.
    let sel = Selection::parse("openat,getpid", &t).unwrap();
    let text = compiles(&Plan { copies: false, ..plan(&t, &sel, Mode::Lines) });
    assert!(text.contains("copy_path(11, 1, args->filename);"), "{text}");
    // No functions where nothing calls them (a summary copies nothing).
    let text = compiles(&Plan { copies: false, ..plan(&t, &sel, Mode::Summary) });
    assert!(!text.contains("fn "), "{text}");
}
