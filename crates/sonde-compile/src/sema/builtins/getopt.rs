//! bpftrace's named program options: `getopt("name")`, `getopt("name", default)` and
//! `getopt("name", default, "description")` read `--name` or `--name=value` given after the
//! program (`sonde opensnoop.bt -- --depth=10 --errname`). The default's type is the option's:
//! a string literal makes a string option, an integer (or `true`/`false`) an integer one;
//! without a default the option is a boolean, false unless given. Options are known when the
//! program is compiled, so each `getopt` is a constant.

use super::spec::Call;
use crate::model::tir::TExpr;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind, Span, UnOp};
use sonde_syntax::diag::Diagnostic;

/// How an option's word reads: `true`/`1` and `false`/`0` as bpftrace's booleans take them,
/// other integers as positional parameters read (decimal, `0x` hex, an optional `-`).
fn parse_int(text: &str) -> Option<i64> {
    match text.to_ascii_lowercase().as_str() {
        "true" => Some(1),
        "false" => Some(0),
        _ => crate::sema::params::parse_int(text),
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
                let v = self.option_value(name, Default::Int(d as i64), given, span);
                crate::sema::expr::cast::as_bool(v, span)
            }
            (Default::Int(d), None) => TExpr::const_s64(d, span),
            // `--name` alone is true (1), as bpftrace's boolean options are.
            (Default::Int(_), Some(None)) => TExpr::const_s64(1, span),
            (Default::Int(_), Some(Some(text))) => match parse_int(&text) {
                Some(v) => TExpr::const_s64(v, span),
                None => {
                    let msg = format!(
                        "--{}={}: the option `{}` takes an integer or `true`/`false` (its default is one)",
                        name, text, name
                    );
                    self.error(Diagnostic::error(span, msg));
                    TExpr::const_s64(0, span)
                }
            },
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
    #[test]
    fn option_words_read_as_bpftrace_reads_them() {
        assert_eq!(super::parse_int("35"), Some(35));
        assert_eq!(super::parse_int("-3"), Some(-3));
        assert_eq!(super::parse_int("0x10"), Some(16));
        assert_eq!(super::parse_int("true"), Some(1));
        assert_eq!(super::parse_int("false"), Some(0));
        assert_eq!(super::parse_int("yes"), None);
    }
}
