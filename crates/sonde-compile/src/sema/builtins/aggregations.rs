//! The aggregations, assigned to a map element: `@n[comm] = count()`, `sum(x)`..., and
//! `lhist(x, min, max, step)` with its constant bounds, `tseries(x, interval, n)` with its
//! constant intervals.

use super::spec::{Aggregate, Call};
use crate::model::tir::{AggFunc, TsAgg};
use crate::sema::check::Checker;
use crate::sema::stmt::constant;
use sonde_syntax::ast::ExprKind;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `count()`, `sum(x)`, `min(x)`...: `func` over the call's value.
    pub(super) fn aggregate(&mut self, func: AggFunc, c: &Call) -> Aggregate {
        let arg = c.args.first().map(|a| self.scalar(a, &format!("{}()'s value", c.name)));
        Some((func, arg))
    }

    /// `hist(x)`, and bpftrace's `hist(x, k)`: each power of two split into 2^k buckets, k a
    /// constant from 0 to 5.
    pub(super) fn hist(&mut self, c: &Call) -> Aggregate {
        let bits = match c.args.get(1) {
            None => 0,
            Some(a) => match constant(a).filter(|k| (0..=5).contains(k)) {
                Some(k) => k as u8,
                None => {
                    let msg = format!("{}()'s second argument is a constant from 0 to 5: how many bits below each power of two split its bucket", c.name);
                    self.error(Diagnostic::error(a.span, msg));
                    return None;
                }
            },
        };
        let arg = self.scalar(&c.args[0], &format!("{}()'s value", c.name));
        Some((AggFunc::Quantize { bits }, Some(arg)))
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

    /// `tseries(x, interval, n[, "avg"|"sum"|"min"|"max"])`: the interval (a duration such as
    /// `100ms`) and the number of intervals kept are constants.
    pub(super) fn tseries(&mut self, c: &Call) -> Aggregate {
        let interval = constant(&c.args[1]).filter(|&v| v > 0);
        let intervals = constant(&c.args[2]).filter(|&v| (1..=1_000_000).contains(&v));
        let (Some(interval), Some(intervals)) = (interval, intervals) else {
            let msg = "tseries() takes a constant interval (like `100ms`) and a constant number of intervals, 1 to 1000000";
            self.error(Diagnostic::error(c.span, msg));
            return None;
        };
        let agg = match c.args.get(3).map(|a| &a.kind) {
            None => Some(TsAgg::Last),
            Some(ExprKind::Str(s)) => std::str::from_utf8(s).ok().and_then(TsAgg::named),
            Some(_) => None,
        };
        let Some(agg) = agg else {
            let msg = "tseries()'s last argument is \"avg\", \"sum\", \"min\" or \"max\"";
            self.error(Diagnostic::error(c.args[3].span, msg));
            return None;
        };
        let arg = self.scalar(&c.args[0], "tseries()'s value");
        let func =
            AggFunc::Tseries { interval_ns: interval as u64, intervals: intervals as u64, agg };
        Some((func, Some(arg)))
    }
}
