//! Casts: `(u32)x`, `(struct task_struct *)arg0`, bpftrace's `(uint8)x`.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, Span, TypeName};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn cast(&mut self, ty: &TypeName, expr: &Expr, span: Span) -> TExpr {
        let Some(inner) = self.expr_or_poison(expr) else { return self.poisoned(span) };
        if ty.base == "bool" && ty.pointers == 0 && inner.ty.is_scalar() {
            return as_bool(inner, span);
        }
        let target = match self.resolve_type(ty) {
            Ok(t) => t,
            Err(msg) => {
                self.error(Diagnostic::error(ty.span, msg));
                return self.poisoned(span);
            }
        };
        if !inner.ty.is_scalar() {
            self.error(Diagnostic::error(
                expr.span,
                format!("cannot cast a `{}` to `{}`", inner.ty, target),
            ));
            return self.poisoned(span);
        }
        if !target.is_scalar() {
            self.error(
                Diagnostic::error(
                    ty.span,
                    format!("cannot cast to `{}`: casts make integers or pointers", target),
                )
                .with_help(format!("cast to a pointer, e.g. `({} *)`", target)),
            );
            return self.poisoned(span);
        }
        // A cast keeps track of user memory: `(char *)args->buf` still points into the process.
        let target = match (target, &inner.ty) {
            (Type::Ptr { to, .. }, Type::Ptr { user, .. }) => Type::Ptr { to, user: *user },
            (t, _) => t,
        };
        TExpr { kind: TExprKind::Cast(Box::new(inner)), ty: target, span }
    }
}

/// `(bool)x`, and `true`/`false`: `x != 0`, typed to print as `true`/`false`.
pub(in crate::sema) fn as_bool(inner: TExpr, span: Span) -> TExpr {
    let kind = match inner.kind {
        TExprKind::Int(v) => TExprKind::Int((v != 0) as u64),
        _ => {
            let zero = TExpr::const_s64(0, span);
            TExprKind::Binary { op: BinOp::Ne, lhs: Box::new(inner), rhs: Box::new(zero) }
        }
    };
    TExpr { kind, ty: Type::Bool, span }
}
