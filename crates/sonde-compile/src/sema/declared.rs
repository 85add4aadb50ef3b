//! bpftrace's typed declarations, `let $v: TYPE [= value];`: the variable keeps TYPE, every
//! value assigned to it is converted to TYPE as a cast would, and an integer literal that TYPE
//! cannot hold is an error (a cast says truncation is meant). A variable of a type that is no
//! integer or pointer (`string`, a struct, an array `int32[4]`, `struct W[10]`) starts zeroed
//! and takes values of that type only.

use super::check::Checker;
use super::stmt::constant;
use crate::model::tir::{TExpr, TExprKind, TStmtKind};
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

    /// The type `let $v: ty` declares: bpftrace's `string` (a string of the configured size),
    /// `ELEM[N]` an array; None after an error.
    pub(super) fn declared_type(&mut self, ty: &TypeName) -> Option<Type> {
        if ty.base == "string" && ty.pointers == 0 && ty.array.is_none() {
            return Some(Type::Str(self.opts.string_size));
        }
        let elem = match self.resolve_type(ty) {
            Ok(t) => t,
            Err(msg) => {
                self.error(Diagnostic::error(ty.span, msg));
                return None;
            }
        };
        match ty.array {
            None => Some(elem),
            Some(0) => {
                let msg = format!(
                    "the array type `{}[]` needs its length: `{}[N]`",
                    ty_text(ty),
                    ty_text(ty)
                );
                self.error(Diagnostic::error(ty.span, msg));
                None
            }
            Some(n) => Some(Type::Array { elem: Box::new(elem), len: n as usize }),
        }
    }

    /// `let $v: held [= value]` for a type that is no integer or pointer: zeroed, or the value
    /// when it is of that type (a string of any length).
    pub(super) fn declared_whole(
        &mut self,
        name: &str,
        held: Type,
        value: Option<&Expr>,
    ) -> Option<TStmtKind> {
        let v = match value {
            Some(e) => Some(self.expr_or_poison(e)?),
            None => None,
        };
        let mut held = held;
        if let Some(v) = &v {
            match (&held, &v.ty) {
                (Type::Str(n), Type::Str(m)) => held = Type::Str(*n.max(m)),
                (h, t) if h == t => {}
                (h, t) => {
                    let msg = format!("a variable declared `{}` cannot hold a `{}`", h, t);
                    self.error(Diagnostic::error(v.span, msg));
                    return None;
                }
            }
        }
        let var = self.declare(name, held);
        self.vars[var].declared = true;
        Some(match v {
            Some(value) => TStmtKind::SetVar { var, value },
            None => TStmtKind::ZeroVar { var },
        })
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
