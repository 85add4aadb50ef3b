//! `--filter`: one expression of sonde's language, parsed on its own and put into the generated
//! program as a tree. The program's text holds [`PLACEHOLDER`] where the filter goes; no byte of
//! the user's text is ever part of the program's source, so it cannot close a predicate, add a
//! probe or reach past its own expression.

use sonde_syntax::ast::{Expr, ExprKind, Program, Span};
use sonde_syntax::diag::{Diagnostic, SourceFile};

/// Stands where the filter goes in the generated program: an identifier the program never uses
/// otherwise, replaced by the filter's tree once the program is parsed.
pub const PLACEHOLDER: &str = "__sonde_filter";

/// The name a filter's diagnostics are shown under.
pub const FILE_NAME: &str = "--filter";

#[derive(Clone, Debug)]
pub struct Filter {
    text: String,
    expr: Expr,
}

impl Filter {
    /// Parses `text` as exactly one expression, or says where it is not one.
    pub fn parse(text: &str) -> Result<Filter, Vec<Diagnostic>> {
        let expr = sonde_syntax::parse_expr(text, 0)?;
        Ok(Filter { text: text.to_string(), expr })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The syscall arguments it reads (`args->NAME` or `args.NAME`), in order, once each.
    pub fn args(&self) -> Vec<&str> {
        self.arg_uses().into_iter().map(|(name, _)| name).collect()
    }

    /// Each argument it reads and where (in the filter's text) it first does.
    pub fn arg_uses(&self) -> Vec<(&str, Span)> {
        let mut uses: Vec<(&str, Span)> = Vec::new();
        each(&self.expr, &mut |e| {
            if let ExprKind::Member { expr, field, .. } = &e.kind {
                if matches!(&expr.kind, ExprKind::Ident(a) if a == "args")
                    && !uses.iter().any(|(n, _)| n == field)
                {
                    uses.push((field.as_str(), e.span));
                }
            }
        });
        uses
    }

    /// Where the whole filter is, in its own text.
    pub fn span(&self) -> Span {
        self.expr.span
    }

    /// The source file its diagnostics point into.
    pub fn source(&self) -> SourceFile {
        SourceFile { name: FILE_NAME.into(), text: self.text.clone() }
    }
}

/// Parses the generated `text` and puts `filter`'s tree in place of each [`PLACEHOLDER`] of a
/// predicate. The filter's spans then count from [`start_in`]`(text)`, past the program's own
/// text, so [`rebase`] can tell its diagnostics from the program's.
pub fn parse_program(text: &str, filter: Option<&Filter>) -> Result<Program, Vec<Diagnostic>> {
    let mut program = sonde_syntax::parse(text)?;
    let Some(f) = filter else { return Ok(program) };
    let joined = format!("{text}\n{}", f.text);
    let expr = sonde_syntax::parse_expr(&joined, start_in(text))?;
    for probe in &mut program.probes {
        if let Some(pred) = &mut probe.predicate {
            replace_placeholder(pred, &expr);
        }
    }
    Ok(program)
}

/// Where the filter's spans start once grafted into the program `text`.
pub fn start_in(text: &str) -> usize {
    text.len() + 1
}

/// A diagnostic of the program `text` as one of the filter, if it points into the filter: at
/// its span, or else at its first label there (`(pid == 1) && (FILTER)` refused because the
/// filter is a string is about the filter, labelled with its type).
pub fn rebase(mut d: Diagnostic, text: &str) -> Option<Diagnostic> {
    let start = start_in(text) as u32;
    let shift = |s: Span| (s.lo >= start).then(|| Span { lo: s.lo - start, hi: s.hi - start });
    d.span = shift(d.span).or_else(|| d.labels.iter().find_map(|(s, _)| shift(*s)))?;
    d.labels.retain_mut(|(s, _)| shift(*s).map(|r| *s = r).is_some());
    Some(d)
}

fn replace_placeholder(e: &mut Expr, filter: &Expr) {
    match &mut e.kind {
        ExprKind::Ident(name) if name == PLACEHOLDER => *e = filter.clone(),
        ExprKind::Unary { expr, .. } => replace_placeholder(expr, filter),
        ExprKind::Binary { lhs, rhs, .. } => {
            replace_placeholder(lhs, filter);
            replace_placeholder(rhs, filter);
        }
        _ => {}
    }
}

/// Calls `f` on `e` and every expression inside it.
fn each<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Str(_)
        | ExprKind::Ident(_)
        | ExprKind::Var(_)
        | ExprKind::TypeArg(_) => {}
        ExprKind::Map { keys: items, .. }
        | ExprKind::Call { args: items, .. }
        | ExprKind::Tuple(items) => items.iter().for_each(|x| each(x, f)),
        ExprKind::Record(fields) => fields.iter().for_each(|(_, x)| each(x, f)),
        ExprKind::Unary { expr, .. }
        | ExprKind::Cast { expr, .. }
        | ExprKind::Step { target: expr, .. }
        | ExprKind::Block { value: expr, .. }
        | ExprKind::Member { expr, .. } => each(expr, f),
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Index { expr: lhs, index: rhs } => {
            each(lhs, f);
            each(rhs, f);
        }
        ExprKind::Ternary { cond, then, els } => {
            each(cond, f);
            each(then, f);
            each(els, f);
        }
    }
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
