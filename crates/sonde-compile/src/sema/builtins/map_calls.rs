//! bpftrace's calls on one element of a map: `has_key(@m, k...)` and `delete(@m, k...)` as a
//! value.

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind};

impl Checker<'_> {
    /// `has_key(@m, k...)`: true when the element is present; `delete(@m, k...)`: removes it,
    /// true when it was there.
    pub(super) fn map_element(&mut self, c: &Call) -> TExpr {
        let Some((map, keys)) = self.map_and_keys(c) else {
            return self.poisoned(c.span);
        };
        let kind = if c.name == "has_key" {
            TExprKind::MapHas { map, keys }
        } else {
            TExprKind::MapDelete { map, keys }
        };
        TExpr { kind, ty: Type::Bool, span: c.span }
    }

    /// The map and typed keys of `f(@m, k1, k2)`, as bpftrace spells an element.
    fn map_and_keys(&mut self, c: &Call) -> Option<(usize, Vec<TExpr>)> {
        match c.args {
            [Expr { kind: ExprKind::Map { name: m, keys }, span: mspan }, rest @ ..]
                if keys.is_empty() && (!rest.is_empty() || c.name == "delete") =>
            {
                let map = self.maps.get_or_create(m, *mspan);
                let key_span = match rest {
                    [] => *mspan,
                    [first, .., last] => first.span.to(last.span),
                    [only] => only.span,
                };
                Some((map, self.map_keys(map, rest, key_span)))
            }
            _ => {
                self.usage(c);
                None
            }
        }
    }
}
