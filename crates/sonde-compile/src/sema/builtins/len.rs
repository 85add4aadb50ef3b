//! `len(str)`, the string's length; bpftrace's `len(@map)`, the map's element count, and
//! `len(kstack)`, the frames of the stack taken where it is measured.

use super::spec::Call;
use crate::model::tir::{Builtin, MapValue, TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn len(&mut self, c: &Call) -> TExpr {
        let (arg, span) = (&c.args[0], c.span);
        if let ExprKind::Map { name, keys } = &arg.kind {
            if keys.is_empty() {
                return self.map_len(name, arg.span, span);
            }
        }
        // `len(kstack)`: measured where it is taken, with no stack map of its own.
        let stacks = self.stacks.clone();
        let s = self.expr(arg);
        if let (
            TExprKind::Builtin(Builtin::KStack | Builtin::UStack),
            &Type::Stack { user, frames, .. },
        ) = (&s.kind, &s.ty)
        {
            self.stacks = stacks;
            self.stack_len_frames = self.stack_len_frames.max(frames);
            return TExpr { kind: TExprKind::StackLen { user, frames }, ty: Type::U64, span };
        }
        if let Type::Stack { user, .. } = s.ty {
            let which = if user { "ustack" } else { "kstack" };
            let d = Diagnostic::error(
                arg.span,
                format!("len() measures a stack where it is taken: write `len({which})` (or `len({which}(N))`)"),
            )
            .with_help("a stored stack is an id in the kernel's stack map, which a probe cannot read");
            self.error(d);
            return self.poisoned(span);
        }
        if !s.ty.is_string() {
            let msg = format!("len() takes a string, found `{}`", s.ty);
            self.error(Diagnostic::error(arg.span, msg));
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::StrLen(Box::new(s)), ty: Type::U64, span }
    }

    /// `len(@m)`: the number of elements, counted as elements come and go (see `lower/len.rs`).
    fn map_len(&mut self, name: &str, map_span: Span, span: Span) -> TExpr {
        let map = self.maps.get_or_create(name, map_span);
        self.maps.count(map);
        let refuse = if self.maps.is_lru(map) {
            Some("the kernel evicts an LRU map's elements without telling the program, so sonde cannot count them: declare it `hash(N)`")
        } else if self.maps.has_keys(map) == Some(false) {
            Some("bpftrace's len() takes a map with keys (`@m[k] = v`); a map without keys has one element")
        } else if matches!(self.maps.value(map), Some(MapValue::Agg { func, .. }) if func.has_bucket())
        {
            Some("a histogram's elements are its buckets here: count the keys in a map of their own, `@keys[k] = 1`, and take len() of that")
        } else {
            None
        };
        if let Some(why) = refuse {
            self.error(Diagnostic::error(span, format!("len({}): {}", name, why)));
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::MapLen { map }, ty: Type::S64, span }
    }
}
