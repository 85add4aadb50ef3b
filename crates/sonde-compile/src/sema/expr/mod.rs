//! Typing expressions: each kind of expression in a file of its own, the builtins' calls and
//! variables in `sema/builtins/`.

pub(in crate::sema) mod cast;
mod compare;
mod context;
mod map_reads;
mod members;
mod names;
mod operators;
mod pointer_arith;
mod pointers;
pub(super) mod tuple;

pub(in crate::sema) use members::{bitfield, Place};

use super::check::Checker;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_syntax::ast::{Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A placeholder after an error so checking can go on without cascading.
    pub fn poisoned(&self, span: Span) -> TExpr {
        TExpr { kind: TExprKind::Int(0), ty: Type::S64, span }
    }

    /// `e` typed, or `None` when typing it reported an error: the caller then stays silent
    /// instead of adding a second error about the placeholder's made-up type.
    pub(in crate::sema) fn expr_or_poison(&mut self, e: &Expr) -> Option<TExpr> {
        let before = self.diags.len();
        let t = self.expr(e);
        (self.diags.len() == before).then_some(t)
    }

    pub fn expr(&mut self, e: &Expr) -> TExpr {
        let span = e.span;
        match &e.kind {
            ExprKind::Int(v) => {
                let ty = if *v > i64::MAX as u64 { Type::U64 } else { Type::S64 };
                TExpr { kind: TExprKind::Int(*v), ty, span }
            }
            ExprKind::Str(s) => TExpr::const_str(s.clone(), span),
            ExprKind::Ident(name) => self.ident(name, span),
            ExprKind::Var(name) => self.var_read(name, span),
            ExprKind::Map { name, keys } => self.map_read(name, keys, span),
            ExprKind::Call { name, args } => self.call_expr(name, args, span),
            ExprKind::Unary { op, expr } => self.unary(*op, expr, span),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span),
            ExprKind::Ternary { cond, then, els } => self.ternary(cond, then, els, span),
            ExprKind::Cast { ty, expr } => self.cast(ty, expr, span),
            ExprKind::Member { expr, field, .. } => self.member(expr, field, span),
            ExprKind::Index { expr, index } => self.index(expr, index, span),
            ExprKind::Tuple(items) => self.tuple(items, span),
            ExprKind::Record(fields) => self.record(fields, span),
            ExprKind::Step { target, op, post } => self.step(target, *op, *post, span),
            ExprKind::Block { stmts, value } => self.block_value(stmts, value),
            ExprKind::TypeArg(ty) => {
                let msg =
                    format!("the type `{}` is an argument of sizeof() and offsetof() only", ty);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
        }
    }

    /// An expression that must be an integer or pointer.
    pub fn scalar(&mut self, e: &Expr, what: &str) -> TExpr {
        let t = self.expr(e);
        if !t.ty.is_scalar() {
            self.error(Diagnostic::error(
                e.span,
                format!("{} must be an integer, found `{}`", what, t.ty),
            ));
            return self.poisoned(e.span);
        }
        t
    }
}
