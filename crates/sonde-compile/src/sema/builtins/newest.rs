//! bpftrace 0.24–0.26's functions: `is_err(p)`, `container_of(p, TYPE, member)`,
//! `find(@m, key, $v)` and `str_concat(a, b)`.

use super::spec::Call;
use crate::model::tir::{MapValue, TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, TypeName};
use sonde_syntax::diag::Diagnostic;

/// The kernel's MAX_ERRNO: `IS_ERR()` holds for the last 4095 addresses.
const MAX_ERRNO: u64 = 4095;

/// The longest string `str_concat()` makes, as bpftrace's `string[1024]`.
const MAX_CONCAT: usize = 1024;

/// Byte pairs the unrolled copy may take at most (the second string copied at each place the
/// first may end), which keeps the program's jumps within BPF's 16-bit offsets.
const MAX_CONCAT_PAIRS: usize = 128 * 64;

impl Checker<'_> {
    /// `is_err(p)`: the kernel's `IS_ERR()`, true for the addresses -4095..-1 (an errno in a
    /// pointer).
    pub(super) fn is_err(&mut self, c: &Call) -> TExpr {
        let p = self.scalar(&c.args[0], "the pointer of is_err()");
        let span = c.span;
        let address = TExpr { kind: TExprKind::Cast(Box::new(p)), ty: Type::U64, span };
        let limit = TExpr { kind: TExprKind::Int(MAX_ERRNO.wrapping_neg()), ty: Type::U64, span };
        let kind =
            TExprKind::Binary { op: BinOp::Ge, lhs: Box::new(address), rhs: Box::new(limit) };
        TExpr { kind, ty: Type::Bool, span }
    }

    /// `container_of(p, struct T, member)`: the `struct T *` whose `member` `p` points at,
    /// `(struct T *)((u64)p - offsetof(struct T, member))`, in the same memory as `p`.
    pub(super) fn container_of(&mut self, c: &Call) -> TExpr {
        let [ptr, ty @ Expr { kind: ExprKind::TypeArg(t), .. }, member] = c.args else {
            return self.usage(c);
        };
        let before = self.diags.len();
        let p = self.scalar(ptr, "the pointer of container_of()");
        let offset_args = [ty.clone(), member.clone()];
        let offset = self.offset_of(&Call { args: &offset_args, ..*c });
        if self.diags.len() > before {
            return self.poisoned(c.span);
        }
        let pointer = TypeName { pointers: t.pointers + 1, ..t.clone() };
        let target = match self.resolve_type(&pointer) {
            Ok(target) => target,
            Err(msg) => {
                self.error(Diagnostic::error(t.span, msg));
                return self.poisoned(c.span);
            }
        };
        let user = matches!(p.ty, Type::Ptr { user: true, .. });
        let target = match target {
            Type::Ptr { to, .. } => Type::Ptr { to, user },
            other => other,
        };
        let span = c.span;
        let address = TExpr { kind: TExprKind::Cast(Box::new(p)), ty: Type::U64, span };
        let kind =
            TExprKind::Binary { op: BinOp::Sub, lhs: Box::new(address), rhs: Box::new(offset) };
        let difference = TExpr { kind, ty: Type::U64, span };
        TExpr { kind: TExprKind::Cast(Box::new(difference)), ty: target, span }
    }

    /// `find(@m, key, $v)`: true, with the element's value in `$v`, when the map holds the
    /// element; false, `$v` unchanged, when it does not.
    pub(super) fn find(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Map { name, keys }, span: mspan }, key, var] = c.args else {
            return self.usage(c);
        };
        let ExprKind::Var(var_name) = &var.kind else {
            return self.usage_at(c, var.span);
        };
        if !keys.is_empty() {
            return self.usage_at(c, *mspan);
        }
        let map = self.maps.get_or_create(name, *mspan);
        if matches!(self.maps.value(map), Some(MapValue::Agg { .. })) {
            let msg = format!("find() reads maps of assigned values; `{}` is an aggregation", name);
            self.error(Diagnostic::error(*mspan, msg));
            return self.poisoned(c.span);
        }
        let keys = self.map_keys(map, std::slice::from_ref(key), key.span);
        let value = self.map_value(map, Vec::new(), c.span);
        let Some(var) = self.variable_for(var_name, &value, var.span) else {
            return self.poisoned(c.span);
        };
        TExpr { kind: TExprKind::MapFind { map, keys, var }, ty: Type::Bool, span: c.span }
    }

    /// `str_concat(a, b)`: a string as long as both (at most 1024 bytes).
    pub(super) fn str_concat(&mut self, c: &Call) -> TExpr {
        let Some((a, b)) = self.string_pair(c, "joins", MAX_CONCAT_PAIRS) else {
            return self.poisoned(c.span);
        };
        // Both buffers' NULs make room for the one the result needs.
        let size = (a.ty.size() + b.ty.size() - 1).min(MAX_CONCAT);
        let kind = TExprKind::StrConcat(Box::new(a), Box::new(b));
        TExpr { kind, ty: Type::Str(size), span: c.span }
    }
}
