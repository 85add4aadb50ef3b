//! Where a program attaches and what context it runs in: the sites providers expand a probe
//! spec into, which the checker types against and the loader attaches.

use super::types::{Field, StructDef, Type};
use std::rc::Rc;

/// Where one compiled program attaches.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum AttachPoint {
    /// Run once before any other probe (through BPF_PROG_TEST_RUN).
    Begin,
    /// Run once after tracing stops.
    End,
    /// bpftrace's `bench:NAME`: run by hand (BPF_PROG_TEST_RUN) many times with `--mode bench`,
    /// which reports its average time; not run otherwise.
    Bench {
        name: String,
    },
    /// bpftrace's `self:signal:SIGUSR1`: run (through BPF_PROG_TEST_RUN) each time sonde
    /// receives the signal.
    Signal {
        name: String,
    },
    Tracepoint {
        category: String,
        name: String,
    },
    /// A CPU-clock perf event on one CPU firing every `period_ns`.
    Interval {
        period_ns: u64,
    },
    /// A kernel function (entry at `offset`, or its return).
    Kprobe {
        symbol: String,
        offset: u64,
        retprobe: bool,
    },
    /// An instruction in a user binary: `path` at file offset `offset`; `symbol` as written
    /// (`@FILE:LINE` for a source line).
    Uprobe {
        path: String,
        symbol: String,
        offset: u64,
        retprobe: bool,
    },
    /// A BPF trampoline on kernel function `func` (BTF id `btf_id`), at entry or exit.
    Fentry {
        func: String,
        btf_id: u32,
        exit: bool,
    },
    /// A BTF-typed raw tracepoint (tp_btf): kernel tracepoint `name`, attached through its
    /// `btf_trace_NAME` typedef (BTF id `btf_id`).
    RawTracepoint {
        name: String,
        btf_id: u32,
    },
    /// A sampling perf event `hz` times a second, on every CPU or (ply's `profile:C:Nhz`) on `cpu`.
    Profile {
        hz: u64,
        cpu: Option<u32>,
    },
    /// A software perf event (page-faults, context-switches, ...) on every CPU every `period` events.
    Software {
        event: String,
        period: u64,
    },
    /// A hardware perf event (`PERF_COUNT_HW_*` number `config`) on every CPU every `period`
    /// events.
    Hardware {
        event: String,
        config: u64,
        period: u64,
    },
    /// A BPF iterator: kernel target `bpf_iter_NAME` (its FUNC's BTF id `btf_id`).
    Iter {
        name: String,
        btf_id: u32,
    },
    /// A hardware breakpoint on `len` bytes at `addr`, firing on `mode` (`rw`, `w`, `x`).
    Watchpoint {
        addr: u64,
        len: u64,
        mode: String,
    },
}

impl AttachPoint {
    /// The probe's name: sonde's spelling of where it attaches.
    pub fn describe(&self) -> String {
        match self {
            AttachPoint::Begin => "BEGIN".into(),
            AttachPoint::End => "END".into(),
            AttachPoint::Signal { name } => format!("self:signal:{}", name),
            AttachPoint::Bench { name } => format!("bench:{}", name),
            AttachPoint::Tracepoint { category, name } => {
                format!("tracepoint:{}:{}", category, name)
            }
            AttachPoint::Interval { period_ns } => format!("interval:{}", describe_ns(*period_ns)),
            AttachPoint::Kprobe { symbol, offset, retprobe } if symbol.is_empty() => {
                format!("{}:{:#x}", if *retprobe { "kretprobe" } else { "kprobe" }, offset)
            }
            AttachPoint::Kprobe { symbol, offset: 0, retprobe } => {
                format!("{}:{}", if *retprobe { "kretprobe" } else { "kprobe" }, symbol)
            }
            AttachPoint::Kprobe { symbol, offset, .. } => format!("kprobe:{}+{}", symbol, offset),
            AttachPoint::Uprobe { path, symbol, .. } if symbol.starts_with('@') => {
                format!("uprobe:{}{}", path, symbol)
            }
            AttachPoint::Uprobe { path, symbol, retprobe, .. } => {
                format!("{}:{}:{}", if *retprobe { "uretprobe" } else { "uprobe" }, path, symbol)
            }
            AttachPoint::Fentry { func, exit, .. } => {
                format!("{}:{}", if *exit { "fexit" } else { "fentry" }, func)
            }
            AttachPoint::RawTracepoint { name, .. } => format!("rawtracepoint:{}", name),
            AttachPoint::Profile { hz, cpu: None } => format!("profile:hz:{}", hz),
            AttachPoint::Profile { hz, cpu: Some(c) } => format!("profile:{}:{}hz", c, hz),
            AttachPoint::Software { event, period } => format!("software:{}:{}", event, period),
            AttachPoint::Hardware { event, period, .. } => format!("hardware:{}:{}", event, period),
            AttachPoint::Iter { name, .. } => format!("iter:{}", name),
            AttachPoint::Watchpoint { addr, len, mode } => {
                format!("watchpoint:{:#x}:{}:{}", addr, len, mode)
            }
        }
    }
}

/// The kind of BPF program a provider needs; the kernel layer maps it to BPF_PROG_TYPE_*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ProgKind {
    /// BPF_PROG_TYPE_RAW_TRACEPOINT, run with BPF_PROG_TEST_RUN (BEGIN, END).
    RawTracepoint,
    /// BPF_PROG_TYPE_TRACEPOINT
    Tracepoint,
    /// BPF_PROG_TYPE_PERF_EVENT
    PerfEvent,
    /// BPF_PROG_TYPE_KPROBE: kprobes, kretprobes, uprobes (the context is `struct pt_regs`).
    Kprobe,
    /// BPF_PROG_TYPE_TRACING with BPF_TRACE_FENTRY / BPF_TRACE_FEXIT (the context is the
    /// function's arguments as u64s, then the return value for fexit).
    Fentry,
    Fexit,
    /// BPF_PROG_TYPE_TRACING with BPF_TRACE_RAW_TP (the context is the tracepoint's arguments as
    /// u64s).
    TpBtf,
    /// BPF_PROG_TYPE_TRACING with BPF_TRACE_ITER (the context is `struct bpf_iter__NAME`).
    Iter,
}

/// One attach point with the context its program sees.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Site {
    pub point: AttachPoint,
    pub kind: ProgKind,
    /// The record behind `args`/`data` (tracepoints; fentry/fexit's arguments by name).
    pub args: Option<Rc<StructDef>>,
    /// The probed kernel function's prototype from BTF (kprobes, fentry), when known. For a
    /// syscall wrapper, the syscall's own arguments.
    pub func: Option<Rc<FuncSig>>,
    /// The function is an x86-64 syscall wrapper, `__x64_sys_NAME(const struct pt_regs *regs)`:
    /// `argN` are the syscall's arguments, in the user registers that `regs` points to.
    pub syscall_wrapper: bool,
    /// The spec as the program wrote it, where sonde's own spelling differs (`interval:ms:300`
    /// is `interval:300ms`): what `probe` is.
    pub written: Option<Rc<str>>,
}

impl Site {
    pub fn new(point: AttachPoint, kind: ProgKind) -> Site {
        Site { point, kind, args: None, func: None, syscall_wrapper: false, written: None }
    }

    /// Whether pointers the probe is handed point into user memory (a uprobe's arguments).
    pub fn reads_user_memory(&self) -> bool {
        matches!(self.point, AttachPoint::Uprobe { .. })
    }
}

/// `1000000000` -> `1s`, `500000000` -> `500ms`.
fn describe_ns(ns: u64) -> String {
    for (unit, scale) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns.is_multiple_of(scale) {
            return format!("{}{}", ns / scale, unit);
        }
    }
    format!("{}ns", ns)
}

/// A kernel function's parameters and return type, as sonde types.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FuncSig {
    pub name: String,
    /// The FUNC's BTF id (fentry/fexit attach to it).
    pub btf_id: u32,
    pub params: Vec<(String, Type)>,
    pub ret: Type,
}

impl FuncSig {
    /// The arguments as a record of u64 slots, in order (what a BPF trampoline hands fentry, and
    /// how `args->NAME` reads a syscall wrapper's arguments), then `retval` when asked for.
    pub fn argument_record(&self, retval: bool) -> StructDef {
        let mut fields: Vec<Field> = self
            .params
            .iter()
            .enumerate()
            .map(|(i, (name, ty))| Field {
                name: if name.is_empty() { format!("arg{}", i) } else { name.clone() },
                offset: 8 * i,
                ty: ty.clone(),
                data_loc: false,
            })
            .collect();
        if retval {
            fields.push(Field {
                name: "retval".into(),
                offset: 8 * self.params.len(),
                ty: self.ret.clone(),
                data_loc: false,
            });
        }
        StructDef {
            name: self.name.clone(),
            size: 8 * fields.len(),
            align: None,
            fields,
            bitfields: Vec::new(),
            enums: Vec::new(),
        }
    }
}
