//! bpftrace's positional parameters are literals of the program: `$1` is the integer it was
//! given as (`unroll($1)`, `lhist(0, $1, $2, $3)`, `buf(s, $1)` take it where only a constant
//! goes) and `str($1)` its text as a string literal (`kaddr(str($1))`). This pass writes them in
//! before the checker runs; a parameter that is not an integer stays `$N` (a string constant).

use super::params::{param_number, parse_param};
use sonde_syntax::ast::{Expr, ExprKind, Program, UnOp};

/// `program` with its integer parameters and `str($N)` written as literals.
pub(super) fn write_in(program: &Program, params: &[String]) -> Program {
    super::rewrite::literals(program, &|e| literal(e, params))
}

/// The literal `e` stands for: `$N` given as an integer, `$#`, or `str($N)`.
fn literal(e: &Expr, params: &[String]) -> Option<Expr> {
    let at = |kind| Expr { kind, span: e.span };
    match &e.kind {
        ExprKind::Var(name) => match param_number(name)? {
            0 => Some(at(ExprKind::Int(params.len() as u64))),
            n => {
                let (negative, magnitude) = parse_param(params.get(n - 1)?)?;
                let int = at(ExprKind::Int(magnitude));
                Some(match negative {
                    true => at(ExprKind::Unary { op: UnOp::Neg, expr: Box::new(int) }),
                    false => int,
                })
            }
        },
        ExprKind::Call { name, args } if name == "str" && args.len() == 1 => {
            let ExprKind::Var(var) = &args[0].kind else { return None };
            let n = param_number(var).filter(|&n| n > 0)?;
            let text = params.get(n - 1).cloned().unwrap_or_default();
            Some(at(ExprKind::Str(text.into_bytes())))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sonde_syntax::ast::StmtKind;

    fn written(text: &str, params: &[&str]) -> Program {
        let params: Vec<String> = params.iter().map(|p| p.to_string()).collect();
        write_in(&sonde_syntax::parse(text).unwrap(), &params)
    }

    fn first_expr(p: &Program) -> &Expr {
        match &p.probes[0].body.stmts[0].kind {
            StmtKind::Expr(e) => e,
            other => panic!("not an expression: {other:?}"),
        }
    }

    fn args(p: &Program) -> Vec<ExprKind> {
        match &first_expr(p).kind {
            ExprKind::Call { args, .. } => args.iter().map(|a| a.kind.clone()).collect(),
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn integer_parameters_become_integer_literals() {
        let p = written("BEGIN { f($1, $2, $3, $#, $4) }", &["10", "0775", "0xffffffffffffffff"]);
        let got = args(&p);
        assert_eq!(
            got[..4],
            [ExprKind::Int(10), ExprKind::Int(0o775), ExprKind::Int(u64::MAX), ExprKind::Int(3)]
        );
        // A missing parameter is left to the checker (which reads it as 0).
        assert_eq!(got[4], ExprKind::Var("4".into()));
    }

    #[test]
    fn a_negative_parameter_is_a_negated_literal() {
        let p = written("BEGIN { f($1) }", &["-3"]);
        let ExprKind::Unary { op: UnOp::Neg, expr } = &args(&p)[0] else { panic!() };
        assert_eq!(expr.kind, ExprKind::Int(3));
    }

    #[test]
    fn str_of_a_parameter_is_its_text_and_a_word_stays_a_parameter() {
        let p = written("BEGIN { f(str($1), $1, str($2), str($1, 3)) }", &["vfs_read"]);
        let got = args(&p);
        assert_eq!(got[0], ExprKind::Str(b"vfs_read".to_vec()));
        assert_eq!(got[1], ExprKind::Var("1".into()));
        assert_eq!(got[2], ExprKind::Str(Vec::new()));
        assert!(matches!(got[3], ExprKind::Call { .. }));
    }

    #[test]
    fn parameters_are_written_in_unroll_counts_and_predicates() {
        let p = written("BEGIN /$1 == 1/ { unroll ($1) { } }", &["5"]);
        let StmtKind::Unroll { count, .. } = &p.probes[0].body.stmts[0].kind else { panic!() };
        assert_eq!(count.kind, ExprKind::Int(5));
        let Some(Expr { kind: ExprKind::Binary { lhs, .. }, .. }) = &p.probes[0].predicate else {
            panic!()
        };
        assert_eq!(lhs.kind, ExprKind::Int(5));
    }
}
