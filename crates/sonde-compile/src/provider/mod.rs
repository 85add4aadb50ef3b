//! Providers turn a probe spec (`tracepoint:sched:sched_switch`, `interval:1s`, `BEGIN`) into the
//! points a program attaches to, and say what context the program runs in. One file a provider;
//! kprobes, uprobes and the rest plug in here.

pub mod context;
mod fentry;
pub mod hardware;
mod interval;
pub mod iter;
pub mod kernel_functions;
mod kprobe;
pub mod profile;
pub mod rawtracepoint;
mod special;
mod tracepoint;
pub mod tracepoint_format;
pub mod tracepoint_types;
mod uprobe;
mod watchpoint;

pub use kprobe::{is_syscall_wrapper, on_address, signature as kprobe_signature};

// The sites a provider answers with are the program model's; the crate's users name them
// here too.
pub use crate::model::site::{AttachPoint, ProgKind, Site};

use crate::env::Env;

/// Expand one spec into sites. `Err` is a sentence for the diagnostic; `notes` collects what the
/// user should know about a spec that did expand (shown as warnings).
pub fn expand(
    provider: &str,
    definition: &str,
    env: &dyn Env,
    notes: &mut Vec<String>,
) -> Result<Vec<Site>, String> {
    match provider {
        // bpftrace's current spelling is lowercase.
        "BEGIN" | "END" | "begin" | "end" => special::expand(provider, definition),
        "self" => special::expand_self(definition),
        "bench" => special::expand_bench(definition),
        "tracepoint" | "t" => tracepoint::expand(definition, env),
        "interval" | "i" => interval::expand(definition),
        "kprobe" | "k" => kprobe::expand(definition, false, env, notes),
        "kretprobe" | "kr" => kprobe::expand(definition, true, env, notes),
        "uprobe" | "u" => uprobe::expand(definition, false, env),
        "uretprobe" | "ur" => uprobe::expand(definition, true, env),
        "fentry" | "kfunc" | "f" => fentry::expand(definition, false, env),
        "fexit" | "kretfunc" | "fr" => fentry::expand(definition, true, env),
        "rawtracepoint" | "rt" => rawtracepoint::expand(definition, env),
        "profile" | "p" => profile::expand_profile(definition),
        "software" | "s" => profile::expand_software(definition),
        "hardware" | "h" => hardware::expand(definition),
        "watchpoint" | "w" => watchpoint::expand(definition),
        "iter" | "it" => iter::expand(definition, env),
        _ => Err(format!("unknown provider `{}`", provider)),
    }
}

/// Provider names, for "did you mean" hints.
pub const PROVIDERS: &[&str] = &[
    "BEGIN",
    "END",
    "self",
    "bench",
    "tracepoint",
    "interval",
    "kprobe",
    "kretprobe",
    "uprobe",
    "uretprobe",
    "fentry",
    "fexit",
    "kfunc",
    "kretfunc",
    "rawtracepoint",
    "profile",
    "software",
    "hardware",
    "watchpoint",
    "iter",
];
