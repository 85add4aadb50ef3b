//! The typed program: what the checker produces and `lower` turns into BPF. Every expression knows
//! its type; maps, variables and output events are resolved to indices.

use super::site::Site;
use super::types::{EnumDef, Type};
use sonde_syntax::ast::{BinOp, Span};
use sonde_syntax::diag::Diagnostic;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub struct TExpr {
    pub kind: TExprKind,
    pub ty: Type,
    pub span: Span,
}

impl TExpr {
    /// This value read as declared with enum `symbols`: printed as its enumerators' names.
    pub fn symbolized(self, symbols: Option<Rc<EnumDef>>) -> TExpr {
        match symbols {
            Some(def) if self.ty.is_scalar() => {
                let span = self.span;
                TExpr { kind: TExprKind::Cast(Box::new(self)), ty: Type::Enum(def), span }
            }
            _ => self,
        }
    }

    /// A signed 64-bit constant (positional parameters, options, enumerators).
    pub fn const_s64(v: i64, span: Span) -> TExpr {
        TExpr { kind: TExprKind::Int(v as u64), ty: Type::S64, span }
    }

    /// A string constant, its type just large enough for the bytes and the NUL.
    pub fn const_str(text: Vec<u8>, span: Span) -> TExpr {
        TExpr { ty: Type::Str(text.len() + 1), kind: TExprKind::Str(text), span }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Thread group id (the user's "pid").
    Pid,
    /// Kernel pid (thread id).
    Tid,
    /// The process's id as seen from sonde's pid namespace (`Options::pid_namespace`), 0 for a
    /// task outside it: bpftrace's `pid` when it runs in a namespace.
    NsPid,
    /// The thread's id, likewise.
    NsTid,
    Uid,
    Gid,
    Cpu,
    /// Nanoseconds since boot (monotonic clock).
    Nsecs,
    /// Nanoseconds since boot, suspended time included: bpftrace's `nsecs(boot)` (5.8).
    NsecsBoot,
    /// International Atomic Time in nanoseconds: bpftrace's `nsecs(tai)` (6.1).
    NsecsTai,
    /// Nanoseconds since sonde started.
    Elapsed,
    /// Name of the current task, char[16].
    Comm,
    /// The probed function's address (kprobes, fentry): `caller`/`func`, printed as a symbol.
    FuncIp,
    /// The current `struct task_struct *`.
    CurTask,
    /// The kernel stack's id in the stack map.
    KStack,
    /// The user stack's id, with the process id above it (symbols come from its mappings).
    UStack,
    /// The current task's cgroup (v2) id: bpftrace's `cgroup`.
    Cgroup,
    /// The NUMA node of the current CPU: bpftrace's `numaid`.
    NumaId,
    /// A pseudo-random u32: bpftrace's `rand`.
    Rand,
    /// The kernel's jiffies (bpf_jiffies64, 5.5): bpftrace's `jiffies`.
    Jiffies,
    /// The program's context pointer (`regs`: the `struct pt_regs *` of kprobes and uprobes).
    Ctx,
}

#[derive(Clone, Debug)]
pub enum TExprKind {
    Int(u64),
    /// A string literal (without the trailing NUL).
    Str(Vec<u8>),
    Builtin(Builtin),
    /// A scalar field of the probe context at this offset (tracepoint record).
    CtxLoad {
        offset: usize,
    },
    /// A char array (or other buffer) inside the context.
    CtxBuf {
        offset: usize,
        len: usize,
    },
    /// A `__data_loc` string: the u32 at `offset` locates it inside the record.
    CtxDataLoc {
        offset: usize,
    },
    Var(usize),
    /// `&$x`: the address of the variable's slot on the BPF stack (bpftrace's `&$a`).
    VarAddr(usize),
    /// Value of a plain map at these keys; zero or an empty string when absent.
    MapGet {
        map: usize,
        keys: Vec<TExpr>,
    },
    /// `has_key(@m, k)`: 1 when the map holds the element.
    MapHas {
        map: usize,
        keys: Vec<TExpr>,
    },
    /// bpftrace's `find(@m, k, $v)`: 1, with the element's value copied to variable `var`, when
    /// the map holds the element; else 0.
    MapFind {
        map: usize,
        keys: Vec<TExpr>,
        var: usize,
    },
    /// `delete(@m, k)` as a value: removes the element, 1 when it was there.
    MapDelete {
        map: usize,
        keys: Vec<TExpr>,
    },
    /// bpftrace's `buf(ptr, len)`: `len` bytes (at most the type's) read from memory, with `len`.
    ReadBuf {
        ptr: Box<TExpr>,
        len: Box<TExpr>,
        user: bool,
    },
    /// bpftrace's `len(str)`: the bytes before the first NUL.
    StrLen(Box<TExpr>),
    /// bpftrace's `len(kstack)`/`len(ustack)`: the frames of the stack taken here, at most
    /// `frames` (lower/stack_len.rs).
    StackLen {
        user: bool,
        frames: u8,
    },
    /// bpftrace's `bswap(x)`: the low `bytes` bytes in reverse order (1 byte: unchanged).
    Bswap {
        arg: Box<TExpr>,
        bytes: u8,
    },
    /// bpftrace's `ntop([family,] addr)`: the family, then the address's 4 or 16 bytes.
    Inet {
        family: Box<TExpr>,
        addr: Box<TExpr>,
    },
    /// bpftrace's tuple `(a, b)`: a buffer of the elements' slots.
    Tuple(Vec<TExpr>),
    /// One element of a tuple (`t.0`), at this byte offset of the tuple's buffer.
    Field {
        base: Box<TExpr>,
        offset: usize,
    },
    Neg(Box<TExpr>),
    Not(Box<TExpr>),
    BitNot(Box<TExpr>),
    /// Arithmetic, bitwise, comparison and logical operators on scalars, and `==`/`!=` on strings.
    Binary {
        op: BinOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
    },
    /// `/` or `%` by a value that is not a constant: as bpftrace, a zero divisor gives 1 and
    /// the runtime warning of event `warning` (lower/division.rs).
    Divide {
        op: BinOp,
        lhs: Box<TExpr>,
        rhs: Box<TExpr>,
        warning: usize,
    },
    Ternary {
        cond: Box<TExpr>,
        then: Box<TExpr>,
        els: Box<TExpr>,
    },
    /// Integer conversion to `ty`.
    Cast(Box<TExpr>),
    /// A call of the program's function `func` (`TProgram::funcs`), its integer arguments in
    /// order: a BPF-to-BPF call of a global function, which the verifier checks once.
    CallFn {
        func: usize,
        args: Vec<TExpr>,
    },
    /// `first`'s statements run, then `value` is the expression's value: `++$a` and `$a++`
    /// inside an expression, where they are evaluated (C's `({ ...; v })`).
    Then {
        first: Vec<TStmt>,
        value: Box<TExpr>,
    },
    /// `percpu_kaddr("sym"[, cpu])`: the address of per-CPU kernel variable `var` (its vmlinux
    /// BTF id) on CPU `cpu`, or on the current CPU without one; 0 for a CPU that does not exist.
    PercpuAddr {
        var: u32,
        cpu: Option<Box<TExpr>>,
    },
    /// Read `ty` from memory at `ptr + offset` (pointer dereference, member of a pointed-to struct).
    Read {
        ptr: Box<TExpr>,
        offset: i64,
        user: bool,
    },
    /// `str(ptr[, size])`: a NUL-terminated string read from memory, as many bytes as `len`
    /// says.
    ReadStr {
        ptr: Box<TExpr>,
        user: bool,
        len: StrRead,
    },
    /// `mem(ptr, size)`: raw bytes read from memory.
    ReadMem {
        ptr: Box<TExpr>,
        user: bool,
    },
    /// `strcmp(a, b)`: -1, 0 or 1.
    Strcmp(Box<TExpr>, Box<TExpr>),
    /// bpftrace's `strncmp(a, b, n)`: `strcmp` over the first `n` bytes at most.
    Strncmp(Box<TExpr>, Box<TExpr>, usize),
    /// bpftrace's `str_concat(a, b)`: the first string, then the second from its NUL on.
    StrConcat(Box<TExpr>, Box<TExpr>),
    /// bpftrace's `strcontains(haystack, needle)`: 1 when the needle occurs in the haystack.
    StrContains(Box<TExpr>, Box<TExpr>),
    /// bpftrace's `len(@m)`: the map's element count (`lower/len.rs`).
    MapLen {
        map: usize,
    },
}

#[derive(Clone, Debug)]
pub struct TStmt {
    pub kind: TStmtKind,
    pub span: Span,
}

/// Where the kernel's formatted text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelText {
    /// bpf_trace_printk: the tracing buffer.
    TracePipe,
    /// bpf_seq_printf: the iterator's output, which sonde reads and prints.
    Iterator,
}

#[derive(Clone, Debug)]
pub enum TStmtKind {
    /// Send a record for output event `event` carrying these values (printf, print, exit, clear...).
    Emit {
        event: usize,
        args: Vec<TExpr>,
    },
    /// `exit()`: emit the event, then stop this program.
    Exit {
        event: usize,
        code: TExpr,
    },
    MapStore {
        map: usize,
        keys: Vec<TExpr>,
        value: TExpr,
    },
    Aggregate {
        map: usize,
        keys: Vec<TExpr>,
        func: AggFunc,
        arg: Option<TExpr>,
    },
    Delete {
        map: usize,
        keys: Vec<TExpr>,
    },
    SetVar {
        var: usize,
        value: TExpr,
    },
    If {
        cond: TExpr,
        then: Vec<TStmt>,
        els: Vec<TStmt>,
    },
    Return,
    /// bpftrace's `signal(SIG)`: send the signal to the current process (needs `--unsafe`).
    Signal(TExpr),
    /// `let $x;`: the variable's slot zeroed.
    ZeroVar {
        var: usize,
    },
    /// `while (cond) { body }`; `step` runs after the body and on `continue` (a `for`'s `$i++`).
    Loop {
        cond: TExpr,
        body: Vec<TStmt>,
        step: Vec<TStmt>,
    },
    Break,
    Continue,
    /// Statements in order (a `for`'s set-up and loop, `unroll`'s copies).
    Seq(Vec<TStmt>),
    /// bpftrace's `join(arr[, sep])`: the strings of a NULL-ended array of string pointers, one
    /// record of event `event` (`lower/join.rs`).
    Join {
        event: usize,
        arr: TExpr,
        user: bool,
    },
    /// bpftrace's `override(rc)`: the probed kernel function returns `rc` without running.
    Override(TExpr),
    /// Text the kernel formats (`lower/debugf.rs`): bpftrace's `debugf(fmt, ...)` into the
    /// tracing buffer (`trace_pipe`, up to three values), or `printf` in an iter probe into the
    /// iterator's output (up to twelve). `format` is in the kernel's printf dialect.
    KernelPrintf {
        to: KernelText,
        format: Vec<u8>,
        args: Vec<TExpr>,
    },
    /// bpftrace's `for ($kv : @map) { body }`: `body` runs for each element with `$kv` (variable
    /// `var`) the tuple (key, value), in a callback of `bpf_for_each_map_elem` (see lower/map_for.rs).
    MapFor {
        map: usize,
        var: usize,
        body: Vec<TStmt>,
    },
    /// bpftrace's `for ($i : a..b) { body }` whose end is known only at run time (read from a
    /// map): `body` runs `end - start` times with `$i` (variable `var`) from the value of
    /// variable `start` on, in a callback of `bpf_loop` (5.17+; see lower/range_for.rs), which
    /// the verifier needs no bound for.
    RangeFor {
        var: usize,
        start: usize,
        end: usize,
        /// The bounds compare as signed numbers (C's conversions of their two types).
        signed: bool,
        body: Vec<TStmt>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AggFunc {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    Stats,
    /// hist()/quantize(): power-of-two buckets, each split into 2^bits (bpftrace's hist(v, k)).
    Quantize {
        bits: u8,
    },
    Lhist {
        min: i64,
        max: i64,
        step: i64,
    },
    /// bpftrace's `tseries(x, interval, n[, agg])`: the last `n` intervals of `interval_ns`, each
    /// a bucket (in the key) of {value, meta, epoch} (`lower/tseries.rs`).
    Tseries {
        interval_ns: u64,
        intervals: u64,
        agg: TsAgg,
    },
}

/// How a tseries interval combines the values given in it: the last (the default), or their
/// sum, minimum, maximum or average.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TsAgg {
    Last,
    Sum,
    Min,
    Max,
    Avg,
}

impl TsAgg {
    /// The agg argument as bpftrace spells it.
    pub fn named(name: &str) -> Option<TsAgg> {
        Some(match name {
            "sum" => TsAgg::Sum,
            "min" => TsAgg::Min,
            "max" => TsAgg::Max,
            "avg" => TsAgg::Avg,
            _ => return None,
        })
    }
}

impl AggFunc {
    pub fn name(self) -> &'static str {
        match self {
            AggFunc::Count => "count",
            AggFunc::Sum => "sum",
            AggFunc::Min => "min",
            AggFunc::Max => "max",
            AggFunc::Avg => "avg",
            AggFunc::Stats => "stats",
            AggFunc::Quantize { .. } => "quantize",
            AggFunc::Lhist { .. } => "lhist",
            AggFunc::Tseries { .. } => "tseries",
        }
    }
    /// Bytes of the per-CPU value: count/sum one u64; min/max {value, set}; avg/stats {count, sum};
    /// histograms count per bucket (the bucket is part of the key).
    pub fn value_size(self) -> usize {
        match self {
            AggFunc::Count | AggFunc::Sum | AggFunc::Quantize { .. } | AggFunc::Lhist { .. } => 8,
            AggFunc::Min | AggFunc::Max | AggFunc::Avg | AggFunc::Stats => 16,
            AggFunc::Tseries { .. } => 24,
        }
    }
    /// Histograms add a u64 bucket index after the user's keys, tseries its interval's slot.
    pub fn has_bucket(self) -> bool {
        matches!(self, AggFunc::Quantize { .. } | AggFunc::Lhist { .. } | AggFunc::Tseries { .. })
    }
}

/// What a map holds.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum MapValue {
    Plain(Type),
    /// An aggregation; `signed` is the signedness of the aggregated expression.
    Agg {
        func: AggFunc,
        signed: bool,
    },
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MapInfo {
    pub name: String,
    /// Key types (empty for `@x` without keys).
    pub keys: Vec<Type>,
    pub value: MapValue,
    pub span: Span,
    /// Declared with `let @m = KIND(N)`: its size, and whether it is an LRU map.
    pub max_entries: Option<u32>,
    pub lru: bool,
    /// `len(@m)` reads its element count, kept in a counter of its own (`lower/len.rs`).
    pub counted: bool,
}

impl MapInfo {
    /// Byte offset of each key in the packed key, and the total key size (at least 8: the kernel
    /// needs a key, so key-less maps use a single zero u64).
    pub fn key_layout(&self) -> (Vec<usize>, usize) {
        let mut offs = Vec::new();
        let mut at = 0;
        for k in &self.keys {
            offs.push(at);
            at += k.slot_size();
        }
        if let MapValue::Agg { func, .. } = self.value {
            if func.has_bucket() {
                at += 8;
            }
        }
        (offs, at.max(8))
    }
    pub fn value_size(&self) -> usize {
        match &self.value {
            MapValue::Plain(t) => t.slot_size(),
            MapValue::Agg { func, .. } => func.value_size(),
        }
    }
    pub fn is_percpu(&self) -> bool {
        matches!(self.value, MapValue::Agg { .. })
    }
    /// A map without keys or buckets (`@n = count()`) only ever holds one element.
    pub fn single_key(&self) -> bool {
        self.keys.is_empty()
            && !matches!(self.value, MapValue::Agg { func, .. } if func.has_bucket())
    }
}

/// What user space does with a record.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum EventKind {
    Printf {
        format: Vec<u8>,
    },
    /// `time()`: a printf whose text is bpftrace's JSON record `time`, not `printf`.
    Time {
        format: Vec<u8>,
    },
    /// `print(a, b)`: each value in its default format.
    Print,
    Exit,
    /// `print(@m)`; with `top` > 0 (`print(@m, N)`) only the N largest entries; each integer
    /// value divided by `div` (`print(@m, N, div)`; 1 when not given).
    PrintMap {
        map: usize,
        top: usize,
        div: u64,
    },
    /// `clear(@m)`; with `keep_keys`, bpftrace's `zero(@m)`: the values zeroed, the keys kept.
    ClearMap {
        map: usize,
        keep_keys: bool,
    },
    /// bpftrace's `join()`: `JOIN_ARGS` strings of `JOIN_ARG_SIZE` bytes (`lower/join.rs`),
    /// printed up to the first empty one with `sep` between them.
    Join {
        sep: Vec<u8>,
    },
    /// bpftrace's `warnf`, `errorf`, `system` and `cat`: a printf format whose text goes to `to`.
    Formatted {
        format: Vec<u8>,
        to: Sink,
    },
}

/// Where a `Formatted` event's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Sink {
    /// `warnf`: stderr, as `FILE:LINE:COL-COL: WARNING: text` for the call at this span.
    Warning(Span),
    /// `errorf`: likewise with `ERROR:`.
    Error(Span),
    /// `system`: the text is a command run by `sh -c`, its output printed (`--unsafe`).
    System,
    /// `cat`: the text names a file whose contents are printed.
    Cat,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EventDef {
    pub kind: EventKind,
    /// Types of the values in the record, each in a slot of `slot_size()` after the u64 event id.
    pub args: Vec<Type>,
}

impl EventDef {
    pub fn record_size(&self) -> usize {
        8 + self.args.iter().map(Type::slot_size).sum::<usize>()
    }
}

/// One probe instance, checked against one site's context.
#[derive(Clone, Debug)]
pub struct TProbe {
    /// Index of the probe in the source program.
    pub probe: usize,
    pub sites: Vec<Site>,
    pub predicate: Option<TExpr>,
    pub body: Vec<TStmt>,
    /// Types of the `$variables` of this probe.
    pub vars: Vec<(String, Type)>,
    pub span: Span,
}

/// A `fn`: its parameters are its first variables, then (unless it returns nothing) the
/// variable `return value;` sets; the rest are its own.
#[derive(Clone, Debug)]
pub struct TFunc {
    pub name: String,
    pub params: usize,
    /// `Type::Void` when it returns nothing.
    pub ret: Type,
    pub body: Vec<TStmt>,
    pub vars: Vec<(String, Type)>,
    pub span: Span,
}

impl TFunc {
    /// The variable that holds the value returned, if it returns one.
    pub fn ret_var(&self) -> Option<usize> {
        (self.ret != Type::Void).then_some(self.params)
    }
}

#[derive(Clone, Debug)]
pub struct TProgram {
    pub probes: Vec<TProbe>,
    /// The `fn`s, in the order written (a function calls only those before it).
    pub funcs: Vec<TFunc>,
    pub maps: Vec<MapInfo>,
    pub events: Vec<EventDef>,
    /// The depths of the stack traces the probes take (`kstack` 127, `kstack(3)` 3): a stack
    /// map each.
    pub stacks: std::collections::BTreeSet<u8>,
    /// The deepest stack `len(kstack)`/`len(ustack)` measures; 0 when none does.
    pub stack_len_frames: u8,
    /// What the user should know about a program that compiles (shown before it runs).
    pub warnings: Vec<Diagnostic>,
    /// The named options (`getopt("name")`) the program reads, with their descriptions (empty
    /// when no `getopt` gives one); any other `--name` is an error.
    pub options: Vec<(String, String)>,
    /// The CPUs (the kernel's nr_cpu_ids) whose values a read of an aggregation combines; 0 when
    /// no probe reads one.
    pub cpu_ids: u32,
    /// The kernel has BPF's signed division instructions (`Env::has_signed_division`).
    pub signed_division: bool,
    /// The maps print when the run ends (config `print_maps_on_exit`).
    pub print_maps_on_exit: bool,
    /// What a string that filled its `char[N]` prints after its characters (config
    /// `str_trunc_trailer`).
    pub str_trunc_trailer: String,
    /// The size of `str()`'s strings (config `max_strlen`): those of that size that fill it were
    /// cut.
    pub max_strlen: usize,
    /// The most bytes of a file `cat()` prints (config `max_cat_bytes`).
    pub max_cat_bytes: usize,
}

/// How many bytes `str()` reads into its `char[N]` (bpftrace's rules).
#[derive(Clone, Debug)]
pub enum StrRead {
    /// `str(p)`: N + 1 bytes, so a string of N characters or more fills the N bytes without a
    /// NUL, which is how it prints as cut (`config = { str_trunc_trailer = ".." }`).
    Whole,
    /// `str(p, N)` with a constant N: N bytes, the NUL included (never printed as cut).
    Exact,
    /// `str(p, n)` with a size known only at run time: n bytes, at most N + 1.
    Bounded(Box<TExpr>),
}
