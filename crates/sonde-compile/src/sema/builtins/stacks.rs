//! Stack traces: `kstack`/`ustack` (ply's `stack` too) and bpftrace's calls `kstack(3)`,
//! `kstack(perf)`, `ustack(raw, 5)`: a mode (how frames print) and a limit (how many frames are
//! kept). The limit is the depth of the stack map the id goes to, one map per depth used, so
//! stacks that differ only below it count as one key, as bpftrace's do.

use super::spec::Call;
use crate::model::tir::{Builtin, TExpr, TExprKind};
use crate::model::types::{StackMode, Type, STACK_DEPTH};
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A stack of `frames` at most, printed as `mode` says.
    pub(in crate::sema) fn stack(
        &mut self,
        user: bool,
        mode: StackMode,
        frames: u8,
        span: Span,
    ) -> TExpr {
        self.stacks.insert(frames);
        let b = if user { Builtin::UStack } else { Builtin::KStack };
        TExpr { kind: TExprKind::Builtin(b), ty: Type::Stack { user, mode, frames }, span }
    }

    /// `kstack([mode, ][limit])`, `ustack(...)`.
    pub(super) fn stack_call(&mut self, c: &Call) -> TExpr {
        let (name, span) = (c.name, c.span);
        if self.refused_in_map_for(span) {
            return self.poisoned(span);
        }
        let user = name == "ustack";
        let (mode, limit) = match c.args {
            [] => (None, None),
            [a] if ident(a).is_some() => (Some(a), None),
            [a] => (None, Some(a)),
            [m, l] => (Some(m), Some(l)),
            _ => return self.usage(c),
        };
        let mode = match mode {
            None => self.stack_mode,
            Some(m) => match ident(m).map(|n| (n, StackMode::named(n))) {
                Some((_, Some(mode))) => mode,
                Some(("build_id", None)) => {
                    let d = Diagnostic::error(
                        m.span,
                        "sonde prints stacks symbolized (`bpftrace`, `perf`) or as addresses (`raw`), not by build id",
                    )
                    .with_help(format!("write `{}(raw)` for the bare addresses", name));
                    self.error(d);
                    return self.poisoned(span);
                }
                _ => return self.usage_at(c, m.span),
            },
        };
        let frames = match limit {
            None => STACK_DEPTH as u8,
            Some(l) => match crate::sema::stmt::constant(l) {
                Some(n) if (1..=STACK_DEPTH as i64).contains(&n) => n as u8,
                Some(n) => {
                    let d = Diagnostic::error(
                        l.span,
                        format!(
                            "a stack keeps 1 to {} frames (the kernel's PERF_MAX_STACK_DEPTH), not {}",
                            STACK_DEPTH, n
                        ),
                    );
                    self.error(d);
                    return self.poisoned(span);
                }
                None => return self.usage_at(c, l.span),
            },
        };
        self.stack(user, mode, frames, span)
    }
}

/// A bare word: a mode's name.
fn ident(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n),
        _ => None,
    }
}
