//! Reading through pointers and arrays: `*p`, `p[i]`, `arr[i]`, one char of a string (`$s[0]`,
//! `p->comm[0]`), with constant indices checked against the bounds.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

/// A char, as an element of a string.
const CHAR: Type = Type::Int { bytes: 1, signed: true };

impl Checker<'_> {
    /// `*(ptr + offset)` typed by the pointee.
    pub(super) fn deref(&mut self, ptr: TExpr, offset: i64, span: Span) -> TExpr {
        let (to, user) = match &ptr.ty {
            Type::Ptr { to, user } => ((**to).clone(), *user),
            // As bpftrace: an integer is an address holding a u64, as `*(u64 *)x` (loads.bt's
            // `*(kaddr("avenrun") + 8)`).
            Type::Int { .. } => (Type::Int { bytes: 8, signed: false }, false),
            other => {
                self.error(Diagnostic::error(
                    ptr.span,
                    format!("cannot dereference a `{}`: it is not a pointer", other),
                ));
                return self.poisoned(span);
            }
        };
        if to == Type::Void {
            self.error(
                Diagnostic::error(ptr.span, "cannot dereference a `void *`")
                    .with_help("cast it to a pointer type first, e.g. `*(u64 *)ptr`"),
            );
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::Read { ptr: Box::new(ptr), offset, user }, ty: to, span }
    }

    /// `base[index]`: a constant index (a number, a positional parameter), checked against the
    /// bounds; or, into memory (an array member read through a pointer, a pointer), any integer.
    pub(super) fn index(&mut self, base: &Expr, index: &Expr, span: Span) -> TExpr {
        let Some(b) = self.expr_or_poison(base) else { return self.poisoned(span) };
        let i = match index.kind {
            ExprKind::Int(i) => i as i64,
            _ => {
                let Some(idx) = self.expr_or_poison(index) else { return self.poisoned(span) };
                match folded(&idx) {
                    Some(i) => i,
                    None => return self.runtime_index(b, idx, index.span, span),
                }
            }
        };
        let at = Indexed { i, span: index.span };
        match b.ty.clone() {
            Type::Array { elem, len } => self.array_element(b, *elem, len, at, span),
            Type::Str(len) => self.string_char(b, len, at, span),
            Type::Ptr { to, .. } => self.deref(b, i * to.size().max(1) as i64, span),
            // bpftrace's `$t[1]` for `$t.1`.
            Type::Tuple(_) => self.tuple_field(b, &i.to_string(), span),
            t => {
                self.error(Diagnostic::error(base.span, format!("cannot index a `{}`", t)));
                self.poisoned(span)
            }
        }
    }

    /// `base[i]` with `i` known only when the probe runs: the element's address computed, then
    /// read, for an array in memory or a pointer. Like C, the index is not checked.
    fn runtime_index(&mut self, b: TExpr, idx: TExpr, at: Span, span: Span) -> TExpr {
        let (ptr, offset, user, elem) = match (b.kind, b.ty) {
            (TExprKind::Read { ptr, offset, user }, Type::Array { elem, .. }) => {
                (*ptr, offset, user, *elem)
            }
            (TExprKind::Read { ptr, offset, user }, Type::Str(_)) => (*ptr, offset, user, CHAR),
            (kind, Type::Ptr { to, user }) if *to != Type::Void => {
                (TExpr { kind, ty: Type::Ptr { to: to.clone(), user }, span: b.span }, 0, user, *to)
            }
            (_, t) => {
                let msg = format!("an index into a `{}` must be a constant integer", t);
                self.error(Diagnostic::error(at, msg));
                return self.poisoned(span);
            }
        };
        if !idx.ty.is_scalar() {
            self.error(Diagnostic::error(
                at,
                format!("an index must be an integer, not a `{}`", idx.ty),
            ));
            return self.poisoned(span);
        }
        let size = TExpr::const_s64(elem.size() as i64, at);
        let step = TExpr {
            kind: TExprKind::Binary { op: BinOp::Mul, lhs: Box::new(idx), rhs: Box::new(size) },
            ty: Type::S64,
            span: at,
        };
        let ty = ptr.ty.clone();
        let addr = TExprKind::Binary { op: BinOp::Add, lhs: Box::new(ptr), rhs: Box::new(step) };
        let ptr = Box::new(TExpr { kind: addr, ty, span });
        TExpr { kind: TExprKind::Read { ptr, offset, user }, ty: elem, span }
    }

    /// An element of an array in the record (`args.saddr[0]`) or of a kernel struct's array
    /// member read through a pointer (`p->numbers[0].nr`; a flexible array, 0 elements in BTF,
    /// takes any index).
    fn array_element(
        &mut self,
        b: TExpr,
        elem: Type,
        len: usize,
        at: Indexed,
        span: Span,
    ) -> TExpr {
        let what = format!("the array of {} elements", len);
        match b.kind {
            TExprKind::CtxBuf { offset, .. } => {
                if !self.within(&at, len, false, &what) {
                    return self.poisoned(span);
                }
                let offset = offset + at.i as usize * elem.size();
                TExpr { kind: TExprKind::CtxLoad { offset }, ty: elem, span }
            }
            TExprKind::Read { ptr, offset, user } => {
                if !self.within(&at, len, true, &what) {
                    return self.poisoned(span);
                }
                let offset = offset + at.i * elem.size() as i64;
                TExpr { kind: TExprKind::Read { ptr, offset, user }, ty: elem, span }
            }
            // An array held as a value (a variable, a map's value, a tuple's element): its
            // elements lie one after another in the value's buffer.
            _ => {
                if !self.within(&at, len, false, &what) {
                    return self.poisoned(span);
                }
                let at_elem = at.i as usize * elem.size();
                let (base, offset) = match b.kind {
                    TExprKind::Field { base, offset } => (base, offset + at_elem),
                    kind => (Box::new(TExpr { kind, ..b }), at_elem),
                };
                TExpr { kind: TExprKind::Field { base, offset }, ty: elem, span }
            }
        }
    }

    /// One char of a char array member (`p->comm[0]`) or of a string value (a variable,
    /// `comm`, `str()`: bpftrace's `$s[0]`).
    fn string_char(&mut self, b: TExpr, len: usize, at: Indexed, span: Span) -> TExpr {
        if let TExprKind::Read { ptr, offset, user } = b.kind {
            let what = format!("the array of {} chars", len);
            if !self.within(&at, len, true, &what) {
                return self.poisoned(span);
            }
            return TExpr {
                kind: TExprKind::Read { ptr, offset: offset + at.i, user },
                ty: CHAR,
                span,
            };
        }
        if !self.within(&at, len, false, &format!("the string of {} bytes", len)) {
            return self.poisoned(span);
        }
        let kind = TExprKind::Field { base: Box::new(b), offset: at.i as usize };
        TExpr { kind, ty: CHAR, span }
    }

    /// Is the index inside `what` of `len` elements (any, for a flexible array of 0)? If not,
    /// says so.
    fn within(&mut self, at: &Indexed, len: usize, flexible: bool, what: &str) -> bool {
        let inside = at.i >= 0 && ((flexible && len == 0) || (at.i as usize) < len);
        if !inside {
            let msg = format!("index {} is outside {}", at.i, what);
            self.error(Diagnostic::error(at.span, msg));
        }
        inside
    }
}

/// The value of an index made of integer constants (`2`, `1 + 1`, a positional parameter).
fn folded(e: &TExpr) -> Option<i64> {
    match &e.kind {
        TExprKind::Int(v) => Some(*v as i64),
        TExprKind::Binary { op, lhs, rhs } => {
            let (l, r) = (folded(lhs)?, folded(rhs)?);
            match op {
                BinOp::Add => l.checked_add(r),
                BinOp::Sub => l.checked_sub(r),
                BinOp::Mul => l.checked_mul(r),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A constant index and where it is written.
struct Indexed {
    i: i64,
    span: Span,
}
