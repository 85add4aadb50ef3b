//! Type checking: AST + kernel facts -> typed program. Map key and value types are inferred from
//! every use across all probes, so the checker runs twice: a discovery pass that only learns map
//! types, then the real pass that reports errors and builds the typed program.

mod agg_read;
pub mod builtins;
mod check;
pub mod config;
mod config_literals;
mod declared;
mod expr;
mod flow;
mod functions;
mod map_for;
mod maps;
mod param_literals;
mod params;
mod range_for;
mod rewrite;
mod script_types;
mod sites;
mod spec_params;
mod step;
mod stmt;
mod typename;

pub use check::check;
