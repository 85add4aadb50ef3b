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
        if let Some(len) = ty.array {
            return self.array_cast(target, len, inner, span);
        }
        // A byte array (`uint8_t y[4]` is a `char[4]`) too, of the integer's size.
        let byte_array = matches!(inner.ty, Type::Str(n) if n == target.size());
        if target.is_scalar() && (matches!(inner.ty, Type::Array { .. }) || byte_array) {
            return self.array_to_integer(target, inner, span);
        }
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

impl Checker<'_> {
    /// bpftrace's `(int8[8])x`: an integer's or a string's bytes as an array of `elem`s, `len`
    /// of them (0: as many as the value's bytes make), as long as the value.
    fn array_cast(&mut self, elem: Type, len: u64, inner: TExpr, span: Span) -> TExpr {
        let bytes = inner.ty.size();
        let fits =
            matches!(elem, Type::Int { .. }) && (inner.ty.is_scalar() || inner.ty.is_string());
        let len = if len == 0 && fits { (bytes / elem.size()) as u64 } else { len };
        if !fits || len == 0 || len as usize * elem.size() != bytes {
            let msg = format!(
                "cannot cast a `{}` ({} bytes) to an array of {} `{}`: casts to arrays take integers and strings of the array's size",
                inner.ty, bytes, len, elem
            );
            self.error(Diagnostic::error(span, msg));
            return self.poisoned(span);
        }
        let ty = Type::Array { elem: Box::new(elem), len: len as usize };
        TExpr { kind: TExprKind::Cast(Box::new(inner)), ty, span }
    }

    /// `(int32)arr`: an array's bytes read as an integer of the same size.
    fn array_to_integer(&mut self, target: Type, inner: TExpr, span: Span) -> TExpr {
        if target.size() != inner.ty.size() {
            let msg = format!(
                "cannot cast a `{}` ({} bytes) to `{}` ({} bytes): the sizes must match",
                inner.ty,
                inner.ty.size(),
                target,
                target.size()
            );
            self.error(Diagnostic::error(span, msg));
            return self.poisoned(span);
        }
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
