//! The machine sonde runs on: clocks, CPU lists, and processes (watching one exit, holding the
//! `-c` command before its exec).

pub mod clock;
pub mod cpus;
pub mod process;
