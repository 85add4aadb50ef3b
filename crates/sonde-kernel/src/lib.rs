//! sonde's only door to the kernel: bpf(2), perf_event_open(2), the ring buffer, tracefs and sysfs.
//! Everything else in sonde is pure and runs anywhere.
//!
//! We write the bpf(2) layer ourselves rather than use aya or libbpf(-rs): sonde needs a dozen
//! commands, and owning their structs keeps the binary small, start-up fast and every errno ours to
//! explain. Dependencies are `libc`, `thiserror`, `sonde-btf` (to find kernel functions) and
//! `miniz_oxide` (to read `/proc/config.gz`).
//!
//! All `unsafe` lives in [`sys`]; the modules above it are safe and check every buffer length
//! against the kernel object before an address reaches the kernel.
//!
//! The modules form layers; each uses only those in lower layers (docs/architecture.md):
//! 1. `sys`: the syscalls, and every `unsafe`.
//! 2. `error`, `name`, `clock`, `cpus`, `process`, `tracefs`, `btf`, `kconfig`: plain facts and
//!    files.
//! 3. `map`, `prog` (with `func_info`, the BTF of helper callbacks), `ringbuf`: kernel objects; `probe_event`: kprobe/uprobe events in tracefs;
//!    `instance`: sonde's own tracefs instances.
//!    `graph_tracer`: the function_graph tracer in an instance of its own.
//! 4. `link` (what keeps a program attached), then `perf_attach` (a program on a perf event fd).
//! 5. `tracepoint`, `perf_event`, `pmu`, then `kprobe`, `uprobe`, `kprobe_multi`, `fentry`.
//! 6. `features`: what this kernel can do, answered by trying.
#![deny(unsafe_code)]

pub mod btf;
pub mod clock;
pub mod cpus;
pub mod error;
pub mod features;
pub mod fentry;
pub mod func_info;
pub mod graph_tracer;
pub mod instance;
pub mod kconfig;
pub mod kprobe;
pub mod kprobe_multi;
pub mod link;
pub mod map;
mod name;
pub mod perf_attach;
pub mod perf_event;
pub mod pmu;
pub mod probe_event;
pub mod process;
pub mod prog;
pub mod ringbuf;
pub mod sys;
pub mod tracefs;
pub mod tracepoint;
pub mod uprobe;
pub mod version;

pub use error::{KernelError, Result};
