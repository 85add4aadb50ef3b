//! Reading a map element (`@m[k]`, ply's `m[k]`): its keys checked against the map's, its value
//! typed by what the map holds.

use crate::model::tir::{MapValue, TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// Check key expressions against the map's key types, returning them typed.
    pub fn map_keys(&mut self, map: usize, keys: &[Expr], span: Span) -> Vec<TExpr> {
        let typed: Vec<TExpr> = keys.iter().map(|k| self.expr(k)).collect();
        let typed = self.spread_tuple_key(typed);
        for k in &typed {
            if matches!(k.ty, Type::Btf { .. } | Type::Void) {
                self.error(Diagnostic::error(k.span, format!("a `{}` cannot be a map key", k.ty)));
            }
        }
        let tys: Vec<Type> = typed.iter().map(|k| k.ty.clone()).collect();
        let key_span =
            if keys.is_empty() { span } else { keys[0].span.to(keys[keys.len() - 1].span) };
        if let Err(d) = self.maps.use_keys(map, &tys, key_span) {
            self.error(d);
        }
        match self.maps.keys(map) {
            Some(held) if held.len() == typed.len() => {
                typed.into_iter().zip(held).map(|(k, t)| super::tuple::fit(k, t)).collect()
            }
            _ => typed,
        }
    }

    pub(super) fn map_read(&mut self, name: &str, keys: &[Expr], span: Span) -> TExpr {
        let map = self.maps.get_or_create(name, span);
        let keys = self.map_keys(map, keys, span);
        self.map_value(map, keys, span)
    }

    pub(in crate::sema) fn map_value(&mut self, map: usize, keys: Vec<TExpr>, span: Span) -> TExpr {
        let ty = match self.maps.value(map) {
            Some(MapValue::Plain(t)) => t.clone(),
            Some(MapValue::Agg { func, signed }) => {
                let (func, signed) = (*func, *signed);
                match self.agg_read_type(map, func, signed, span) {
                    Some(t) => t,
                    None => return self.poisoned(span),
                }
            }
            // Not known yet: pass 1 will learn it; pass 2 reports maps that are never assigned.
            None => Type::S64,
        };
        TExpr { kind: TExprKind::MapGet { map, keys }, ty, span }
    }
}
