//! The aggregations, assigned to a map element: `@n[comm] = count()`, `sum(x)`..., and
//! `lhist(x, min, max, step)` with its constant bounds.

use super::spec::{Aggregate, Call};
use crate::model::tir::AggFunc;
use crate::sema::check::Checker;
use crate::sema::stmt::constant;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `count()`, `sum(x)`, `min(x)`...: `func` over the call's value.
    pub(super) fn aggregate(&mut self, func: AggFunc, c: &Call) -> Aggregate {
        let arg = c.args.first().map(|a| self.scalar(a, &format!("{}()'s value", c.name)));
        Some((func, arg))
    }

    /// `lhist(x, min, max, step)`: buckets of `step` from `min` to `max`, all constants.
    pub(super) fn lhist(&mut self, c: &Call) -> Aggregate {
        let mut consts = [0i64; 3];
        for (i, a) in c.args[1..].iter().enumerate() {
            let Some(v) = constant(a) else {
                let msg = "lhist()'s bounds and step must be constant integers";
                self.error(Diagnostic::error(a.span, msg));
                return None;
            };
            consts[i] = v;
        }
        let [min, max, step] = consts;
        if step <= 0 || max <= min || (max - min) / step > 1000 {
            self.error(Diagnostic::error(
                c.span,
                "lhist() needs min < max and 0 < step, with at most 1000 buckets",
            ));
            return None;
        }
        let arg = self.scalar(&c.args[0], "lhist()'s value");
        Some((AggFunc::Lhist { min, max, step }, Some(arg)))
    }
}
