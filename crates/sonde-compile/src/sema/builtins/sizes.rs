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
                // bpftrace's `sizeof(uint64*[2])` (a macro's type parameter indexed).
                Ok(ty) => match t.array {
                    Some(n) => Type::Array { elem: Box::new(ty), len: n as usize },
                    None => ty,
                },
                Err(msg) => {
                    self.error(Diagnostic::error(*tspan, msg));
                    return self.poisoned(span);
                }
            },
            [e] => self.expr(e).ty,
            _ => return self.usage(c),
        };
        TExpr { kind: TExprKind::Int(c_layout(&ty).0 as u64), ty: Type::U64, span }
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

/// The (size, alignment) of `ty` laid out as C would: a tuple as a struct of its members, each
/// at its natural alignment (`(int8, int16, int32)` is 8 bytes, as bpftrace says), though sonde
/// keeps each member in an 8-byte slot of its own.
fn c_layout(ty: &Type) -> (usize, usize) {
    match ty {
        Type::Tuple(members) | Type::Record { elems: members, .. } => {
            let (mut size, mut align) = (0usize, 1usize);
            for m in members.iter() {
                let (msize, malign) = c_layout(m);
                size = size.next_multiple_of(malign) + msize;
                align = align.max(malign);
            }
            (size.next_multiple_of(align), align)
        }
        Type::Int { bytes, .. } => (usize::from(*bytes), usize::from(*bytes)),
        Type::Str(_) | Type::Bytes(_) => (ty.size(), 1),
        Type::Array { elem, .. } => (ty.size(), c_layout(elem).1),
        t => (t.size(), t.size().clamp(1, 8).next_power_of_two()),
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
