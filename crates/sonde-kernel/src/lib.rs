//! sonde's only door to the kernel: bpf(2), perf_event_open(2), the ring buffer, tracefs and sysfs.
//! Everything else in sonde is pure and runs anywhere.
//!
//! We write the bpf(2) layer ourselves rather than use aya or libbpf(-rs): sonde needs a dozen
//! commands, and owning their structs keeps the binary small, start-up fast and every errno ours to
//! explain. Dependencies are `libc` and `thiserror`, nothing else.
//!
//! All `unsafe` lives in [`sys`]; the modules above it are safe and check every buffer length
//! against the kernel object before an address reaches the kernel.
#![deny(unsafe_code)]

pub mod attach;
pub mod btf;
pub mod clock;
pub mod cpus;
pub mod error;
pub mod features;
pub mod map;
mod name;
pub mod probe;
pub mod prog;
pub mod ringbuf;
pub mod sys;
pub mod tracefs;
pub mod version;

pub use error::{KernelError, Result};
