//! bpftrace's `sizeof(TYPE or expr)` and `offsetof(TYPE, field[.field...])`: constants from the
//! kernel's BTF (or sonde's own types).

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `sizeof(struct task_struct)`, `sizeof($x)`: the size in bytes.
    pub(super) fn size_of(&mut self, c: &Call) -> TExpr {
        let span = c.span;
        let ty = match c.args {
            [Expr { kind: ExprKind::TypeArg(t), span: tspan }] => match self.resolve_type(t) {
                Ok(ty) => ty,
                Err(msg) => {
                    self.error(Diagnostic::error(*tspan, msg));
                    return self.poisoned(span);
                }
            },
            [e] => self.expr(e).ty,
            _ => return self.usage(c),
        };
        TExpr { kind: TExprKind::Int(ty.size() as u64), ty: Type::U64, span }
    }

    /// `offsetof(struct sk_buff, len)`, `offsetof(struct task_struct, thread_info.flags)`.
    pub(super) fn offset_of(&mut self, c: &Call) -> TExpr {
        let span = c.span;
        let [Expr { kind: ExprKind::TypeArg(t), span: tspan }, field] = c.args else {
            return self.usage(c);
        };
        let mut path = Vec::new();
        if !member_path(field, &mut path) {
            self.error(Diagnostic::error(
                field.span,
                "offsetof() needs a member name, like `comm` or `thread_info.flags`",
            ));
            return self.poisoned(span);
        }
        let mut ty = match self.resolve_type(t) {
            Ok(ty) => ty,
            Err(msg) => {
                self.error(Diagnostic::error(*tspan, msg));
                return self.poisoned(span);
            }
        };
        let mut offset = 0;
        for name in path {
            if let Type::Struct(s) = &ty {
                if let Some(f) = s.fields.iter().find(|f| f.name == name) {
                    offset += f.offset;
                    ty = f.ty.clone();
                    continue;
                }
            }
            let Type::Btf { id, name: sname, user, .. } = &ty else {
                let msg =
                    format!("offsetof(): a `{}` has no member `{}`: it is not a struct", ty, name);
                self.error(Diagnostic::error(field.span, msg));
                return self.poisoned(span);
            };
            let btf = match self.btf_of(user) {
                Ok(b) => b,
                Err(e) => {
                    self.error(Diagnostic::error(field.span, e));
                    return self.poisoned(span);
                }
            };
            match crate::btf_types::member(&btf, *id, name) {
                Ok(m) => {
                    offset += m.offset;
                    ty = match user {
                        Some(binary) => crate::btf_types::of_user(m.ty, binary),
                        None => m.ty,
                    };
                }
                Err(_) => {
                    let msg = format!("`{}` has no member `{}`", sname, name);
                    self.error(Diagnostic::error(field.span, msg));
                    return self.poisoned(span);
                }
            }
        }
        TExpr { kind: TExprKind::Int(offset as u64), ty: Type::U64, span }
    }
}

/// `a.b.c` as the names a, b, c; false for anything else.
fn member_path<'e>(e: &'e Expr, out: &mut Vec<&'e str>) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.push(n);
            true
        }
        ExprKind::Member { expr, field, arrow: false } => {
            member_path(expr, out) && {
                out.push(field);
                true
            }
        }
        _ => false,
    }
}
