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
    format_with_warnings(text).map(|(out, _)| out)
}

/// The program in bpftrace's format and a warning for each comment it leaves out (one inside
/// an expression, which bpftrace's formatter drops too), or the first syntax error.
pub fn format_with_warnings(text: &str) -> Result<(String, Vec<Diagnostic>), Diagnostic> {
    let mut c = cursor::Cursor::new(text);
    let program = parse::program(&mut c)?;
    let mut metas = c.metas;
    let out = print::program(&program, &mut metas, WIDTH).render();
    let warnings = metas
        .dropped
        .iter()
        .map(|&pos| {
            let end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
            Diagnostic::warning(
                crate::ast::Span::new(pos, end),
                "this comment inside an expression is left out, as bpftrace's formatter leaves it out",
            )
            .with_help("move it to a line of its own before the statement")
        })
        .collect();
    Ok((out, warnings))
}
