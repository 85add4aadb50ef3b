//! bpftrace's positional parameters where a value cannot be a run-time value: in probe specs
//! (`uprobe:$1:main`, `interval:s:$1`, the parameter's text put in place before the provider
//! reads the spec) and `str($N + K)`, the parameter's text from byte K on (bpftrace's pointer
//! arithmetic on the parameter's string: one constant added, at most its length).

use super::check::Checker;
use super::params::param_number;
use crate::model::tir::TExpr;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

/// `definition` with each `$N` replaced by parameter N's text and `$#` by their number. A
/// parameter that was not given is an error: a probe spec has no zero to fall back on.
pub fn substitute(definition: &str, params: &[String]) -> Result<String, String> {
    if !definition.contains('$') {
        return Ok(definition.to_string());
    }
    let mut out = String::new();
    let mut rest = definition;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = match after.strip_prefix('#') {
            Some(_) => 1,
            None => after.bytes().take_while(u8::is_ascii_digit).count(),
        };
        match param_number(&after[..len]) {
            Some(0) => out.push_str(&params.len().to_string()),
            Some(n) => match params.get(n - 1) {
                Some(p) => out.push_str(p),
                None => {
                    return Err(format!(
                        "the probe spec uses `${}`, but {} positional parameter{} given: add them after the program (`sonde script.bt ARG...`)",
                        n,
                        params.len(),
                        if params.len() == 1 { " was" } else { "s were" }
                    ))
                }
            },
            None => out.push('$'),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Is `e` `$N + K` (a parameter plus a constant)?
pub(super) fn is_param_plus_const(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Binary { op: BinOp::Add, lhs, rhs }
        if matches!(&lhs.kind, ExprKind::Var(n) if param_number(n).is_some_and(|n| n > 0))
            && matches!(rhs.kind, ExprKind::Int(_)))
}

impl Checker<'_> {
    /// `str($N + K)`: parameter N's text from byte K on, as a string constant.
    pub(super) fn positional_str_offset(&mut self, arg: &Expr, span: Span) -> TExpr {
        let ExprKind::Binary { lhs, rhs, .. } = &arg.kind else { return self.poisoned(span) };
        let (ExprKind::Var(name), ExprKind::Int(k)) = (&lhs.kind, &rhs.kind) else {
            return self.poisoned(span);
        };
        let n = param_number(name).unwrap_or(0);
        let text = n.checked_sub(1).and_then(|i| self.opts.params.get(i)).cloned();
        let text = text.unwrap_or_default().into_bytes();
        if *k > text.len() as u64 {
            let msg = format!(
                "`str(${} + {})` starts past the end of the parameter, which has {} byte{}",
                n,
                k,
                text.len(),
                if text.len() == 1 { "" } else { "s" }
            );
            self.error(Diagnostic::error(arg.span, msg));
            // An empty string, so the string's users add no error of their own.
            return TExpr::const_str(Vec::new(), span);
        }
        let text = text[*k as usize..].to_vec();
        TExpr::const_str(text, span)
    }
}

#[cfg(test)]
mod tests {
    use super::substitute;

    #[test]
    fn parameters_fill_probe_specs() {
        let p = vec!["/bin/bash".to_string(), "5".to_string()];
        assert_eq!(substitute("$1:readline", &p).unwrap(), "/bin/bash:readline");
        assert_eq!(substitute("s:$2", &p).unwrap(), "s:5");
        assert_eq!(substitute("ms:$#$2", &p).unwrap(), "ms:25");
        assert_eq!(substitute("no_params", &p).unwrap(), "no_params");
        assert_eq!(substitute("a$b", &p).unwrap(), "a$b");
        let e = substitute("s:$3", &p).unwrap_err();
        assert!(e.contains("`$3`") && e.contains("2 positional parameters were given"), "{}", e);
    }
}
