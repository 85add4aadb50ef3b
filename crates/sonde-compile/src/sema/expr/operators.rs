//! Operators: unary, binary (C's, and `==`/`!=` on strings) and `?:`, typed by C's usual
//! arithmetic conversions simplified to 64 bits.

use crate::model::tir::{EventDef, EventKind, Sink, TExpr, TExprKind};
use crate::model::types::{arith_type, Type};
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span, UnOp};
use sonde_syntax::diag::Diagnostic;

/// What bpftrace prints when a divisor is zero at run time.
const DIVIDE_BY_ZERO: &str =
    "Divide or modulo by 0 detected. This can lead to unexpected results. 1 is being used as the result.";

impl Checker<'_> {
    pub(super) fn unary(&mut self, op: UnOp, e: &Expr, span: Span) -> TExpr {
        let mk = |kind, ty| TExpr { kind, ty, span };
        match op {
            UnOp::Neg => {
                let t = self.scalar(e, "the operand of `-`");
                mk(TExprKind::Neg(Box::new(t)), Type::S64)
            }
            UnOp::Not => {
                let t = self.scalar(e, "the operand of `!`");
                mk(TExprKind::Not(Box::new(t)), Type::S64)
            }
            UnOp::BitNot => {
                let t = self.scalar(e, "the operand of `~`");
                let ty = arith_type(&t.ty, &t.ty);
                mk(TExprKind::BitNot(Box::new(t)), ty)
            }
            UnOp::Deref => {
                let t = self.scalar(e, "the operand of `*`");
                self.deref(t, 0, span)
            }
            UnOp::AddrOf => self.address_of(e, span),
        }
    }

    /// `&$x`: a pointer to the variable's slot, which `*` reads back (bpftrace's `&$a`).
    fn address_of(&mut self, e: &Expr, span: Span) -> TExpr {
        let var = match &e.kind {
            ExprKind::Var(name) => self.var_index(name),
            _ => None,
        };
        let Some(i) = var.filter(|&i| self.vars[i].ty != Type::Void) else {
            let msg = "`&` takes the address of an assigned variable (`&$x`), not of other values";
            self.error(Diagnostic::error(span, msg));
            return self.poisoned(span);
        };
        let to = Box::new(self.vars[i].ty.clone());
        TExpr { kind: TExprKind::VarAddr(i), ty: Type::Ptr { to, user: false }, span }
    }

    pub(super) fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, span: Span) -> TExpr {
        let mut l = self.expr(lhs);
        let mut r = self.expr(rhs);
        if op.is_comparison() && l.ty.is_scalar() && r.ty.is_scalar() {
            (l, r) = self.c_comparison(op, l, r);
        }
        if let Some(how) = super::pointer_arith::classify(op, &l, &r) {
            return super::pointer_arith::apply(op, l, r, how);
        }
        let ty = if l.ty.is_string() || r.ty.is_string() {
            self.string_operands(op, &l, &r, span)
        } else if l.ty.compares_bytes() || r.ty.compares_bytes() {
            self.byte_operands(op, &l, &r, span)
        } else {
            self.integer_operands(op, &l, &r)
        };
        let Some(ty) = ty else { return self.poisoned(span) };
        if matches!(op, BinOp::Div | BinOp::Mod) && !matches!(r.kind, TExprKind::Int(_)) {
            let warning = self.divide_by_zero_warning(span);
            let kind = TExprKind::Divide { op, lhs: Box::new(l), rhs: Box::new(r), warning };
            return TExpr { kind, ty, span };
        }
        TExpr { kind: TExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) }, ty, span }
    }

    /// The warning a zero divisor at `span` prints, bpftrace's words.
    fn divide_by_zero_warning(&mut self, span: Span) -> usize {
        let format = DIVIDE_BY_ZERO.as_bytes().to_vec();
        let kind = EventKind::Formatted { format, to: Sink::Warning(span) };
        self.add_event(EventDef { kind, args: vec![] })
    }

    /// Arrays (of one type) and `buf()`s compare with `==` and `!=`, byte by byte.
    fn byte_operands(&mut self, op: BinOp, l: &TExpr, r: &TExpr, span: Span) -> Option<Type> {
        let same = match (&l.ty, &r.ty) {
            (Type::Buf(_), Type::Buf(_)) => true,
            (a, b) => a == b,
        };
        if same && matches!(op, BinOp::Eq | BinOp::Ne) {
            return Some(Type::S64);
        }
        let msg = format!("`{}` does not compare `{}` with `{}`", op.symbol(), l.ty, r.ty);
        let d = Diagnostic::error(span, msg)
            .with_help("arrays of one type and buf()s compare with `==` and `!=`, byte by byte");
        self.error(d);
        None
    }

    /// Strings compare with `==` and `!=` only.
    fn string_operands(&mut self, op: BinOp, l: &TExpr, r: &TExpr, span: Span) -> Option<Type> {
        let equality = matches!(op, BinOp::Eq | BinOp::Ne);
        if l.ty.is_string() && r.ty.is_string() && equality {
            return Some(Type::S64);
        }
        let msg = if equality {
            format!("cannot compare `{}` with `{}`", l.ty, r.ty)
        } else {
            format!("`{}` does not apply to strings", op.symbol())
        };
        let mut d = Diagnostic::error(span, msg)
            .with_label(l.span, format!("`{}`", l.ty))
            .with_label(r.span, format!("`{}`", r.ty));
        if matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge) {
            d = d.with_help("use strcmp(a, b) to order strings");
        }
        self.error(d);
        None
    }

    /// The result type of an operator on integers, or `None` after an error.
    fn integer_operands(&mut self, op: BinOp, l: &TExpr, r: &TExpr) -> Option<Type> {
        for side in [l, r] {
            if !side.ty.is_scalar() {
                self.error(Diagnostic::error(
                    side.span,
                    format!("`{}` needs integers, found `{}`", op.symbol(), side.ty),
                ));
                return None;
            }
        }
        if matches!(op, BinOp::Div | BinOp::Mod) && matches!(r.kind, TExprKind::Int(0)) {
            let what = if op == BinOp::Div { "division" } else { "remainder" };
            self.error(
                Diagnostic::error(
                    r.span,
                    format!("{} by zero: the divisor is the constant 0", what),
                )
                .with_help("at run time a zero divisor gives 1 and a warning, as in bpftrace"),
            );
            return None;
        }
        Some(if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            Type::S64
        } else {
            arith_type(&l.ty, &r.ty)
        })
    }

    /// `cond ? then : els`: integers of any kind, strings (the longer's size), or tuples alike
    /// but for their strings' lengths.
    pub(super) fn ternary(&mut self, cond: &Expr, then: &Expr, els: &Expr, span: Span) -> TExpr {
        let cond = self.scalar(cond, "a condition");
        let then = self.expr(then);
        let els = self.expr(els);
        let ty = match (&then.ty, &els.ty) {
            // Branches of one printed kind (bool, an enum) keep it.
            (a, b) if a == b && matches!(a, Type::Bool | Type::Enum(_)) => a.clone(),
            (a, b) if a.is_scalar() && b.is_scalar() => arith_type(a, b),
            (Type::Str(a), Type::Str(b)) => Type::Str(*a.max(b)),
            (Type::Buf(a), Type::Buf(b)) => Type::Buf(*a.max(b)),
            // Tuples that differ only in their strings' lengths: each string the longer.
            (a @ Type::Tuple(_), b @ Type::Tuple(_)) if widened(a, b) == widened(b, a) => {
                widened(a, b)
            }
            (a, b) => {
                let msg = format!("the branches of `?:` have different types: `{}` and `{}`", a, b);
                self.error(
                    Diagnostic::error(span, msg)
                        .with_label(then.span, format!("`{}`", a))
                        .with_label(els.span, format!("`{}`", b)),
                );
                return self.poisoned(span);
            }
        };
        let (then, els) = (super::tuple::fit(then, &ty), super::tuple::fit(els, &ty));
        let (cond, then, els) = (Box::new(cond), Box::new(then), Box::new(els));
        TExpr { kind: TExprKind::Ternary { cond, then, els }, ty, span }
    }
}

/// `a` with each string as long as `b`'s there.
fn widened(a: &Type, b: &Type) -> Type {
    let mut t = a.clone();
    t.widen_strings(b);
    t
}
