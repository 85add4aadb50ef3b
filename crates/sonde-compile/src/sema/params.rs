//! bpftrace's positional parameters: `$1`..`$N` are the words after the program, an integer
//! where the word is one and a string otherwise; `str($N)` is always the text, and `$#` is how
//! many there are. A missing one is 0 (or "" in `str()`).

use super::check::Checker;
use crate::model::tir::TExpr;
use sonde_syntax::ast::{Expr, ExprKind, Span};

/// `Some(n)` for `$n`, `Some(0)` for `$#`; `None` for a variable's name.
pub(super) fn param_number(name: &str) -> Option<usize> {
    if name == "#" {
        return Some(0);
    }
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    name.parse().ok().filter(|&n| n > 0)
}

impl Checker<'_> {
    /// `$1` or `$#` as a constant; `None` when `name` is a variable.
    pub(super) fn positional(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let n = param_number(name)?;
        let value = if n == 0 {
            self.opts.params.len() as i64
        } else {
            match self.opts.params.get(n - 1).map(|p| (parse_int(p), p)) {
                None => 0,
                Some((Some(v), _)) => v,
                Some((None, text)) => {
                    return Some(TExpr::const_str(text.clone().into_bytes(), span));
                }
            }
        };
        Some(TExpr::const_s64(value, span))
    }

    /// `str($N)`: the parameter's text as a string constant.
    pub(super) fn positional_str(&mut self, arg: &Expr, span: Span) -> Option<TExpr> {
        let ExprKind::Var(name) = &arg.kind else { return None };
        let n = param_number(name).filter(|&n| n > 0)?;
        let text = self.opts.params.get(n - 1).cloned().unwrap_or_default().into_bytes();
        Some(TExpr::const_str(text, span))
    }
}

/// Decimal, `0x` hexadecimal or a leading `-`, as bpftrace reads a parameter (a value past
/// `i64::MAX` wraps, as C's would in an `int64`).
pub(super) fn parse_int(s: &str) -> Option<i64> {
    let (negative, magnitude) = parse_param(s)?;
    let v = magnitude as i64;
    Some(if negative { v.wrapping_neg() } else { v })
}

/// A parameter as bpftrace reads an integer: its sign and magnitude, in decimal, `0x`
/// hexadecimal or, with a leading `0`, octal, up to `u64::MAX`.
pub(super) fn parse_param(s: &str) -> Option<(bool, u64)> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let magnitude = if let Some(h) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(o) = digits.strip_prefix('0').filter(|o| !o.is_empty()) {
        u64::from_str_radix(o, 8).ok()?
    } else {
        digits.parse::<u64>().ok()?
    };
    // from_str_radix takes a sign of its own: "--5" and "0x-5" are not numbers.
    if digits.starts_with(['+', '-']) || digits.get(2..).is_some_and(|d| d.starts_with(['+', '-']))
    {
        return None;
    }
    Some((negative, magnitude))
}

#[cfg(test)]
mod tests {
    #[test]
    fn parameters_read_as_bpftrace_reads_them() {
        assert_eq!(super::parse_int("42"), Some(42));
        assert_eq!(super::parse_int("-7"), Some(-7));
        assert_eq!(super::parse_int("0x10"), Some(16));
        assert_eq!(super::parse_int("ten"), None);
        assert_eq!(super::parse_int("0775"), Some(0o775));
        assert_eq!(super::parse_int("0"), Some(0));
        assert_eq!(super::parse_param("0xffffffffffffffff"), Some((false, u64::MAX)));
        assert_eq!(super::parse_param("--5"), None);
        assert_eq!(super::parse_param("0x-5"), None);
        assert_eq!(super::parse_param("+5"), None);
        assert_eq!(super::param_number("#"), Some(0));
        assert_eq!(super::param_number("3"), Some(3));
        assert_eq!(super::param_number("x"), None);
    }
}
