//! The builtin functions: calls that are values.

use crate::model::types::Type;
use crate::sema::builtins::spec::{any, arg, base, many, opt, Check, Form, Kind, Returns, Spec};

const FUNCTION: Spec = base(Form::Function, Check::Value(|cx, c| cx.usage(c)));

/// `pid(ns)` and `tid(ns)`: the namespace the id is seen from.
const TASK_ID: Spec = Spec {
    params: &[opt("namespace", Kind::Value)],
    takes: "an optional pid namespace: `curr_ns` (sonde's, the default) or `init`",
    returns: Returns::Type(&Type::U32),
    ..FUNCTION
};
const STACK_TAKES: &str =
    "a mode (`bpftrace`, `perf` or `raw`) and a constant number of frames, both optional";
const STACK_PARAMS: &[crate::sema::builtins::spec::Param] =
    &[opt("mode", Kind::Mode), opt("frames", Kind::Constant)];
const STACK_RETURNS: Returns = Returns::Computed("a stack, printed one frame a line");

pub const FUNCTIONS: &[Spec] = &[
    Spec {
        name: "str",
        also: &["dyn"],
        params: &[arg("addr", Kind::Address), opt("size", Kind::Constant)],
        takes: "an address and an optional size",
        returns: Returns::Computed("a string of `size` bytes (the string size, 64, by default)"),
        doc: "The NUL-ended string at an address; `str($N)` is a positional parameter's text.",
        example: "tracepoint:syscalls:sys_enter_openat { printf(\"%s\\n\", str(args.filename)); }",
        check: Check::Value(|cx, c| cx.read_string(c)),
        ..FUNCTION
    },
    Spec {
        name: "mem",
        params: &[arg("addr", Kind::Address), opt("size", Kind::Constant)],
        takes: "an address and an optional size",
        returns: Returns::Computed("`size` bytes (64 by default), printed as hex"),
        doc: "The bytes at an address.",
        example: "tracepoint:syscalls:sys_enter_write { print(mem(args.buf, 16)); }",
        check: Check::Value(|cx, c| cx.read_string(c)),
        ..FUNCTION
    },
    Spec {
        name: "strcmp",
        params: &[arg("a", Kind::String), arg("b", Kind::String)],
        takes: "two strings",
        returns: Returns::Type(&Type::S64),
        doc: "Compares two strings as strcmp(3) does: -1, 0 or 1.",
        example: "tracepoint:syscalls:sys_enter_openat /strcmp(comm, \"bash\") == 0/ { @opens = count(); }",
        check: Check::Value(|cx, c| cx.compare_strings(c)),
        ..FUNCTION
    },
    Spec {
        name: "strncmp",
        params: &[arg("a", Kind::String), arg("b", Kind::String), arg("n", Kind::Constant)],
        takes: "two strings and a length",
        returns: Returns::Type(&Type::S64),
        doc: "Compares the first `n` bytes of two strings at most (a constant `n`).",
        example: "tracepoint:syscalls:sys_enter_openat /strncmp(comm, \"sys\", 3) == 0/ { @opens = count(); }",
        check: Check::Value(|cx, c| cx.compare_strings(c)),
        ..FUNCTION
    },
    Spec {
        name: "strcontains",
        params: &[arg("haystack", Kind::String), arg("needle", Kind::String)],
        takes: "two strings",
        returns: Returns::Type(&Type::Bool),
        doc: "True when the second string occurs in the first (an empty one occurs in every string).",
        example: "tracepoint:syscalls:sys_enter_openat /strcontains(str(args.filename), \"/etc/\")/ { @[comm] = count(); }",
        check: Check::Value(|cx, c| cx.str_contains(c)),
        ..FUNCTION
    },
    Spec {
        name: "str_concat",
        params: &[arg("a", Kind::String), arg("b", Kind::String)],
        takes: "two strings",
        returns: Returns::Computed("a string as long as both (at most 1024 bytes)"),
        doc: "The first string followed by the second.",
        example: "tracepoint:syscalls:sys_enter_openat { @[str_concat(comm, \":\")] = count(); }",
        check: Check::Value(|cx, c| cx.str_concat(c)),
        ..FUNCTION
    },
    Spec {
        name: "reg",
        params: &[arg("name", Kind::StrLiteral)],
        takes: "a register's name, like `reg(\"ip\")`",
        returns: Returns::Type(&Type::U64),
        doc: "A kprobe's or uprobe's register, by its name in x86-64's `struct pt_regs`.",
        example: "kprobe:vfs_read { @[ksym(reg(\"ip\"))] = count(); }",
        check: Check::Value(|cx, c| cx.register(c)),
        ..FUNCTION
    },
    Spec {
        name: "ksym",
        params: &[arg("addr", Kind::Integer)],
        takes: "one address",
        returns: Returns::Type(&Type::Sym),
        doc: "A kernel address, printed as its symbol.",
        example: "kprobe:vfs_read { @[ksym(reg(\"ip\"))] = count(); }",
        check: Check::Value(|cx, c| cx.symbol(c)),
        ..FUNCTION
    },
    Spec {
        name: "usym",
        params: &[arg("addr", Kind::Integer)],
        takes: "one address",
        returns: Returns::Type(&Type::USym),
        doc: "A user address of the traced process (`-p`, `-c`), printed as its symbol.",
        example: "uprobe:bash:readline { @[usym(reg(\"ip\"))] = count(); }",
        check: Check::Value(|cx, c| cx.symbol(c)),
        ..FUNCTION
    },
    Spec {
        name: "uptr",
        params: &[arg("ptr", Kind::Address)],
        takes: "one address",
        returns: Returns::Computed("the pointer, into the process's memory"),
        doc: "ply's: the pointer points into the process's memory, so `str`, `mem` and `->` read it with the user-memory helpers.",
        example: "kprobe:do_sys_openat2 { printf(\"%s\\n\", str(uptr(arg1))); }",
        check: Check::Value(|cx, c| cx.address_space(c)),
        ..FUNCTION
    },
    Spec {
        name: "kptr",
        params: &[arg("ptr", Kind::Address)],
        takes: "one address",
        returns: Returns::Computed("the pointer, into kernel memory"),
        doc: "bpftrace's: the pointer points into kernel memory.",
        example: "kprobe:vfs_read { @[kptr(arg0)] = count(); }",
        check: Check::Value(|cx, c| cx.address_space(c)),
        ..FUNCTION
    },
    Spec {
        name: "strftime",
        params: &[arg("format", Kind::StrLiteral), arg("ns", Kind::Integer)],
        takes: "a format string literal and a timestamp, like `strftime(\"%H:%M:%S\", nsecs)`",
        returns: Returns::Computed("the timestamp, formatted when it is printed"),
        doc: "A timestamp (`nsecs`), printed as local time in a strftime(3) format (`%f` is microseconds).",
        example: "BEGIN { printf(\"%s\\n\", strftime(\"%H:%M:%S.%f\", nsecs)); }",
        check: Check::Value(|cx, c| cx.strftime(c)),
        ..FUNCTION
    },
    Spec {
        name: "delete",
        params: &[arg("map", Kind::Map), any("key", Kind::Value)],
        takes: "a map and its key, like `delete(@m, pid)` (no key for a map without keys, `delete(@n)`)",
        returns: Returns::Type(&Type::Bool),
        doc: "Removes the map's element: true when it was there (also a statement, `delete @m[key]`); `delete(@n)` removes a key-less map's value.",
        example: "tracepoint:syscalls:sys_exit_read { $had = delete(@start, tid); } tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; }",
        check: Check::Value(|cx, c| cx.map_element(c)),
        ..FUNCTION
    },
    Spec {
        name: "has_key",
        params: &[arg("map", Kind::Map), many("key", Kind::Value)],
        takes: "a map and its key, like `has_key(@m, pid)`",
        returns: Returns::Type(&Type::Bool),
        doc: "True when the map holds the element.",
        example: "tracepoint:syscalls:sys_exit_read /has_key(@start, tid)/ { @ns = hist(nsecs - @start[tid]); } tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; }",
        check: Check::Value(|cx, c| cx.map_element(c)),
        ..FUNCTION
    },
    Spec {
        name: "find",
        params: &[arg("map", Kind::Map), arg("key", Kind::Value), arg("var", Kind::Value)],
        takes: "a map, its key and a variable, like `find(@m, pid, $v)`",
        returns: Returns::Type(&Type::Bool),
        doc: "True, with the element's value in the variable, when the map holds the element (one lookup); false, the variable unchanged, when not.",
        example: "tracepoint:syscalls:sys_exit_read { let $t; if (find(@start, tid, $t)) { @ns = hist(nsecs - $t); } } tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; }",
        check: Check::Value(|cx, c| cx.find(c)),
        ..FUNCTION
    },
    Spec {
        name: "is_err",
        params: &[arg("ptr", Kind::Integer)],
        takes: "one pointer",
        returns: Returns::Type(&Type::Bool),
        doc: "True when a pointer holds an error number, as the kernel's `IS_ERR()`: -4095 to -1.",
        example: "kretprobe:do_filp_open /is_err(retval)/ { @errors[(int64)retval] = count(); }",
        check: Check::Value(|cx, c| cx.is_err(c)),
        ..FUNCTION
    },
    Spec {
        name: "kaddr",
        params: &[arg("symbol", Kind::StrLiteral)],
        takes: "a symbol name as a string literal, like `kaddr(\"jiffies\")`",
        returns: Returns::Type(&Type::U64),
        doc: "A kernel symbol's address in /proc/kallsyms when the program is compiled (data symbols need CONFIG_KALLSYMS_ALL).",
        example: "BEGIN { printf(\"%x\\n\", kaddr(\"vfs_read\")); }",
        check: Check::Value(|cx, c| cx.kaddr(c)),
        ..FUNCTION
    },
    Spec {
        name: "percpu_kaddr",
        params: &[arg("symbol", Kind::StrLiteral), opt("cpu", Kind::Value)],
        takes: "a per-CPU variable's name as a string literal and an optional CPU, like `percpu_kaddr(\"runqueues\", 0)`",
        returns: Returns::Computed("a kernel pointer typed as the variable"),
        doc: "The address of a per-CPU kernel variable (from the kernel's BTF) on the given CPU, or on the CPU running the probe; 0 for a CPU that does not exist.",
        example: "BEGIN { printf(\"%d\\n\", *percpu_kaddr(\"process_counts\", 0)); }",
        check: Check::Value(|cx, c| cx.percpu_kaddr(c)),
        ..FUNCTION
    },
    Spec {
        name: "uaddr",
        params: &[arg("symbol", Kind::StrLiteral)],
        takes: "a symbol name as a string literal, like `uaddr(\"counter\")`",
        returns: Returns::Computed("a pointer into the process, typed by the symbol's size"),
        doc: "The address of a symbol (a global variable, say) of the uprobe's executable, from its symbol table when the program is compiled; not for position-independent executables.",
        example: "uprobe:/usr/bin/bash:readline { printf(\"%d\\n\", *uaddr(\"line_number\")); }",
        check: Check::Value(|cx, c| cx.uaddr(c)),
        ..FUNCTION
    },
    Spec {
        name: "ntop",
        params: &[opt("family", Kind::Integer), arg("addr", Kind::Value)],
        takes: "an address and an optional family first, like `ntop(AF_INET, addr)`",
        returns: Returns::Type(&Type::Inet),
        doc: "An IP address (an integer is IPv4, 16 bytes IPv6), printed as inet_ntop(3) writes it.",
        example: "BEGIN { printf(\"%s\\n\", ntop(0x0100007f)); }",
        check: Check::Value(|cx, c| cx.ntop(c)),
        ..FUNCTION
    },
    Spec {
        name: "cgroup_path",
        params: &[arg("id", Kind::Integer)],
        takes: "one integer, like `cgroup_path(cgroup)`",
        returns: Returns::Type(&Type::CgroupPath),
        doc: "A cgroup id, printed as bpftrace prints it: `unified:` and the path of its cgroup2 directory.",
        example: "tracepoint:syscalls:sys_enter_read { @[cgroup_path(cgroup)] = count(); }",
        check: Check::Value(|cx, c| cx.printed_as(c)),
        ..FUNCTION
    },
    Spec {
        name: "strerror",
        params: &[arg("errno", Kind::Integer)],
        takes: "one integer, like `strerror(-args.ret)`",
        returns: Returns::Type(&Type::Strerror),
        doc: "An error number, printed as strerror(3)'s text.",
        example: "tracepoint:syscalls:sys_exit_openat /args.ret < 0/ { @[strerror(-args.ret)] = count(); }",
        check: Check::Value(|cx, c| cx.printed_as(c)),
        ..FUNCTION
    },
    Spec {
        name: "sizeof",
        params: &[arg("what", Kind::TypeOrValue)],
        takes: "a type or a value, like `sizeof(struct task_struct)`",
        returns: Returns::Type(&Type::U64),
        doc: "The size in bytes of a type or of a value's type, a constant.",
        example: "BEGIN { printf(\"%d\\n\", sizeof(comm)); }",
        check: Check::Value(|cx, c| cx.size_of(c)),
        ..FUNCTION
    },
    Spec {
        name: "len",
        params: &[arg("of", Kind::Value)],
        takes: "one string, map or stack, like `len(comm)`, `len(@m)` or `len(ustack)`",
        returns: Returns::Computed("an integer"),
        doc: "A string's bytes before its NUL; a map's elements (`len(@m)`); the frames of the stack taken here (`len(kstack)`).",
        example: "tracepoint:syscalls:sys_enter_openat { @[len(str(args.filename))] = count(); }",
        check: Check::Value(|cx, c| cx.len(c)),
        ..FUNCTION
    },
    Spec {
        name: "buf",
        params: &[arg("addr", Kind::Address), opt("length", Kind::Integer)],
        takes: "an address and a length, like `buf(args.buf, args.count)`",
        returns: Returns::Computed("up to the string size (64) of bytes"),
        doc: "Raw memory, printed by `%r` (or `%s`) with the bytes that are not printable ASCII as `\\xNN`.",
        example: "tracepoint:syscalls:sys_enter_write { printf(\"%r\\n\", buf(args.buf, args.count)); }",
        check: Check::Value(|cx, c| cx.buf(c)),
        ..FUNCTION
    },
    Spec {
        name: "offsetof",
        params: &[arg("type", Kind::Type), arg("member", Kind::Member)],
        takes: "a struct and a member, like `offsetof(struct task_struct, comm)`",
        returns: Returns::Type(&Type::U64),
        doc: "The offset of a member (`a.b` for a nested one) in a struct, a constant.",
        example: "struct Pair { int a; long b; } BEGIN { printf(\"%d\\n\", offsetof(struct Pair, b)); }",
        check: Check::Value(|cx, c| cx.offset_of(c)),
        ..FUNCTION
    },
    Spec {
        name: "container_of",
        params: &[arg("ptr", Kind::Integer), arg("type", Kind::Type), arg("member", Kind::Member)],
        takes: "a pointer, a struct and its member, like `container_of($p, struct task_struct, tasks)`",
        returns: Returns::Computed("a pointer to the struct"),
        doc: "The struct a pointer to one of its members is in (the type also as `typeof(struct T)`).",
        example: "struct Pair { int a; long b; } BEGIN { $p = (struct Pair *)0x1000; printf(\"%d\\n\", container_of((long *)0x1008, struct Pair, b) == $p); }",
        check: Check::Value(|cx, c| cx.container_of(c)),
        ..FUNCTION
    },
    Spec {
        name: "bswap",
        params: &[arg("x", Kind::Integer)],
        takes: "one integer",
        returns: Returns::Computed("an unsigned integer of x's size"),
        doc: "The integer with its bytes in reverse order, by the size of its type.",
        example: "BEGIN { printf(\"%x\\n\", bswap((uint32)0x12345678)); }",
        check: Check::Value(|cx, c| cx.bswap(c)),
        ..FUNCTION
    },
    Spec {
        name: "getopt",
        params: &[arg("name", Kind::StrLiteral), opt("default", Kind::Literal), opt("about", Kind::Text)],
        takes: "an option name as a string literal, then an optional default and description, like `getopt(\"depth\", 35, \"Maximum depth\")`",
        returns: Returns::Computed("the default's type: an integer or a string"),
        doc: "A named option given after the program (`-- --name=value`), a constant; without a default a boolean.",
        example: "BEGIN { printf(\"%d\\n\", getopt(\"depth\", 35, \"Maximum depth\")); }",
        check: Check::Value(|cx, c| cx.getopt(c)),
        ..FUNCTION
    },
    Spec {
        name: "syscall_name",
        params: &[arg("nr", Kind::Integer)],
        takes: "a syscall number, like `syscall_name(args.id)`",
        returns: Returns::Type(&Type::SyscallName),
        doc: "A syscall number, printed as the syscall's name.",
        example: "tracepoint:raw_syscalls:sys_enter { @[syscall_name(args.id)] = count(); }",
        check: Check::Value(|cx, c| cx.printed_as(c)),
        ..FUNCTION
    },
    Spec {
        name: "kstack",
        params: STACK_PARAMS,
        takes: STACK_TAKES,
        usage_help: Some("for example `kstack(perf, 5)`, `kstack(5)` or `kstack(raw)`"),
        returns: STACK_RETURNS,
        doc: "The kernel stack, printed as `mode` says (`bpftrace`, `perf`, `raw`) and `frames` deep at most (1 to 127, a stack map of its own).",
        example: "profile:hz:99 { @[kstack(perf, 3)] = count(); }",
        check: Check::Value(|cx, c| cx.stack_call(c)),
        ..FUNCTION
    },
    Spec {
        name: "ustack",
        params: STACK_PARAMS,
        takes: STACK_TAKES,
        usage_help: Some("for example `ustack(perf, 5)`, `ustack(5)` or `ustack(raw)`"),
        returns: STACK_RETURNS,
        doc: "The user stack, as `kstack()` takes the kernel's.",
        example: "profile:hz:99 { @[ustack(raw)] = count(); }",
        check: Check::Value(|cx, c| cx.stack_call(c)),
        ..FUNCTION
    },
    Spec {
        name: "stack",
        params: STACK_PARAMS,
        takes: STACK_TAKES,
        usage_help: Some("for example `stack(perf, 5)`, `stack(5)` or `stack(raw)`"),
        returns: STACK_RETURNS,
        doc: "ply's name for `kstack()`.",
        example: "profile:hz:99 { @[stack(5)] = count(); }",
        check: Check::Value(|cx, c| cx.stack_call(c)),
        ..FUNCTION
    },
    Spec {
        name: "nsecs",
        params: &[opt("clock", Kind::Value)],
        takes: "an optional clock: `monotonic` (the default), `boot` or `tai`",
        returns: Returns::Type(&Type::U64),
        doc: "Nanoseconds on a clock: `monotonic` (as `nsecs`), `boot` (suspend included, Linux 5.8) or `tai` (International Atomic Time, 6.1).",
        example: "BEGIN { printf(\"%llu\\n\", nsecs(boot)); }",
        check: Check::Value(|cx, c| cx.nsecs_of(c)),
        ..FUNCTION
    },
    Spec {
        name: "pid",
        doc: "The current process's id as seen from sonde's pid namespace (`curr_ns`, as `pid`) or the initial one (`init`; Linux 5.7 inside a namespace).",
        example: "tracepoint:syscalls:sys_enter_read { @[pid(init)] = count(); }",
        check: Check::Value(|cx, c| cx.task_id_of(c, false)),
        ..TASK_ID
    },
    Spec {
        name: "tid",
        doc: "The current thread's id as seen from sonde's pid namespace (`curr_ns`, as `tid`) or the initial one (`init`).",
        example: "tracepoint:syscalls:sys_enter_read { @[tid(init)] = count(); }",
        check: Check::Value(|cx, c| cx.task_id_of(c, true)),
        ..TASK_ID
    },
    Spec {
        name: "strlen",
        params: &[arg("s", Kind::String)],
        takes: "one string",
        returns: Returns::Type(&Type::U64),
        doc: "The string's bytes before its NUL, as `len(s)`.",
        example: "tracepoint:syscalls:sys_enter_openat { @[strlen(str(args.filename))] = count(); }",
        check: Check::Value(|cx, c| cx.strlen(c)),
        ..FUNCTION
    },
    Spec {
        name: "pton",
        params: &[arg("address", Kind::StrLiteral)],
        takes: "an IP address as a string literal, like `pton(\"127.0.0.1\")`",
        returns: Returns::Computed("an IPv4 address as an integer (its bytes in network order), an IPv6 address as 16 bytes"),
        doc: "An IP address written as text, in the form `ntop()` takes, a constant.",
        example: "BEGIN { printf(\"%s\\n\", ntop(pton(\"127.0.0.1\"))); }",
        check: Check::Value(|cx, c| cx.pton(c)),
        ..FUNCTION
    },
    Spec {
        name: "signal_name",
        params: &[arg("signal", Kind::Integer)],
        takes: "a signal number, like `signal_name(args.sig)`",
        returns: Returns::Type(&Type::SignalName),
        doc: "A signal number, printed as strsignal(3)'s text (`Interrupt`).",
        example: "BEGIN { printf(\"%s\\n\", signal_name(15)); }",
        check: Check::Value(|cx, c| cx.signal_name(c)),
        ..FUNCTION
    },
    Spec {
        name: "macaddr",
        params: &[arg("bytes", Kind::Value)],
        takes: "6 bytes, like `macaddr($s.mac)` of a `char mac[6]`",
        returns: Returns::Type(&Type::MacAddr),
        doc: "Six bytes, printed as a MAC address: `00:1A:2B:3C:4D:5E`.",
        example: "BEGIN { printf(\"%s\\n\", macaddr(\"\\x00\\x1a\\x2b\\x3c\\x4d\\x5e\")); }",
        check: Check::Value(|cx, c| cx.macaddr(c)),
        ..FUNCTION
    },
];
