//! Turning decoded values into the text and JSON sonde prints: printf formatting, map dumps,
//! histograms, bpftrace-compatible JSON lines. Pure: no kernel access.
//!
//! - [`value`]: the decoded [`Value`] and how it prints and sorts.
//! - [`printf`]: format-string parsing (compile time) and C-exact formatting (run time).
//! - [`hist`]: hist()/lhist() bucket conventions and bpftrace's histogram lines.
//! - [`map`]: whole-map text dumps (plain, histogram, avg/stats).
//! - [`tseries`]: tseries() maps' graphs.
//! - [`json`]: the same as bpftrace's `-f json` lines.
//! - [`record`]: the one JSON envelope every face writes (`{"type": ..., "data": ...}`), the
//!   list of record types, and the records the faces share (lost events, exit, ...).
//! - [`sink`]: where a face's output goes, keeping the first write error; [`file`]: files
//!   written whole or not at all.
//! - [`writer`]: the [`Writer`] trait every face prints through; [`TextWriter`] and
//!   [`JsonWriter`] implement it.

pub mod bench;
pub mod calendar;
pub mod file;
pub mod hist;
pub mod json;
pub mod json_writer;
pub mod map;
pub mod printf;
pub mod record;
pub mod sink;
pub mod text_writer;
mod top;
pub mod tseries;
pub mod value;
pub mod writer;

pub use json_writer::JsonWriter;
pub use map::{HistEntry, HistKind, StatsEntry};
pub use record::{Record, Type};
pub use text_writer::TextWriter;
pub use value::Value;
pub use writer::{MapEntries, Writer};
