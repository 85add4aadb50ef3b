//! bpftrace's typed declarations, `let $v: TYPE [= value];`: the variable keeps TYPE, every
//! value assigned to it is converted to TYPE as a cast would, and an integer literal that TYPE
//! cannot hold is an error (a cast says truncation is meant).

use super::check::Checker;
use super::stmt::constant;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_syntax::ast::{Expr, ExprKind, Span, TypeName};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `value` (zero when absent) as the declared type `ty`; None after an error.
    pub(super) fn declared_value(
        &mut self,
        ty: &TypeName,
        value: Option<&Expr>,
        span: Span,
    ) -> Option<TExpr> {
        let zero = Expr { kind: ExprKind::Int(0), span };
        let value = value.cloned().unwrap_or(zero);
        let cast =
            Expr { kind: ExprKind::Cast { ty: ty.clone(), expr: Box::new(value.clone()) }, span };
        let v = self.expr(&cast);
        self.literal_fits(&value, &v.ty, &ty_text(ty))?;
        Some(v)
    }

    /// `v`, assigned to the declared variable `var`, converted to its type.
    pub(super) fn convert_for(&mut self, var: usize, value: &Expr, v: TExpr) -> Option<TExpr> {
        let held = self.vars[var].ty.clone();
        if !matches!(held, Type::Int { .. }) || !matches!(v.ty, Type::Int { .. }) {
            return Some(v);
        }
        self.literal_fits(value, &held, &held.to_string())?;
        if v.ty == held {
            return Some(v);
        }
        let span = v.span;
        Some(TExpr { kind: TExprKind::Cast(Box::new(v)), ty: held, span })
    }

    /// Reports an integer literal `value` that `ty` (written `name`) cannot hold.
    fn literal_fits(&mut self, value: &Expr, ty: &Type, name: &str) -> Option<()> {
        let (Some(n), Type::Int { bytes, signed }) = (constant(value), ty) else {
            return Some(());
        };
        let bits = u32::from(*bytes) * 8;
        let (lo, hi) = match signed {
            true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            false => (0, (1i128 << bits) - 1),
        };
        let n = match value.kind {
            // A literal above i64::MAX is read as u64.
            ExprKind::Int(u) => i128::from(u),
            _ => i128::from(n),
        };
        if (lo..=hi).contains(&n) {
            return Some(());
        }
        let msg = format!("{} does not fit in the declared type `{}` ({} to {})", n, name, lo, hi);
        let help = format!("write `({}){}` to keep only its low bits", name, n);
        self.error(Diagnostic::error(value.span, msg).with_help(help));
        None
    }
}

/// The declared type as written: `uint8`, `struct task_struct *`.
fn ty_text(t: &TypeName) -> String {
    match t.pointers {
        0 => t.base.clone(),
        n => format!("{} {}", t.base, "*".repeat(usize::from(n))),
    }
}
