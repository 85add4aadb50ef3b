//! C's pointer arithmetic: `p + n` and `p - n` move by `n` elements of what `p` points to (a
//! `void *` by bytes, as GCC does), and `p - q` counts elements. `(int32 *)0x32 + 1` is 0x36.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::BinOp;

/// The size of what a pointer type points to, for its arithmetic (1 for `void` and unsized).
fn element_size(ty: &Type) -> Option<u64> {
    match ty {
        Type::Ptr { to, .. } => Some((to.size() as u64).max(1)),
        _ => None,
    }
}

fn times(e: TExpr, n: u64) -> TExpr {
    if n == 1 {
        return e;
    }
    let span = e.span;
    let size = TExpr { kind: TExprKind::Int(n), ty: Type::S64, span };
    let kind = TExprKind::Binary { op: BinOp::Mul, lhs: Box::new(e), rhs: Box::new(size) };
    TExpr { kind, ty: Type::S64, span }
}

impl Checker<'_> {
    /// `l op r` with pointer arithmetic made explicit: the integer operand scaled, and the
    /// pointer's type kept; the operands back when no operand is a pointer (or `op` is no `+`/`-`).
    pub(super) fn pointer_arith(
        &mut self,
        op: BinOp,
        l: TExpr,
        r: TExpr,
    ) -> Result<TExpr, (TExpr, TExpr)> {
        if !matches!(op, BinOp::Add | BinOp::Sub) || !l.ty.is_scalar() || !r.ty.is_scalar() {
            return Err((l, r));
        }
        let span = l.span.to(r.span);
        let binary = |l: TExpr, r: TExpr, ty: Type| TExpr {
            kind: TExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) },
            ty,
            span,
        };
        match (element_size(&l.ty), element_size(&r.ty)) {
            (Some(n), None) => {
                let ty = l.ty.clone();
                Ok(binary(l, times(r, n), ty))
            }
            (None, Some(n)) if op == BinOp::Add => {
                let ty = r.ty.clone();
                Ok(binary(times(l, n), r, ty))
            }
            // The distance between two pointers, in elements (C's ptrdiff_t, signed).
            (Some(n), Some(_)) if op == BinOp::Sub && n > 1 => {
                let bytes = binary(l, r, Type::S64);
                let size = TExpr { kind: TExprKind::Int(n), ty: Type::S64, span };
                let kind =
                    TExprKind::Binary { op: BinOp::Div, lhs: Box::new(bytes), rhs: Box::new(size) };
                Ok(TExpr { kind, ty: Type::S64, span })
            }
            _ => Err((l, r)),
        }
    }
}
