//! Helpers shared by the integration tests.
#![allow(dead_code)]

use sonde_syntax::ast::{Expr, ExprKind, Program, Stmt, StmtKind};
use sonde_syntax::diag::SourceFile;

pub fn parse_ok(text: &str) -> Program {
    match sonde_syntax::parse(text) {
        Ok(p) => p,
        Err(d) => panic!("{:?} failed:\n{}", text, render_all(text, &d)),
    }
}

/// The statements of a single `BEGIN` probe wrapped around `body`.
pub fn stmts(body: &str) -> Vec<Stmt> {
    let mut p = parse_ok(&format!("BEGIN {{ {} }}", body));
    p.probes.remove(0).body.stmts
}

/// The expression statement `src`, as an S-expression.
pub fn expr(src: &str) -> String {
    let s = stmts(&format!("{};", src));
    assert_eq!(s.len(), 1, "{}", src);
    match &s[0].kind {
        StmtKind::Expr(e) => sx(e),
        k => panic!("not an expression statement: {:?}", k),
    }
}

/// The predicate of `BEGIN /pred/ {}`, as an S-expression.
pub fn predicate(pred: &str) -> String {
    let p = parse_ok(&format!("BEGIN /{}/ {{ }}", pred));
    sx(p.probes[0].predicate.as_ref().expect("a predicate"))
}

/// A compact, fully parenthesised form that makes precedence visible.
pub fn sx(e: &Expr) -> String {
    let list = |es: &[Expr]| es.iter().map(sx).collect::<Vec<_>>().join(", ");
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Str(s) => format!("{:?}", String::from_utf8_lossy(s)),
        ExprKind::Ident(n) => n.clone(),
        ExprKind::Var(n) => format!("${}", n),
        ExprKind::Map { name, keys } if keys.is_empty() => name.clone(),
        ExprKind::Map { name, keys } => format!("{}[{}]", name, list(keys)),
        ExprKind::Call { name, args } => format!("{}({})", name, list(args)),
        ExprKind::Unary { op, expr } => format!("({}{})", op.symbol(), sx(expr)),
        ExprKind::Binary { op, lhs, rhs } => format!("({} {} {})", sx(lhs), op.symbol(), sx(rhs)),
        ExprKind::Ternary { cond, then, els } => {
            format!("({} ? {} : {})", sx(cond), sx(then), sx(els))
        }
        ExprKind::Cast { ty, expr } => format!("(({}){})", ty, sx(expr)),
        ExprKind::Member { expr, field, arrow } => {
            format!("{}{}{}", sx(expr), if *arrow { "->" } else { "." }, field)
        }
        ExprKind::Index { expr, index } => format!("index({}, {})", sx(expr), sx(index)),
        ExprKind::Tuple(es) => format!("tuple({})", list(es)),
        ExprKind::Record(fs) => {
            let fields: Vec<String> = fs.iter().map(|(n, e)| format!("{}={}", n, sx(e))).collect();
            format!("record({})", fields.join(", "))
        }
        ExprKind::TypeArg(ty) => format!("type({})", ty),
        ExprKind::Block { stmts, value } => format!("block({}; {})", stmts.len(), sx(value)),
        ExprKind::Step { target, op, post } => {
            let sym = if *op == sonde_syntax::ast::BinOp::Add { "++" } else { "--" };
            match post {
                true => format!("({}{})", sx(target), sym),
                false => format!("({}{})", sym, sx(target)),
            }
        }
    }
}

pub fn render_all(text: &str, diags: &[sonde_syntax::diag::Diagnostic]) -> String {
    let file = SourceFile { name: "prog.ply".into(), text: text.into() };
    diags.iter().map(|d| sonde_syntax::render(d, &file, false)).collect()
}

/// The error messages for a program that must fail.
pub fn errors(text: &str) -> Vec<String> {
    match sonde_syntax::parse(text) {
        Ok(p) => panic!("{:?} parsed: {:#?}", text, p),
        Err(d) => d.into_iter().map(|d| d.message).collect(),
    }
}

/// The rendered diagnostics for a program that must fail.
pub fn rendered(text: &str) -> String {
    match sonde_syntax::parse(text) {
        Ok(p) => panic!("{:?} parsed: {:#?}", text, p),
        Err(d) => render_all(text, &d),
    }
}
