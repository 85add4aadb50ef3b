//! Rewrites a program's expressions in place: for the passes that write constants of the session
//! into the program before the checker runs (parameters, settings).

use sonde_syntax::ast::{Block, Expr, ExprKind, ForIter, Program, Stmt, StmtKind};

/// What an expression stands for, if it is one the pass writes in.
pub(super) type Literal<'a> = &'a dyn Fn(&Expr) -> Option<Expr>;

/// `program` with each expression `literal` gives a value for replaced by that value (and not
/// looked into further).
pub(super) fn literals(program: &Program, literal: Literal) -> Program {
    let mut program = program.clone();
    for probe in &mut program.probes {
        if let Some(p) = probe.predicate.as_mut() {
            expr(p, literal);
        }
        block(&mut probe.body, literal);
    }
    for f in &mut program.funcs {
        block(&mut f.body, literal);
    }
    program
}

fn block(b: &mut Block, literal: Literal) {
    b.stmts.iter_mut().for_each(|s| stmt(s, literal));
}

fn stmt(s: &mut Stmt, literal: Literal) {
    match &mut s.kind {
        StmtKind::Expr(e) | StmtKind::Delete(e) | StmtKind::ReturnValue(e) => expr(e, literal),
        StmtKind::Assign { target, value } | StmtKind::AssignOp { target, value, .. } => {
            expr(target, literal);
            expr(value, literal);
        }
        StmtKind::If { cond, then, els } => {
            expr(cond, literal);
            block(then, literal);
            els.iter_mut().for_each(|b| block(b, literal));
        }
        StmtKind::Return | StmtKind::Break | StmtKind::Continue => {}
        StmtKind::Block(b) | StmtKind::Seq(b) => block(b, literal),
        StmtKind::Let { value, .. } => value.iter_mut().for_each(|e| expr(e, literal)),
        StmtKind::While { cond: e, body } | StmtKind::Unroll { count: e, body } => {
            expr(e, literal);
            block(body, literal);
        }
        StmtKind::For { iter, body, .. } => {
            match iter {
                ForIter::Range(a, b) => {
                    expr(a, literal);
                    expr(b, literal);
                }
                ForIter::Map(m) => expr(m, literal),
            }
            block(body, literal);
        }
    }
}

fn expr(e: &mut Expr, literal: Literal) {
    if let Some(value) = literal(e) {
        *e = value;
        return;
    }
    match &mut e.kind {
        ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Ident(_) | ExprKind::Var(_) => {}
        ExprKind::TypeArg(_) => {}
        ExprKind::Map { keys: es, .. } | ExprKind::Call { args: es, .. } | ExprKind::Tuple(es) => {
            es.iter_mut().for_each(|e| expr(e, literal))
        }
        ExprKind::Record(fs) => fs.iter_mut().for_each(|(_, e)| expr(e, literal)),
        ExprKind::Unary { expr: e, .. }
        | ExprKind::Member { expr: e, .. }
        | ExprKind::Step { target: e, .. }
        | ExprKind::Cast { expr: e, .. } => expr(e, literal),
        ExprKind::Binary { lhs: a, rhs: b, .. } | ExprKind::Index { expr: a, index: b } => {
            expr(a, literal);
            expr(b, literal);
        }
        ExprKind::Block { stmts, value } => {
            stmts.iter_mut().for_each(|s| stmt(s, literal));
            expr(value, literal);
        }
        ExprKind::Ternary { cond, then, els } => {
            expr(cond, literal);
            expr(then, literal);
            expr(els, literal);
        }
    }
}
