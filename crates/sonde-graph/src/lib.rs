//! `sonde graph`'s pure half: the function_graph tracer's text lines ([`line`]) become one call
//! tree per call of the traced function ([`tree`]), printed as an indented tree ([`render`]),
//! as folded stacks ([`folded`]), as an SVG flame graph ([`svg`]) or as JSON records
//! ([`record`]). Nothing here touches the
//! kernel: the binary reads `trace_pipe` and feeds lines in, and the tests feed recorded ones.

pub mod errors;
pub mod folded;
pub mod line;
pub mod maps;
pub mod record;
pub mod render;
pub mod svg;
pub mod tree;

pub use line::Line;
pub use tree::{Builder, Call, Node};
