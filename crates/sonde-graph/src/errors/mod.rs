//! `sonde graph --errors FUNCTION`: why did a call fail? A BPF program ([`program`]) records,
//! per thread and only inside calls of FUNCTION, the functions named with `-a`, and for each call
//! that fails sends the failing path: the chain of calls the error came up through, from the
//! function that produced it. [`path`] puts the records back together; [`show`] prints a path as
//! a tree, folded stacks, JSON or a Chrome/Perfetto trace.

pub mod path;
pub mod perfetto;
pub mod program;
pub mod result;
pub mod show;
