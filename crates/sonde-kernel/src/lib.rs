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
//! The folders are concerns, and their modules form layers: each uses only modules of lower
//! layers (docs/architecture.md, "sonde-kernel's layers"):
//! 1. [`sys`]: the syscalls and every `unsafe`; the kernel's release and version.
//! 2. [`error`]; [`host`]: clocks, CPU lists, processes; [`tracefs`]'s `Tracefs`: finding it,
//!    tracepoint ids and formats.
//! 3. [`object`]: maps, programs, ring buffers, BTF; the rest of [`tracefs`]: sonde's instances,
//!    its probe events, the function_graph tracer, and the clean-up after dead runs.
//! 4. [`attach`]: what keeps a program attached (`link`, `perf_attach`), then every way to attach.
//! 5. [`features`]: what this kernel can do, answered by trying.
#![deny(unsafe_code)]

pub mod attach;
pub mod error;
pub mod features;
pub mod host;
pub mod object;
pub mod sys;
pub mod tracefs;

pub use error::{KernelError, Result};
