//! Program text to AST: lexer, parser and diagnostics. Pure: no kernel access.

pub mod ast;
pub mod diag;
pub mod dump;
pub mod format;
pub mod fuzz;
pub mod lexer;
pub mod parser;
pub mod prep;
pub mod render;
mod suggest;

pub use dump::dump;
pub use render::{line_col, render};
pub use suggest::{closest, distance_within, edit_distance, nearest, MAX_EDITS};

use diag::{Diagnostic, Severity};

/// Parses one expression: `text[start..]`, all of it (see [`parser::parse_expr`]).
pub fn parse_expr(text: &str, start: usize) -> Result<ast::Expr, Vec<Diagnostic>> {
    match parser::parse_expr(text, start) {
        (Some(e), _) => Ok(e),
        (None, diags) => Err(diags),
    }
}

/// Parses a program. On any error, returns every diagnostic found (the parser recovers at `;`
/// and `}` to report several at once), in source order of discovery.
pub fn parse(text: &str) -> Result<ast::Program, Vec<Diagnostic>> {
    let (program, diags) = parser::parse(text);
    if diags.iter().any(|d| d.severity == Severity::Error) {
        Err(diags)
    } else {
        Ok(program)
    }
}
