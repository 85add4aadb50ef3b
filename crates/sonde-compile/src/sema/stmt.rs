//! Typing statements: assignments, aggregations, output calls, control flow.

use super::check::Checker;
use super::tir::{MapValue, TExpr, TExprKind, TStmt, TStmtKind};
use crate::types::Type;
use sonde_syntax::ast::{BinOp, Block, Expr, ExprKind, Probe, Stmt, StmtKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub fn probe(&mut self, probe: &Probe) -> (Option<TExpr>, Vec<TStmt>) {
        let pred = probe.predicate.as_ref().map(|p| self.scalar(p, "a predicate"));
        let body = self.block(&probe.body);
        (pred, body)
    }

    fn block(&mut self, b: &Block) -> Vec<TStmt> {
        self.scoped(b)
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> Option<TStmt> {
        let span = s.span;
        let kind = match &s.kind {
            StmtKind::Expr(e) => return self.call_stmt(e),
            StmtKind::Assign { target, value } => self.assign(target, value)?,
            StmtKind::AssignOp { target, op, value } => {
                // `x op= v` is `x = x op v`.
                let combined = Expr {
                    kind: ExprKind::Binary {
                        op: *op,
                        lhs: Box::new(target.clone()),
                        rhs: Box::new(value.clone()),
                    },
                    span,
                };
                if let ExprKind::Map { name, .. } = &target.kind {
                    if let Some(MapValue::Agg { .. }) =
                        self.maps.lookup(name).and_then(|m| self.maps.value(m))
                    {
                        if *op == BinOp::Add && is_one(value) {
                            // `@x++` on an aggregation counts, as in bpftrace.
                            let count = Expr {
                                kind: ExprKind::Call { name: "count".into(), args: vec![] },
                                span,
                            };
                            return self.assign(target, &count).map(|kind| TStmt { kind, span });
                        }
                    }
                }
                self.assign(target, &combined)?
            }
            StmtKind::If { cond, then, els } => {
                let cond = self.scalar(cond, "an `if` condition");
                let then = self.block(then);
                let els = els.as_ref().map(|b| self.block(b)).unwrap_or_default();
                TStmtKind::If { cond, then, els }
            }
            StmtKind::Return => TStmtKind::Return,
            StmtKind::Delete(e) => match &e.kind {
                ExprKind::Map { name, keys } => {
                    let map = self.maps.get_or_create(name, e.span);
                    let keys = self.map_keys(map, keys, e.span);
                    TStmtKind::Delete { map, keys }
                }
                _ => {
                    self.error(Diagnostic::error(
                        e.span,
                        "delete takes a map element: `delete m[key]`",
                    ));
                    return None;
                }
            },
            StmtKind::Let { name, ty, value } => {
                self.let_stmt(name, ty.as_ref(), value.as_ref(), span)?
            }
            StmtKind::While { cond, body } => self.while_stmt(cond, body),
            StmtKind::For { var, iter, body } => self.for_stmt(var, iter, body, span)?,
            StmtKind::Unroll { count, body } => self.unroll(count, body)?,
            StmtKind::Break | StmtKind::Continue => self.jump(s)?,
            StmtKind::Seq(b) => {
                TStmtKind::Seq(b.stmts.iter().filter_map(|s| self.stmt(s)).collect())
            }
            StmtKind::Block(b) => {
                let stmts = self.block(b);
                TStmtKind::If {
                    cond: TExpr { kind: TExprKind::Int(1), ty: Type::S64, span },
                    then: stmts,
                    els: vec![],
                }
            }
        };
        Some(TStmt { kind, span })
    }

    fn assign(&mut self, target: &Expr, value: &Expr) -> Option<TStmtKind> {
        match &target.kind {
            ExprKind::Var(name) => {
                let v = self.expr(value);
                if matches!(v.ty, Type::Void | Type::Struct(_)) {
                    self.error(Diagnostic::error(
                        value.span,
                        format!("a variable cannot hold a `{}`", v.ty),
                    ));
                    return None;
                }
                let var = match self.var_index(name) {
                    Some(i) if self.vars[i].ty == Type::Void => {
                        // `let $x;` learns its type here.
                        self.vars[i].ty = v.ty.clone();
                        i
                    }
                    Some(i) => {
                        if !self.vars[i].ty.compatible(&v.ty) {
                            let msg = format!(
                                "`${}` holds a `{}`, cannot assign a `{}`",
                                name, self.vars[i].ty, v.ty
                            );
                            self.error(Diagnostic::error(value.span, msg));
                            return None;
                        }
                        // A longer string widens the variable (pass 2 starts at the widest).
                        if let (Type::Str(a), Type::Str(b)) = (&self.vars[i].ty, &v.ty) {
                            if b > a {
                                self.vars[i].ty = Type::Str(*b);
                            }
                        }
                        i
                    }
                    None => {
                        let outer = self.scopes.len();
                        // A variable assigned without `let` belongs to the whole probe.
                        let saved = std::mem::take(&mut self.scopes);
                        let i = self.declare(name, v.ty.clone());
                        self.scopes = saved;
                        debug_assert_eq!(outer, self.scopes.len());
                        i
                    }
                };
                Some(TStmtKind::SetVar { var, value: v })
            }
            ExprKind::Map { name, keys } => {
                let map = self.maps.get_or_create(name, target.span);
                if let ExprKind::Call { name: f, args } = &value.kind {
                    if let Some(agg) = self.aggregation(f, args, value.span) {
                        let Some((func, arg)) = agg else {
                            self.maps.assignment_failed(map);
                            return None;
                        };
                        let signed = arg.as_ref().is_some_and(|a| a.ty.is_signed());
                        if let Err(d) =
                            self.maps.use_value(map, MapValue::Agg { func, signed }, value.span)
                        {
                            self.error(d);
                        }
                        let keys = self.map_keys(map, keys, target.span);
                        return Some(TStmtKind::Aggregate { map, keys, func, arg });
                    }
                }
                let keys = self.map_keys(map, keys, target.span);
                let before = self.diags.len();
                let v = self.expr(value);
                if self.diags.len() > before {
                    self.maps.assignment_failed(map);
                }
                if matches!(v.ty, Type::Void | Type::Struct(_) | Type::Array { .. }) {
                    self.maps.assignment_failed(map);
                    self.error(Diagnostic::error(
                        value.span,
                        format!("a map cannot hold a `{}`", v.ty),
                    ));
                    return None;
                }
                if let Err(d) = self.maps.use_value(map, MapValue::Plain(v.ty.clone()), value.span)
                {
                    self.error(d);
                }
                Some(TStmtKind::MapStore { map, keys, value: v })
            }
            _ => {
                self.error(Diagnostic::error(
                    target.span,
                    "only maps (`@name[key]`) and variables (`$name`) can be assigned",
                ));
                None
            }
        }
    }

    /// Statements that are calls: printf, print, exit, clear...
    fn call_stmt(&mut self, e: &Expr) -> Option<TStmt> {
        let span = e.span;
        let ExprKind::Call { name, args } = &e.kind else {
            self.error(Diagnostic::error(
                span,
                "this expression does nothing: assign it or print it",
            ));
            return None;
        };
        if let Some(kind) = self.statement_call(name, args, span) {
            return kind.map(|kind| TStmt { kind, span });
        }
        // Evaluate for its errors (unknown function, misuse); if it has none, say it does
        // nothing (one complaint per mistake is enough).
        let before = self.diags.len();
        self.expr(e);
        if self.diags.len() == before {
            let msg = format!("the value of `{}()` is unused", name);
            self.error(Diagnostic::error(span, msg));
        }
        None
    }
}

fn is_one(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Int(1))
}

/// A constant integer, allowing a leading minus.
pub(in crate::sema) fn constant(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(v) => Some(*v as i64),
        ExprKind::Unary { op: sonde_syntax::ast::UnOp::Neg, expr } => constant(expr).map(|v| -v),
        _ => None,
    }
}
