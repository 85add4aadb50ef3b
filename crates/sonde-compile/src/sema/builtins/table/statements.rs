//! The builtin statements: calls that give nothing.

use crate::sema::builtins::spec::{any, arg, base, opt, Check, Form, Kind, Param, Spec};

const STATEMENT: Spec = base(Form::Statement, Check::Stmt(|cx, c| cx.usage_error(c)));

/// printf's and its kin's: a format, then the values it formats.
const FORMATTED: &[Param] = &[arg("format", Kind::StrLiteral), any("value", Kind::Value)];

pub const STATEMENTS: &[Spec] = &[
    Spec {
        name: "printf",
        params: FORMATTED,
        takes: "a format string literal, then the values it formats, like `printf(\"%d\\n\", pid)`",
        doc: "Prints the values as the format says: `%d %i %u %x %X %o %s %c %p %%`, flags, widths and precisions as printf(3)'s, `%r` for `buf()`, and ply's `%v` for any value as `print` shows it.",
        example: "tracepoint:syscalls:sys_enter_openat { printf(\"%s %s\\n\", comm, str(args.filename)); }",
        check: Check::Stmt(|cx, c| cx.printf(c)),
        ..STATEMENT
    },
    Spec {
        name: "debugf",
        params: FORMATTED,
        takes: "a format string literal, then at most three values it formats, like `debugf(\"%d\", pid)`",
        doc: "Writes the text to the kernel's tracing buffer (`/sys/kernel/tracing/trace_pipe`) with bpf_trace_printk, for debugging: integers and strings only.",
        example: "tracepoint:syscalls:sys_enter_openat { debugf(\"open by %d\", pid); }",
        check: Check::Stmt(|cx, c| cx.debugf(c)),
        ..STATEMENT
    },
    Spec {
        name: "print",
        params: &[any("value", Kind::Value)],
        takes: "values, or a map and how many of its largest entries to print, like `print(@m, 10)`",
        doc: "Prints values in their default formats; `print(@m)` prints a map, `print(@m, N)` its N largest entries (`print(@m, N, D)`: each value divided by D, as bpftrace).",
        example: "tracepoint:syscalls:sys_enter_read { @[comm] = count(); } interval:1s { print(@, 5); clear(@); }",
        check: Check::Stmt(|cx, c| cx.print(c)),
        ..STATEMENT
    },
    Spec {
        name: "exit",
        params: &[opt("code", Kind::Integer)],
        takes: "at most one argument, the exit code",
        doc: "Stops tracing: END runs, the maps are printed, and sonde exits with the code.",
        example: "interval:5s { exit(); }",
        check: Check::Stmt(|cx, c| cx.exit(c)),
        ..STATEMENT
    },
    Spec {
        name: "clear",
        params: &[arg("map", Kind::Map)],
        takes: "one map, e.g. `clear(@name)`",
        doc: "Removes every element of a map.",
        example: "tracepoint:syscalls:sys_enter_read { @[comm] = count(); } interval:1s { print(@); clear(@); }",
        check: Check::Stmt(|cx, c| cx.clear(c, false)),
        ..STATEMENT
    },
    Spec {
        name: "zero",
        params: &[arg("map", Kind::Map)],
        takes: "one map, e.g. `zero(@name)`",
        doc: "Sets every value of a map to zero and keeps its keys (`clear(@m)` removes them).",
        example: "tracepoint:syscalls:sys_enter_read { @[comm] = count(); } interval:1s { print(@); zero(@); }",
        check: Check::Stmt(|cx, c| cx.clear(c, true)),
        ..STATEMENT
    },
    Spec {
        name: "cat",
        params: FORMATTED,
        takes: "a file name as a printf format string literal, then the values it formats, like `cat(\"/proc/%d/status\", pid)`",
        doc: "Prints a file's contents (its first `max_cat_bytes`, 10240 unless configured) when the record is printed.",
        example: "interval:1s { cat(\"/proc/loadavg\"); }",
        check: Check::Stmt(|cx, c| cx.formatted(c)),
        ..STATEMENT
    },
    Spec {
        name: "signal",
        params: &[arg("signal", Kind::Signal)],
        takes: "one signal, like `signal(\"SIGKILL\")`",
        doc: "Sends the current process a signal (`\"SIGKILL\"`, `\"KILL\"` or a number); only with `--unsafe`.",
        example: "tracepoint:syscalls:sys_enter_openat /comm == \"victim\"/ { signal(\"SIGSTOP\"); }",
        check: Check::Stmt(|cx, c| cx.signal(c)),
        ..STATEMENT
    },
    Spec {
        name: "join",
        params: &[arg("array", Kind::Address), opt("separator", Kind::StrLiteral)],
        takes: "an array of string pointers and an optional separator literal, like `join(args.argv, \",\")`",
        doc: "Prints the strings of a NULL-ended array of string pointers on one line (at most 16 of 1024 bytes).",
        example: "tracepoint:syscalls:sys_enter_execve { join(args.argv); }",
        check: Check::Stmt(|cx, c| cx.join(c)),
        ..STATEMENT
    },
    Spec {
        name: "warnf",
        params: FORMATTED,
        takes: "a format string literal, then the values it formats, like `warnf(\"%d\\n\", pid)`",
        doc: "printf to stderr as `FILE:LINE:COL-COL: WARNING: text`.",
        example: "tracepoint:syscalls:sys_exit_openat /args.ret < 0/ { warnf(\"%s: %d\", comm, args.ret); }",
        check: Check::Stmt(|cx, c| cx.formatted(c)),
        ..STATEMENT
    },
    Spec {
        name: "errorf",
        params: FORMATTED,
        takes: "a format string literal, then the values it formats, like `errorf(\"%d\\n\", pid)`",
        doc: "printf to stderr as `FILE:LINE:COL-COL: ERROR: text`.",
        example: "tracepoint:syscalls:sys_exit_openat /args.ret < 0/ { errorf(\"%s: %d\", comm, args.ret); }",
        check: Check::Stmt(|cx, c| cx.formatted(c)),
        ..STATEMENT
    },
    Spec {
        name: "system",
        params: FORMATTED,
        takes: "a format string literal, then the values it formats, like `system(\"%d\\n\", pid)`",
        doc: "Runs the formatted text with `sh -c` when its record is read and prints its output; only with `--unsafe`.",
        example: "interval:1s { system(\"uptime\"); }",
        check: Check::Stmt(|cx, c| cx.formatted(c)),
        ..STATEMENT
    },
    Spec {
        name: "override",
        params: &[arg("rc", Kind::Integer)],
        takes: "the return value, like `override(-12)`",
        doc: "Makes the probed kernel function return `rc` without running (a kprobe at a function's entry, CONFIG_BPF_KPROBE_OVERRIDE); only with `--unsafe`.",
        example: "kprobe:vfs_read /comm == \"victim\"/ { override(-5); }",
        check: Check::Stmt(|cx, c| cx.override_return(c)),
        ..STATEMENT
    },
    Spec {
        name: "time",
        params: &[opt("format", Kind::StrLiteral)],
        takes: "an optional strftime format string literal, like `time(\"%H:%M:%S \")`",
        doc: "Prints the local time in a strftime(3) format, `\"%H:%M:%S\\n\"` by default.",
        example: "interval:1s { time(); }",
        check: Check::Stmt(|cx, c| cx.time(c)),
        ..STATEMENT
    },
];
