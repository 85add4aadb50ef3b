//! The language's builtins, in one registry as bpftrace's `CALL_SPEC` and ply's `struct func`:
//! `table/` lists every variable, function, statement and aggregation with its arguments, what
//! it gives, its usage sentence, a line of docs and an example; `dispatch.rs` checks a use
//! against it and hands it to the builtin's checker in the files beside it; `docs.rs` writes
//! docs/builtins.md from it.

mod addresses;
mod aggregations;
mod conversions;
mod dispatch;
pub mod docs;
pub(super) mod getopt;
mod join;
mod len;
mod map_calls;
mod newer;
mod newest;
mod output;
mod printf;
mod seq_printf;
mod signal;
mod sizes;
pub mod spec;
mod stacks;
mod strcontains;
mod strings;
mod system_changes;
pub mod table;
mod variables;

#[cfg(test)]
mod tests;
