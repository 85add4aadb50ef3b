//! Expressions with statements in them, run where the expression is evaluated, each time it is
//! (a loop's condition on every test): `++$a`, `$a++` (and `--`) in C's order, and bpftrace's
//! block expressions `{ stmts; value }` (a macro's expansion is one).

use super::check::Checker;
use crate::model::tir::{TExpr, TExprKind, TStmt, TStmtKind};
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span, Stmt, StmtKind};

impl Checker<'_> {
    /// `++t` is `({ t += 1; t })`; `t++` is `({ old = t; t += 1; old })`, `old` a variable
    /// of this site that no program can name.
    pub(super) fn step(&mut self, target: &Expr, op: BinOp, post: bool, span: Span) -> TExpr {
        let one = Expr { kind: ExprKind::Int(1), span };
        let update = StmtKind::AssignOp { target: target.clone(), op, value: one };
        let update = Stmt { kind: update, span };
        if !post {
            let first = self.stmt(&update).into_iter().collect();
            let value = self.expr(target);
            return then(first, value);
        }
        let old = self.expr(target);
        let ty = old.ty.clone();
        let var = self.declare(&format!("old {}..{}", span.lo, span.hi), ty.clone());
        let mut first = vec![TStmt { kind: TStmtKind::SetVar { var, value: old }, span }];
        first.extend(self.stmt(&update));
        then(first, TExpr { kind: TExprKind::Var(var), ty, span })
    }
}

impl Checker<'_> {
    /// `{ stmts; value }`: the statements run where the expression is evaluated; a `let` of
    /// theirs ends with the block.
    pub(super) fn block_value(&mut self, stmts: &[Stmt], value: &Expr) -> TExpr {
        self.in_scope(|c| {
            let first = stmts.iter().filter_map(|s| c.stmt(s)).collect();
            let value = c.expr(value);
            then(first, value)
        })
    }
}

fn then(first: Vec<TStmt>, value: TExpr) -> TExpr {
    let (ty, span) = (value.ty.clone(), value.span);
    TExpr { kind: TExprKind::Then { first, value: Box::new(value) }, ty, span }
}
