//! The machine sonde runs on: clocks, CPU lists, processes (watching one exit, holding the
//! `-c` command before its exec), and `/run/sonde`.

pub mod clock;
pub mod cpus;
pub mod pid_namespace;
pub mod process;
pub mod run_dir;
