//! bpftrace's tuples: `(a, b)` as a value, `t.0` to read an element, and a tuple as a map's key
//! standing for its elements (`@m[$t]` is `@m[$t.0, $t.1]`).

use crate::model::tir::{TExpr, TExprKind, TStmt, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, Span};
use sonde_syntax::diag::Diagnostic;
use std::rc::Rc;

impl Checker<'_> {
    /// `(a, b, ...)`: each element in a slot of its own.
    pub fn tuple(&mut self, items: &[Expr], span: Span) -> TExpr {
        let mut elems = Vec::with_capacity(items.len());
        for item in items {
            let t = self.expr(item);
            elems.push(TExpr { span: item.span, ..t });
        }
        self.tuple_of(elems, span)
    }

    /// A tuple of the typed `elems`, each said at its own span when a tuple cannot hold it.
    pub(in crate::sema) fn tuple_of(&mut self, elems: Vec<TExpr>, span: Span) -> TExpr {
        for t in &elems {
            let fits = t.ty.is_scalar()
                || matches!(
                    t.ty,
                    Type::Str(_)
                        | Type::Bytes(_)
                        | Type::Tuple(_)
                        | Type::Record { .. }
                        | Type::Array { .. }
                        | Type::Struct(_)
                );
            if !fits {
                self.error(Diagnostic::error(
                    t.span,
                    format!("a tuple cannot hold a `{}`: integers, strings, arrays, structs and tuples only", t.ty),
                ));
                return self.poisoned(span);
            }
        }
        let ty = Type::Tuple(elems.iter().map(|e| e.ty.clone()).collect());
        TExpr { kind: TExprKind::Tuple(elems), ty, span }
    }

    /// `(a=1, b="x")`: a tuple whose elements have names, each name once.
    pub fn record(&mut self, fields: &[(String, Expr)], span: Span) -> TExpr {
        for (i, (name, e)) in fields.iter().enumerate() {
            if fields[..i].iter().any(|(n, _)| n == name) {
                let msg = format!("this record names the field `{}` twice", name);
                self.error(Diagnostic::error(e.span, msg));
                return self.poisoned(span);
            }
        }
        let items: Vec<Expr> = fields.iter().map(|(_, e)| e.clone()).collect();
        let tuple = self.tuple(&items, span);
        Self::named(tuple, fields.iter().map(|(n, _)| n.clone()).collect())
    }

    /// `tuple` as a record whose elements have `names` (a poisoned tuple as it is).
    pub(in crate::sema) fn named(tuple: TExpr, names: Rc<[String]>) -> TExpr {
        let Type::Tuple(elems) = tuple.ty else { return tuple };
        TExpr { ty: Type::Record { names, elems }, ..tuple }
    }

    /// A record given to a place that holds a record of the same fields in another order, in
    /// that order; anything else as it is. A record written in place of literals and variables
    /// has its fields moved; another (a block expression or `$a++` among its fields runs where
    /// it is written, so in the order written) is read field by field, once held whole.
    pub fn in_field_order(&mut self, v: TExpr, held: Option<&Type>) -> TExpr {
        let (Some(Type::Record { names: want, .. }), Type::Record { names, elems }) = (held, &v.ty)
        else {
            return v;
        };
        let order: Option<Vec<usize>> =
            want.iter().map(|w| names.iter().position(|n| n == w)).collect();
        let Some(order) = order.filter(|o| o.len() == names.len() && want != names) else {
            return v;
        };
        let ty = Type::Record {
            names: want.clone(),
            elems: order.iter().map(|&i| elems[i].clone()).collect(),
        };
        let elems = elems.clone();
        let settled =
            |e: &TExpr| matches!(e.kind, TExprKind::Int(_) | TExprKind::Str(_) | TExprKind::Var(_));
        let mut first = Vec::new();
        let moved = matches!(&v.kind, TExprKind::Tuple(items) if items.iter().all(settled));
        let v = match v.kind {
            TExprKind::Tuple(_) if !moved => {
                let span = v.span;
                let var = self.declare(&format!("record {}..{}", span.lo, span.hi), v.ty.clone());
                let ty = v.ty.clone();
                first.push(TStmt { kind: TStmtKind::SetVar { var, value: v }, span });
                TExpr { kind: TExprKind::Var(var), ty, span }
            }
            _ => v,
        };
        let items = match &v.kind {
            TExprKind::Tuple(items) => order.iter().map(|&i| items[i].clone()).collect(),
            _ => {
                let offsets = Type::tuple_offsets(&elems);
                let field = |i: usize| TExpr {
                    kind: TExprKind::Field { base: Box::new(v.clone()), offset: offsets[i] },
                    ty: elems[i].clone(),
                    span: v.span,
                };
                order.iter().map(|&i| field(i)).collect()
            }
        };
        let record = TExpr { kind: TExprKind::Tuple(items), ty: ty.clone(), span: v.span };
        match first.is_empty() {
            true => record,
            false => {
                TExpr { kind: TExprKind::Then { first, value: Box::new(record) }, ty, span: v.span }
            }
        }
    }

    /// `t.N`, the tuple's element N; `r.name`, a record's field.
    pub fn tuple_field(&mut self, base: TExpr, field: &str, span: Span) -> TExpr {
        let found = match base.ty.clone() {
            Type::Record { names, elems } => match names.iter().position(|n| n == field) {
                Some(i) => Ok((elems, i)),
                None => Err(format!(
                    "this record has no field `{}`: its fields are {}",
                    field,
                    names.join(", ")
                )),
            },
            Type::Tuple(elems) => match field.parse::<usize>().ok().filter(|&i| i < elems.len()) {
                Some(i) => Ok((elems, i)),
                None => Err(format!(
                    "this tuple has {} elements: `.0` to `.{}`",
                    elems.len(),
                    elems.len() - 1
                )),
            },
            other => {
                Err(format!("`.{}` reads an element of a tuple, and this is a `{}`", field, other))
            }
        };
        let (elems, i) = match found {
            Ok(found) => found,
            Err(msg) => {
                self.error(Diagnostic::error(span, msg));
                return self.poisoned(span);
            }
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
