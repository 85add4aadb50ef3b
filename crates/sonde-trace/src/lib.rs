//! `sonde trace`: strace's lines at perf trace's cost. This crate holds what does not touch the
//! kernel: the syscall table (from the kernel's format files, through `sonde_compile::Env`),
//! argument beautifiers, the `-e` selection, the generated sonde program, call lines and
//! summaries. The binary's `face_trace.rs` compiles the program with sonde's own compiler, loads
//! it through `sonde-load` and feeds the records back here.

pub mod beauty;
pub mod errno;
pub mod events;
pub mod fast;
pub mod fate;
pub mod fds;
pub mod filter;
pub mod inflight;
pub mod line;
pub mod memory;
pub mod names;
pub mod nr;
pub mod program;
pub mod select;
pub mod stack;
pub mod summary;
pub mod syscalls;

#[cfg(test)]
mod fixtures;
