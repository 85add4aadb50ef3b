//! Program text to AST: lexer, parser and diagnostics. Pure: no kernel access.

pub mod ast;
pub mod diag;
