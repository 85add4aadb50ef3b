//! What a program's text says about each map beyond its type: the label each key position is
//! named from, and the comment lines above the map's first assignment (its HELP text and any
//! `// metric:` directive, see [`crate::directive`]).
//!
//! Labels come from the key expressions of the map's first assignment in source order:
//! `@opens[comm, args->flags]` -> `comm`, `flags`. A name is a built-in (`comm`, `pid`,
//! `kstack`), a member (`args->flags`, `$task->pid` -> `flags`, `pid`), a variable (`$fd` ->
//! `fd`), what a conversion holds (`str(args->filename)` -> `filename`; also `buf`, `ntop` and
//! casts), or a call's own name (`ksym(arg0)` -> `ksym`, `syscall_name(args->id)` ->
//! `syscall_name`). A tuple key names each of its elements. Any other expression has no name:
//! [`crate::mapping`] calls that position `key0`, `key1`... by its index.

use crate::bound::{self, Bound};
use crate::directive::Directive;
use sonde_syntax::ast::{Block, Expr, ExprKind, Program, Span, StmtKind};
use std::collections::BTreeMap;

/// One map as its program's text describes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapSource {
    /// A name (or none) for each key position, tuples spread.
    pub labels: Vec<Option<String>>,
    /// The comment lines above it, `//` and blanks trimmed, directive lines left out.
    pub help: Vec<String>,
    pub directive: Directive,
    /// Each assignment's key bounds by position ([`crate::bound`]), every assignment of the
    /// map in the program.
    pub key_bounds: Vec<Vec<Bound>>,
}

/// A mistake in a `// metric:` line: its 1-based line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    pub line: usize,
    pub message: String,
}

/// Every map assigned in `ast` (parsed from `text`), by name as written (`@opens`).
pub fn map_sources(ast: &Program, text: &str) -> Result<BTreeMap<String, MapSource>, SourceError> {
    let mut first: BTreeMap<String, Assignment> = BTreeMap::new();
    let mut bounds: BTreeMap<String, Vec<Vec<Bound>>> = BTreeMap::new();
    for probe in &ast.probes {
        let mut found = Vec::new();
        assignments(&probe.body, &mut found);
        let lead = probe.body.stmts.first().map(|s| s.span.lo);
        for (name, keys, at) in found {
            bounds.entry(name.clone()).or_default().push(bound::of_keys(keys));
            let above_probe = (Some(at.lo) == lead).then_some(probe.span.lo);
            let a = Assignment { keys: key_names(keys), at: at.lo, above_probe };
            match first.get(&name) {
                Some(seen) if seen.at <= a.at => {}
                _ => {
                    first.insert(name, a);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for (name, a) in first {
        let declared = ast.map_decls.iter().find(|d| d.name == name).map(|d| d.span.lo as usize);
        let mut comment = declared.map(|at| comments_above(text, at)).unwrap_or_default();
        for at in [Some(a.at as usize), a.above_probe.map(|p| p as usize)].into_iter().flatten() {
            if comment.is_empty() {
                comment = comments_above(text, at);
            }
        }
        let key_bounds = bounds.remove(&name).unwrap_or_default();
        let mut source = MapSource { labels: a.keys, key_bounds, ..MapSource::default() };
        for (line, c) in comment {
            match crate::directive::parse(&c) {
                Some(Ok(d)) => source.directive.merge(d),
                Some(Err(message)) => return Err(SourceError { line, message }),
                None => source.help.push(c),
            }
        }
        out.insert(name, source);
    }
    Ok(out)
}

struct Assignment {
    keys: Vec<Option<String>>,
    at: u32,
    /// Where the probe starts, when the assignment is its first statement.
    above_probe: Option<u32>,
}

/// Each map assignment in `block` and the blocks inside it: (name, keys, where).
fn assignments<'a>(block: &'a Block, out: &mut Vec<(String, &'a [Expr], Span)>) {
    for stmt in &block.stmts {
        if let StmtKind::Assign { target, .. } | StmtKind::AssignOp { target, .. } = &stmt.kind {
            if let ExprKind::Map { name, keys } = &target.kind {
                out.push((name.clone(), keys, stmt.span));
            }
        }
        for b in stmt.parts().1 {
            assignments(b, out);
        }
    }
}

/// One name (or none) per key position; a tuple key spreads into its elements.
fn key_names(keys: &[Expr]) -> Vec<Option<String>> {
    let spread = |k: &Expr| match &k.kind {
        ExprKind::Tuple(elems) => elems.iter().map(name_of).collect(),
        _ => vec![name_of(k)],
    };
    keys.iter().flat_map(spread).collect()
}

/// Calls whose result shows their argument in another form: the argument names the label.
const CONVERSIONS: [&str; 5] = ["str", "buf", "ntop", "kptr", "uptr"];

/// The label an expression suggests (see the module docs).
fn name_of(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        ExprKind::Var(n) => Some(n.trim_start_matches('$').to_string()),
        ExprKind::Member { field, .. } => Some(field.clone()),
        ExprKind::Cast { expr, .. } => name_of(expr),
        ExprKind::Call { name, args } if CONVERSIONS.contains(&name.as_str()) => {
            args.first().and_then(name_of)
        }
        ExprKind::Call { name, .. } => Some(name.clone()),
        _ => None,
    }
    .filter(|n| !n.is_empty())
}

/// The `//` comment lines directly above the line holding byte `at`, top first, each with its
/// 1-based line number; a blank or code line ends them.
fn comments_above(text: &str, at: usize) -> Vec<(usize, String)> {
    let Some(head) = text.get(..at) else { return Vec::new() };
    let start = head.rfind('\n').map_or(0, |i| i + 1);
    let mut line_no = text[..start].matches('\n').count() + 1;
    let mut out = Vec::new();
    for line in text[..start].lines().rev() {
        line_no -= 1;
        let Some(c) = line.trim().strip_prefix("//") else { break };
        out.push((line_no, c.trim().to_string()));
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests;
