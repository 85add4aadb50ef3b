//! Conditions as jumps: a predicate, an `if` or a `?:` jumps on the comparison itself instead
//! of first turning it into 0 or 1 (`args->ret > 0` is one `if r6 s<= 0 goto exit`), and a
//! constant operand is an immediate.

use super::emit::Label;
use super::Lower;
use crate::model::tir::{TExpr, TExprKind};
use sonde_bpf::{Cond, Insn, Reg};
use sonde_syntax::ast::BinOp;

impl Lower<'_> {
    /// Jump to `target` when `x` is true (`when`) or false (`!when`); fall through otherwise.
    pub fn branch(&mut self, x: &TExpr, when: bool, target: Label) {
        let saved = self.e.span;
        self.e.span = x.span;
        self.branch_inner(x, when, target);
        self.e.span = saved;
    }

    /// `x` as a truth value: 1 when the jump `branch` makes for true is taken, else 0.
    pub fn boolean(&mut self, x: &TExpr) -> Reg {
        let truth = self.e.label();
        let end = self.e.label();
        self.branch(x, true, truth);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_imm(d, 0));
        self.e.goto(end);
        self.e.bind(truth);
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.bind(end);
        d
    }

    fn branch_inner(&mut self, x: &TExpr, when: bool, target: Label) {
        match &x.kind {
            TExprKind::Not(inner) => self.branch(inner, !when, target),
            // `a && b` is false when either is; true when both are. `||` the other way round.
            TExprKind::Binary { op: op @ (BinOp::And | BinOp::Or), lhs, rhs } => {
                let and = *op == BinOp::And;
                if when != and {
                    // The first operand alone can decide for `target`.
                    self.branch(lhs, when, target);
                    self.branch(rhs, when, target);
                } else {
                    let skip = self.e.label();
                    self.branch(lhs, !when, skip);
                    self.branch(rhs, when, target);
                    self.e.bind(skip);
                }
            }
            TExprKind::Binary { op, lhs, rhs }
                if !lhs.ty.is_string() && !lhs.ty.compares_bytes() && comparison(*op).is_some() =>
            {
                let signed = crate::model::types::arith_type(&lhs.ty, &rhs.ty).is_signed();
                let cond = comparison(*op).map(|c| c(signed)).unwrap_or(Cond::Ne);
                let cond = if when { cond } else { negate(cond) };
                let l = self.scalar(lhs);
                match immediate(rhs) {
                    Some(imm) => self.e.jmp_imm(cond, l, imm, target),
                    None => {
                        let (l, r) = self.hold_while(l, rhs);
                        self.e.jmp_reg(cond, l, r, target);
                        self.e.free_reg(r);
                        self.e.free_reg(l);
                        return;
                    }
                }
                self.e.free_reg(l);
            }
            _ => {
                let r = self.scalar(x);
                self.e.jmp_imm(if when { Cond::Ne } else { Cond::Eq }, r, 0, target);
                self.e.free_reg(r);
            }
        }
    }
}

/// The jump condition of a comparison operator, by signedness.
fn comparison(op: BinOp) -> Option<fn(bool) -> Cond> {
    Some(match op {
        BinOp::Eq => |_| Cond::Eq,
        BinOp::Ne => |_| Cond::Ne,
        BinOp::Lt => |s| if s { Cond::Slt } else { Cond::Lt },
        BinOp::Le => |s| if s { Cond::Sle } else { Cond::Le },
        BinOp::Gt => |s| if s { Cond::Sgt } else { Cond::Gt },
        BinOp::Ge => |s| if s { Cond::Sge } else { Cond::Ge },
        _ => return None,
    })
}

fn negate(c: Cond) -> Cond {
    match c {
        Cond::Eq => Cond::Ne,
        Cond::Ne => Cond::Eq,
        Cond::Lt => Cond::Ge,
        Cond::Ge => Cond::Lt,
        Cond::Le => Cond::Gt,
        Cond::Gt => Cond::Le,
        Cond::Slt => Cond::Sge,
        Cond::Sge => Cond::Slt,
        Cond::Sle => Cond::Sgt,
        Cond::Sgt => Cond::Sle,
        other => other,
    }
}

/// A constant operand that fits a jump's 32-bit immediate (sign-extended to 64 bits by the
/// CPU, so the comparison sees the same 64-bit value).
fn immediate(x: &TExpr) -> Option<i32> {
    match x.kind {
        TExprKind::Int(v) => i32::try_from(v as i64).ok(),
        _ => None,
    }
}
