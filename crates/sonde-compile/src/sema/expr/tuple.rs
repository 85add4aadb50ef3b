//! bpftrace's tuples: `(a, b)` as a value, `t.0` to read an element, and a tuple as a map's key
//! standing for its elements (`@m[$t]` is `@m[$t.0, $t.1]`).

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `(a, b, ...)`: each element in a slot of its own.
    pub fn tuple(&mut self, items: &[Expr], span: Span) -> TExpr {
        let mut elems = Vec::with_capacity(items.len());
        for item in items {
            let t = self.expr(item);
            let fits = t.ty.is_scalar() && !matches!(t.ty, Type::Stack { .. })
                || matches!(
                    t.ty,
                    Type::Str(_)
                        | Type::Bytes(_)
                        | Type::Tuple(_)
                        | Type::Array { .. }
                        | Type::Struct(_)
                );
            if !fits {
                self.error(Diagnostic::error(
                    item.span,
                    format!("a tuple cannot hold a `{}`: integers, strings, arrays, structs and tuples only", t.ty),
                ));
                return self.poisoned(span);
            }
            elems.push(t);
        }
        let ty = Type::Tuple(elems.iter().map(|e| e.ty.clone()).collect());
        TExpr { kind: TExprKind::Tuple(elems), ty, span }
    }

    /// `t.N`, the tuple's element N.
    pub fn tuple_field(&mut self, base: TExpr, field: &str, span: Span) -> TExpr {
        let Type::Tuple(elems) = base.ty.clone() else {
            self.error(Diagnostic::error(
                span,
                format!("`.{}` reads an element of a tuple, and this is a `{}`", field, base.ty),
            ));
            return self.poisoned(span);
        };
        let Some(i) = field.parse::<usize>().ok().filter(|&i| i < elems.len()) else {
            self.error(Diagnostic::error(
                span,
                format!("this tuple has {} elements: `.0` to `.{}`", elems.len(), elems.len() - 1),
            ));
            return self.poisoned(span);
        };
        let offset = Type::tuple_offsets(&elems)[i];
        TExpr {
            kind: TExprKind::Field { base: Box::new(base), offset },
            ty: elems[i].clone(),
            span,
        }
    }

    /// A map key that is one tuple stands for its elements, so `@m[$t]` with `$t = (a, b)` is the
    /// element `@m[a, b]`.
    pub fn spread_tuple_key(&mut self, keys: Vec<TExpr>) -> Vec<TExpr> {
        let [key] = keys.as_slice() else { return keys };
        let Type::Tuple(elems) = &key.ty else { return keys };
        if let TExprKind::Tuple(items) = &key.kind {
            return items.clone();
        }
        elements(key, elems)
    }
}

/// Each element of the tuple value `t` (of element types `elems`), read from its slot.
fn elements(t: &TExpr, elems: &[Type]) -> Vec<TExpr> {
    elems
        .iter()
        .zip(Type::tuple_offsets(elems))
        .map(|(ty, offset)| TExpr {
            kind: TExprKind::Field { base: Box::new(t.clone()), offset },
            ty: ty.clone(),
            span: t.span,
        })
        .collect()
}

/// `v` laid out as `to`, a tuple of the same shape with strings as long or longer (a map or
/// variable widened by another assignment): a tuple of `v`'s elements each in `to`'s slots.
pub fn fit(v: TExpr, to: &Type) -> TExpr {
    let (Type::Tuple(from), Type::Tuple(into)) = (&v.ty, to) else { return v };
    if v.ty == *to || from.len() != into.len() {
        return v;
    }
    let items: Vec<TExpr> = match &v.kind {
        TExprKind::Tuple(items) => items.clone(),
        _ => elements(&v, from),
    };
    let items = items.into_iter().zip(into.iter()).map(|(item, t)| fit(item, t)).collect();
    TExpr { kind: TExprKind::Tuple(items), ty: to.clone(), span: v.span }
}
