//! `sonde --fmt`: a program printed back in bpftrace's standard format (bpftrace 0.24+'s
//! `--fmt`), comments and blank lines kept. Syntax only: nothing here reads the kernel.
//!
//! The formatter has its own parser ([`parse`]) because it needs what the compiler's AST
//! drops: literals as written, macros unexpanded, comments and blank lines (recorded by
//! [`layout`]). It shares sonde's lexer for tokens.

mod buffer;
mod cursor;
mod layout;
mod parse;
mod parse_expr;
mod print;
mod print_expr;
mod print_if;
mod tree;

#[cfg(test)]
mod tests;

use crate::diag::Diagnostic;

/// Columns a line may take before lists are broken (bpftrace's default).
pub const WIDTH: usize = 90;
/// Columns of one level of indentation.
const INDENT: usize = 2;

/// The program in bpftrace's format, or the first syntax error.
pub fn format(text: &str) -> Result<String, Diagnostic> {
    let mut c = cursor::Cursor::new(text);
    let program = parse::program(&mut c)?;
    let mut metas = c.metas;
    Ok(print::program(&program, &mut metas, WIDTH).render())
}
