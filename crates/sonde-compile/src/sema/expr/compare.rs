//! Comparisons of integers as C makes them: both operands converted to their common type by the
//! usual arithmetic conversions (a literal is an `int` when it fits one, as in C), and a warning,
//! as a compiler gives, when the operand's range means the comparison never holds (or always
//! does). Values sit in 64-bit registers extended from their type, so the only conversion that
//! changes a comparison is to `unsigned int`: `args->fd == -1` on an `unsigned int fd` compares
//! with 4294967295, as in C.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::BinOp;
use sonde_syntax::diag::Diagnostic;

/// An integer type as C's conversions see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CInt {
    bytes: u8,
    signed: bool,
}

impl CInt {
    const INT: CInt = CInt { bytes: 4, signed: true };
    const UINT: CInt = CInt { bytes: 4, signed: false };

    fn of(e: &TExpr) -> CInt {
        if let Some(v) = constant(e) {
            return if i32::try_from(v).is_ok() {
                CInt::INT
            } else {
                CInt { bytes: 8, signed: i64::try_from(v).is_ok() }
            };
        }
        match e.ty {
            // Integer promotion: what is narrower than an int becomes one.
            Type::Int { bytes, .. } if bytes < 4 => CInt::INT,
            Type::Int { bytes, signed } => CInt { bytes, signed },
            _ => CInt { bytes: 8, signed: false },
        }
    }

    /// The common type of two operands (C11 6.3.1.8).
    fn common(a: CInt, b: CInt) -> CInt {
        if a.signed == b.signed {
            return CInt { bytes: a.bytes.max(b.bytes), signed: a.signed };
        }
        let (u, s) = if a.signed { (b, a) } else { (a, b) };
        if u.bytes >= s.bytes {
            u
        } else {
            s
        }
    }

    /// `v` converted to this type (wrapping, as C converts to unsigned).
    fn convert(self, v: i128) -> i128 {
        let bits = u32::from(self.bytes) * 8;
        let m = v.rem_euclid(1i128 << bits);
        if self.signed && m >= 1i128 << (bits - 1) {
            m - (1i128 << bits)
        } else {
            m
        }
    }
}

/// The value of an integer literal, negated or not.
fn constant(e: &TExpr) -> Option<i128> {
    match &e.kind {
        TExprKind::Int(v) if e.ty == Type::U64 => Some(i128::from(*v)),
        TExprKind::Int(v) => Some(i128::from(*v as i64)),
        TExprKind::Neg(inner) => constant(inner).map(|v| -v),
        _ => None,
    }
}

/// The values a (non-constant) operand of type `ty` can have.
fn range(ty: &Type) -> (i128, i128) {
    match ty {
        Type::Int { bytes, signed: true } => {
            let half = 1i128 << (u32::from(*bytes) * 8 - 1);
            (-half, half - 1)
        }
        Type::Int { bytes, signed: false } => (0, (1i128 << (u32::from(*bytes) * 8)) - 1),
        _ => (0, i128::from(u64::MAX)),
    }
}

/// Whether `x op c` holds for every `x` in `lo..=hi` (Some(true)), for none (Some(false)), or
/// depends on `x` (None).
fn decided(op: BinOp, (lo, hi): (i128, i128), c: i128) -> Option<bool> {
    let (never, always) = match op {
        BinOp::Eq => (c < lo || c > hi, lo == hi && c == lo),
        BinOp::Ne => (lo == hi && c == lo, c < lo || c > hi),
        BinOp::Lt => (c <= lo, c > hi),
        BinOp::Le => (c < lo, c >= hi),
        BinOp::Gt => (c >= hi, c < lo),
        BinOp::Ge => (c > hi, c <= lo),
        _ => (false, false),
    };
    if never {
        Some(false)
    } else if always {
        Some(true)
    } else {
        None
    }
}

/// `a op b` is `b mirror(op) a`.
fn mirror(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

impl Checker<'_> {
    /// The operands of integer comparison `l op r`, converted for a comparison of C's.
    pub(super) fn c_comparison(&mut self, op: BinOp, l: TExpr, r: TExpr) -> (TExpr, TExpr) {
        let common = CInt::common(CInt::of(&l), CInt::of(&r));
        self.foregone(op, &l, &r, common);
        if common != CInt::UINT {
            return (l, r);
        }
        (to_unsigned_int(l), to_unsigned_int(r))
    }

    /// Warn when one operand is a constant and the other's type decides the comparison.
    fn foregone(&mut self, op: BinOp, l: &TExpr, r: &TExpr, common: CInt) {
        let (x, c, op) = match (constant(l), constant(r)) {
            (None, Some(c)) => (l, c, op),
            (Some(c), None) => (r, c, mirror(op)),
            _ => return,
        };
        let x_signed = matches!(x.ty, Type::Int { signed: true, .. });
        if x_signed && !common.signed {
            return; // a negative value wraps to the top of the range: anything is possible
        }
        let Some(holds) = decided(op, range(&x.ty), common.convert(c)) else { return };
        let (lo, hi) = range(&x.ty);
        let what = if holds { "always holds" } else { "never holds" };
        let msg = format!("this comparison {}: a `{}` is from {} to {}", what, x.ty, lo, hi);
        let d = Diagnostic::warning(l.span.to(r.span), msg);
        self.warn(d.with_label(x.span, format!("`{}`", x.ty)));
    }
}

/// An operand of a comparison made in `unsigned int`: a signed value or a negative constant
/// converted (`-1` is 4294967295), others as they are.
fn to_unsigned_int(e: TExpr) -> TExpr {
    if let Some(v) = constant(&e) {
        if v >= 0 {
            return e;
        }
        let v = CInt::UINT.convert(v) as u64;
        return TExpr { kind: TExprKind::Int(v), ty: Type::U32, span: e.span };
    }
    if !e.ty.is_signed() {
        return e;
    }
    let span = e.span;
    TExpr { kind: TExprKind::Cast(Box::new(e)), ty: Type::U32, span }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_conversions() {
        let u32_ = CInt::UINT;
        let long = CInt { bytes: 8, signed: true };
        let ulong = CInt { bytes: 8, signed: false };
        assert_eq!(CInt::common(u32_, CInt::INT), u32_);
        assert_eq!(CInt::common(u32_, long), long);
        assert_eq!(CInt::common(ulong, long), ulong);
        assert_eq!(u32_.convert(-1), 4294967295);
        assert_eq!(CInt::INT.convert(4294967295), -1);
    }

    #[test]
    fn foregone_comparisons() {
        let u32_range = range(&Type::U32);
        assert_eq!(decided(BinOp::Eq, u32_range, 4294967295), None);
        assert_eq!(decided(BinOp::Lt, u32_range, 0), Some(false));
        assert_eq!(decided(BinOp::Ge, u32_range, 0), Some(true));
        assert_eq!(decided(BinOp::Eq, range(&Type::U16), -1), Some(false));
        assert_eq!(decided(BinOp::Gt, range(&Type::S32), 5_000_000_000), Some(false));
    }
}
