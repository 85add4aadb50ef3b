//! Providers turn a probe spec (`tracepoint:sched:sched_switch`, `interval:1s`, `BEGIN`) into the
//! points a program attaches to, and say what context the program runs in. One file a provider;
//! kprobes, uprobes and the rest plug in here.

mod interval;
mod special;
mod tracepoint;
pub mod tracepoint_format;

use crate::env::Env;
use crate::types::StructDef;
use std::rc::Rc;

/// Where one compiled program attaches.
#[derive(Clone, Debug, PartialEq)]
pub enum AttachPoint {
    /// Run once before any other probe (through BPF_PROG_TEST_RUN).
    Begin,
    /// Run once after tracing stops.
    End,
    Tracepoint { category: String, name: String },
    /// A CPU-clock perf event on one CPU firing every `period_ns`.
    Interval { period_ns: u64 },
}

impl AttachPoint {
    pub fn describe(&self) -> String {
        match self {
            AttachPoint::Begin => "BEGIN".into(),
            AttachPoint::End => "END".into(),
            AttachPoint::Tracepoint { category, name } => format!("tracepoint:{}:{}", category, name),
            AttachPoint::Interval { period_ns } => format!("interval:{}ns", period_ns),
        }
    }
}

/// The kind of BPF program a provider needs; the kernel layer maps it to BPF_PROG_TYPE_*.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgKind {
    /// BPF_PROG_TYPE_RAW_TRACEPOINT, run with BPF_PROG_TEST_RUN (BEGIN, END).
    RawTracepoint,
    /// BPF_PROG_TYPE_TRACEPOINT
    Tracepoint,
    /// BPF_PROG_TYPE_PERF_EVENT
    PerfEvent,
}

/// One attach point with the context its program sees.
#[derive(Clone, Debug)]
pub struct Site {
    pub point: AttachPoint,
    pub kind: ProgKind,
    /// The record behind `args`/`data` (tracepoints).
    pub args: Option<Rc<StructDef>>,
}

/// Expand one spec into sites. `Err` is a sentence for the diagnostic.
pub fn expand(provider: &str, definition: &str, env: &dyn Env) -> Result<Vec<Site>, String> {
    match provider {
        "BEGIN" | "END" => special::expand(provider, definition),
        "tracepoint" | "t" => tracepoint::expand(definition, env),
        "interval" | "i" => interval::expand(definition),
        "kprobe" | "k" | "kretprobe" | "kr" | "uprobe" | "u" | "uretprobe" | "ur" | "fentry" | "fexit" | "kfunc"
        | "kretfunc" | "profile" | "p" | "software" | "s" => {
            Err(format!("the `{}` provider is not available yet in this version of sonde", provider))
        }
        _ => Err(format!("unknown provider `{}`", provider)),
    }
}

/// Provider names, for "did you mean" hints.
pub const PROVIDERS: &[&str] = &["BEGIN", "END", "tracepoint", "interval", "kprobe", "kretprobe", "uprobe", "uretprobe"];
