//! C's pointer arithmetic: `p + n` and `p - n` move by `n` elements of what `p` points to (a
//! `void *` by bytes, as GCC does), and `p - q` counts elements. `(int32 *)0x32 + 1` is 0x36.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_syntax::ast::BinOp;

/// What `l op r` is when an operand is a pointer.
pub(super) enum PointerArith {
    /// The integer operand (the left one or the right one) times `size`; the pointer's type.
    Offset { scale_left: bool, size: u64, ty: Type },
    /// The byte distance of two pointers divided by their elements' `size`.
    Distance { size: u64 },
}

/// The size of what a pointer type points to, for its arithmetic (1 for `void` and unsized).
fn element_size(ty: &Type) -> Option<u64> {
    match ty {
        Type::Ptr { to, .. } => Some((to.size() as u64).max(1)),
        _ => None,
    }
}

/// `None` when no operand is a pointer, `op` is no `+`/`-`, or nothing is to be scaled.
pub(super) fn classify(op: BinOp, l: &TExpr, r: &TExpr) -> Option<PointerArith> {
    if !matches!(op, BinOp::Add | BinOp::Sub) || !l.ty.is_scalar() || !r.ty.is_scalar() {
        return None;
    }
    match (element_size(&l.ty), element_size(&r.ty)) {
        (Some(size), None) => {
            Some(PointerArith::Offset { scale_left: false, size, ty: l.ty.clone() })
        }
        (None, Some(size)) if op == BinOp::Add => {
            Some(PointerArith::Offset { scale_left: true, size, ty: r.ty.clone() })
        }
        (Some(size), Some(_)) if op == BinOp::Sub && size > 1 => {
            Some(PointerArith::Distance { size })
        }
        _ => None,
    }
}

/// `l op r` with the pointer arithmetic `how` made explicit.
pub(super) fn apply(op: BinOp, l: TExpr, r: TExpr, how: PointerArith) -> TExpr {
    let span = l.span.to(r.span);
    let int = |v: u64| TExpr { kind: TExprKind::Int(v), ty: Type::S64, span };
    let binary = |op: BinOp, l: TExpr, r: TExpr, ty: Type| TExpr {
        kind: TExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) },
        ty,
        span,
    };
    // A constant count is scaled here: one register fewer for `p + 1`.
    let times = |e: TExpr, size: u64| match (size, &e.kind) {
        (1, _) => e,
        (n, TExprKind::Int(v)) if (*v as i64).checked_mul(n as i64).is_some() => {
            int((*v as i64 * n as i64) as u64)
        }
        (n, _) => binary(BinOp::Mul, e, int(n), Type::S64),
    };
    match how {
        PointerArith::Offset { scale_left: false, size, ty } => binary(op, l, times(r, size), ty),
        PointerArith::Offset { scale_left: true, size, ty } => binary(op, times(l, size), r, ty),
        // C's ptrdiff_t: signed.
        PointerArith::Distance { size } => {
            binary(BinOp::Div, binary(op, l, r, Type::S64), int(size), Type::S64)
        }
    }
}
