//! bpftrace's named program options: `getopt("name")`, `getopt("name", default)` and
//! `getopt("name", default, "description")` read `--name` or `--name=value` given after the
//! program (`sonde opensnoop.bt -- --depth=10 --errname`). The default's type is the option's:
//! a string literal makes a string option, an integer (or `true`/`false`) an integer one;
//! without a default the option is a boolean, false unless given. Options are known when the
//! program is compiled, so each `getopt` is a constant.

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind, Span, UnOp};
use sonde_syntax::diag::Diagnostic;

/// How a boolean option's word reads, as bpftrace's: `true`/`1` and `false`/`0` (any case).
fn parse_bool(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

/// An integer option's word as a positional parameter reads (decimal, `0x` hex, leading-0
/// octal, an optional `-`), typed as that literal in the program would be: past `i64::MAX` a
/// `u64`.
fn int_value(text: &str, span: Span) -> Option<TExpr> {
    match crate::sema::params::parse_param(text)? {
        (true, v) => Some(TExpr::const_s64((v as i64).wrapping_neg(), span)),
        (false, v) if v > i64::MAX as u64 => {
            Some(TExpr { kind: TExprKind::Int(v), ty: Type::U64, span })
        }
        (false, v) => Some(TExpr::const_s64(v as i64, span)),
    }
}

/// One `getopt` call: the option's name, description (may be empty), default as written.
pub(in crate::sema) struct GetOpt {
    pub name: String,
    pub about: String,
    pub default: String,
    pub span: Span,
}

/// Add a probe's `getopt` calls to the program's options (first call first): as in bpftrace,
/// every call of one option has the same default, and a description given once counts for
/// all of them.
pub(in crate::sema) fn merge(
    all: &mut Vec<GetOpt>,
    calls: Vec<GetOpt>,
    diags: &mut Vec<Diagnostic>,
) {
    for c in calls {
        let Some(known) = all.iter_mut().find(|o| o.name == c.name) else {
            all.push(c);
            continue;
        };
        if known.default != c.default {
            diags.push(
                Diagnostic::error(
                    c.span,
                    format!(
                        "the option `{}` has the default {} here and {} where it is first read: give every getopt(\"{}\") one default (a macro can hold it)",
                        c.name, c.default, known.default, c.name
                    ),
                )
                .with_label(known.span, "first read here"),
            );
        }
        if known.about.is_empty() {
            known.about = c.about;
        }
    }
}

/// A default that is a literal: an integer (possibly negative), `true`/`false` or a string.
enum Default {
    Int(i64),
    Bool(bool),
    Str(Vec<u8>),
}

fn literal(e: &Expr) -> Option<Default> {
    match &e.kind {
        ExprKind::Int(v) => Some(Default::Int(*v as i64)),
        ExprKind::Str(s) => Some(Default::Str(s.clone())),
        ExprKind::Cast { ty, expr } if ty.base == "bool" => match expr.kind {
            ExprKind::Int(v) => Some(Default::Bool(v != 0)),
            _ => None,
        },
        ExprKind::Unary { op: UnOp::Neg, expr } => match expr.kind {
            ExprKind::Int(v) => Some(Default::Int(-(v as i64))),
            _ => None,
        },
        _ => None,
    }
}

impl Checker<'_> {
    pub(in crate::sema) fn getopt(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Str(name), .. }, rest @ ..] = c.args else {
            return self.usage(c);
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let about = self.description(rest.get(1));
        let default = match rest.first() {
            None => Default::Bool(false),
            Some(d) => match literal(d) {
                Some(default) => default,
                None => {
                    let msg =
                        "getopt()'s default is a literal: an integer, `true`/`false` or a string";
                    self.error(Diagnostic::error(d.span, msg));
                    return self.poisoned(c.span);
                }
            },
        };
        let shown = match &default {
            Default::Int(v) => v.to_string(),
            Default::Bool(b) => b.to_string(),
            Default::Str(s) => format!("{:?}", String::from_utf8_lossy(s)),
        };
        let call = GetOpt { name: name.clone(), about, default: shown, span: c.span };
        self.options.push(call);
        let given = self.opts.named.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
        self.option_value(&name, default, given, c.span)
    }

    /// The description, a string literal (said when it is something else).
    fn description(&mut self, about: Option<&Expr>) -> String {
        match about {
            Some(Expr { kind: ExprKind::Str(d), .. }) => String::from_utf8_lossy(d).into(),
            Some(d) => {
                let msg = "getopt()'s third argument is the option's description, a string literal";
                self.error(Diagnostic::error(d.span, msg));
                String::new()
            }
            None => String::new(),
        }
    }

    /// The option's value: as `given` after the program (`Some(None)`: `--name` alone), or
    /// the default.
    fn option_value(
        &mut self,
        name: &str,
        default: Default,
        given: Option<Option<String>>,
        span: Span,
    ) -> TExpr {
        match (default, given) {
            (Default::Bool(d), given) => {
                let v = match given {
                    None => d,
                    // `--name` alone is true, as bpftrace's boolean options are.
                    Some(None) => true,
                    Some(Some(text)) => parse_bool(&text).unwrap_or_else(|| {
                        let msg = format!(
                            "--{}={}: the option `{}` is true or false (`true`, `false`, 1 or 0)",
                            name, text, name
                        );
                        self.error(Diagnostic::error(span, msg));
                        false
                    }),
                };
                crate::sema::expr::cast::as_bool(TExpr::const_s64(v as i64, span), span)
            }
            (Default::Int(d), None) => TExpr::const_s64(d, span),
            // `--name` alone is 1, as bpftrace reads it.
            (Default::Int(_), Some(None)) => TExpr::const_s64(1, span),
            (Default::Int(_), Some(Some(text))) => int_value(&text, span).unwrap_or_else(|| {
                let msg = format!(
                    "--{}={}: the option `{}` takes an integer (its default is one)",
                    name, text, name
                );
                self.error(Diagnostic::error(span, msg));
                TExpr::const_s64(0, span)
            }),
            (Default::Str(s), None) => TExpr::const_str(s, span),
            (Default::Str(_), Some(Some(text))) => TExpr::const_str(text.into_bytes(), span),
            (Default::Str(_), Some(None)) => {
                let msg = format!(
                    "--{}: the option `{}` takes a string: write `--{}=VALUE`",
                    name, name, name
                );
                self.error(Diagnostic::error(span, msg));
                TExpr::const_str(Vec::new(), span)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::tir::TExprKind;
    use crate::model::types::Type;

    #[test]
    fn option_words_read_as_bpftrace_reads_them() {
        let int = |t: &str| super::int_value(t, Default::default()).map(|e| (e.kind, e.ty));
        assert!(matches!(int("35"), Some((TExprKind::Int(35), Type::Int { signed: true, .. }))));
        assert!(matches!(int("-3"), Some((TExprKind::Int(v), _)) if v as i64 == -3));
        assert!(matches!(int("0x10"), Some((TExprKind::Int(16), _))));
        assert!(matches!(int("0xffffffffffffffff"), Some((TExprKind::Int(u64::MAX), Type::U64))));
        // An integer option is not a boolean one.
        assert!(int("False").is_none() && int("yes").is_none());
        assert_eq!(super::parse_bool("False"), Some(false));
        assert_eq!(super::parse_bool("1"), Some(true));
        assert_eq!(super::parse_bool("yes"), None);
    }
}
