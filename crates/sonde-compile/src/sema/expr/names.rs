//! Bare names and `$variables`: builtin variables, ply's maps without `@`, enum constants,
//! positional parameters, bpftrace's `$target`.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A bare name: a builtin variable, a map (ply's `m` for `@m`), an enum constant of the
    /// script's or the kernel's, a syscall number or errno value of C's headers.
    pub(super) fn ident(&mut self, name: &str, span: Span) -> TExpr {
        if let Some(v) = self.builtin_variable(name, span, false) {
            return v;
        }
        if let Some(map) = self.maps.lookup(name) {
            return self.map_value(map, Vec::new(), span);
        }
        if let Some(v) = self.script_enum(name, span) {
            return v;
        }
        if let Some(v) = self.builtin_variable(name, span, true) {
            return v;
        }
        if let Some(v) = self.kernel_enum(name, span) {
            return v;
        }
        if let Some(v) = self.env.c_constant(name) {
            return TExpr { kind: TExprKind::Int(v as u64), ty: Type::S64, span };
        }
        self.unknown_variable(name, span)
    }

    /// A kernel enum constant by name, from BTF (`TCP_FIN_WAIT1`).
    fn kernel_enum(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let (value, _) = self.env.btf().ok()?.enumerator(name)?;
        Some(TExpr { kind: TExprKind::Int(value as u64), ty: Type::S64, span })
    }

    pub(super) fn var_read(&mut self, name: &str, span: Span) -> TExpr {
        if let Some(p) = self.positional(name, span) {
            return p;
        }
        if name == "target" && !self.vars.iter().any(|v| v.name == "target") {
            return self.child_pid(span);
        }
        match self.var_index(name) {
            Some(i) if self.vars[i].ty != Type::Void => {
                TExpr { kind: TExprKind::Var(i), ty: self.vars[i].ty.clone(), span }
            }
            // `let $a;` read before its first assignment: zero, so an integer from here on.
            Some(i) => {
                self.vars[i].ty = Type::S64;
                TExpr { kind: TExprKind::Var(i), ty: Type::S64, span }
            }
            _ => {
                self.error(Diagnostic::error(
                    span,
                    format!("variable `${}` is used before it is assigned", name),
                ));
                self.poisoned(span)
            }
        }
    }
}
