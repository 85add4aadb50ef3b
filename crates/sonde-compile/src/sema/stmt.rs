//! Typing statements: assignments, aggregations, output calls, control flow.

use super::builtins::spec::Aggregate;
use super::check::Checker;
use crate::model::tir::{MapValue, TExpr, TExprKind, TStmt, TStmtKind};
use crate::model::types::Type;
use crate::sema::expr::tuple::fit;
use sonde_syntax::ast::{BinOp, Block, Expr, ExprKind, Probe, Span, Stmt, StmtKind};
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
                return self.assign_op(target, *op, value, span);
            }
            StmtKind::If { cond, then, els } => {
                let cond = self.scalar(cond, "an `if` condition");
                let then = self.block(then);
                let els = els.as_ref().map(|b| self.block(b)).unwrap_or_default();
                TStmtKind::If { cond, then, els }
            }
            StmtKind::Return => self.bare_return(span)?,
            StmtKind::ReturnValue(e) => self.return_value(e, span)?,
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

    /// `x op= v` is `x = x op v`; `@x++` on an aggregation counts, as in bpftrace.
    fn assign_op(&mut self, target: &Expr, op: BinOp, value: &Expr, span: Span) -> Option<TStmt> {
        let aggregation = match &target.kind {
            ExprKind::Map { name, .. } => {
                let map = self.maps.lookup(name);
                matches!(map.and_then(|m| self.maps.value(m)), Some(MapValue::Agg { .. }))
            }
            _ => false,
        };
        let kind = if aggregation && op == BinOp::Add && is_one(value) {
            ExprKind::Call { name: "count".into(), args: vec![] }
        } else {
            let (lhs, rhs) = (Box::new(target.clone()), Box::new(value.clone()));
            ExprKind::Binary { op, lhs, rhs }
        };
        let kind = self.assign(target, &Expr { kind, span })?;
        Some(TStmt { kind, span })
    }

    /// `@m = { stmts; avg($a) }`: the block's statements, then the aggregation, in its scope.
    fn aggregated_block(
        &mut self,
        target: &Expr,
        stmts: &[Stmt],
        last: &Expr,
    ) -> Option<TStmtKind> {
        let out = self.in_scope(|c| {
            let mut out: Vec<TStmt> = stmts.iter().filter_map(|s| c.stmt(s)).collect();
            let kind = c.assign(target, last)?;
            out.push(TStmt { kind, span: last.span });
            Some(out)
        })?;
        Some(TStmtKind::Seq(out))
    }

    fn assign(&mut self, target: &Expr, value: &Expr) -> Option<TStmtKind> {
        match &target.kind {
            ExprKind::Var(name) => self.assign_var(name, value),
            ExprKind::Map { name, keys } => {
                let map = self.maps.get_or_create(name, target.span);
                if let ExprKind::Call { name: f, args } = &value.kind {
                    if let Some(agg) = self.aggregation(f, args, value.span) {
                        return self.assign_aggregation(map, keys, agg, target.span, value.span);
                    }
                }
                if let ExprKind::Block { stmts, value: last } = &value.kind {
                    if matches!(&last.kind, ExprKind::Call { name, .. } if super::builtins::table::aggregation(name).is_some())
                    {
                        return self.aggregated_block(target, stmts, last);
                    }
                }
                self.assign_map(map, keys, value, target.span)
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

    /// `$x = v`.
    fn assign_var(&mut self, name: &str, value: &Expr) -> Option<TStmtKind> {
        let v = self.expr(value);
        let held = self.var_index(name).map(|i| self.vars[i].ty.clone());
        let v = self.in_field_order(v, held.as_ref());
        if matches!(v.ty, Type::Void) {
            let msg = format!("a variable cannot hold a `{}`", v.ty);
            self.error(Diagnostic::error(value.span, msg));
            return None;
        }
        let var = self.variable_for(name, &v, value.span)?;
        let v = match self.vars[var].declared {
            true => self.convert_for(var, value, v)?,
            false => v,
        };
        let value = fit(v, &self.vars[var].ty);
        Some(TStmtKind::SetVar { var, value })
    }

    /// The slot of variable `name` that `v` (written at `at`) is assigned to, declared here
    /// when new.
    pub(in crate::sema) fn variable_for(
        &mut self,
        name: &str,
        v: &TExpr,
        at: Span,
    ) -> Option<usize> {
        let Some(i) = self.var_index(name) else {
            let outer = self.scopes.len();
            // A variable assigned without `let` belongs to the whole probe.
            let saved = std::mem::take(&mut self.scopes);
            let i = self.declare(name, v.ty.clone());
            self.scopes = saved;
            debug_assert_eq!(outer, self.scopes.len());
            return Some(i);
        };
        match (&self.vars[i].ty, &v.ty) {
            // `let $x;` learns its type here.
            (Type::Void, _) => self.vars[i].ty = v.ty.clone(),
            (held, given) if !held.compatible(given) => {
                let msg = format!("`${}` holds a `{}`, cannot assign a `{}`", name, held, given);
                self.error(Diagnostic::error(at, msg));
                return None;
            }
            // A longer string widens the variable (pass 2 starts at the widest).
            (_, given) => self.vars[i].ty.widen_strings(given),
        }
        Some(i)
    }

    /// `@m[k] = count()`: the map holds the aggregation.
    fn assign_aggregation(
        &mut self,
        map: usize,
        keys: &[Expr],
        agg: Aggregate,
        target: Span,
        value: Span,
    ) -> Option<TStmtKind> {
        let Some((func, arg)) = agg else {
            self.maps.assignment_failed(map);
            return None;
        };
        let signed = arg.as_ref().is_some_and(|a| a.ty.is_signed());
        if let Err(d) = self.maps.use_value(map, MapValue::Agg { func, signed }, value) {
            self.error(d);
        }
        let keys = self.map_keys(map, keys, target);
        Some(TStmtKind::Aggregate { map, keys, func, arg })
    }

    /// `@m[k] = v`.
    fn assign_map(
        &mut self,
        map: usize,
        keys: &[Expr],
        value: &Expr,
        target: Span,
    ) -> Option<TStmtKind> {
        let keys = self.map_keys(map, keys, target);
        let before = self.diags.len();
        let v = self.expr(value);
        let held = match self.maps.value(map) {
            Some(MapValue::Plain(t)) => Some(t.clone()),
            _ => None,
        };
        let v = self.in_field_order(v, held.as_ref());
        if self.diags.len() > before {
            self.maps.assignment_failed(map);
        }
        if matches!(v.ty, Type::Void) {
            self.maps.assignment_failed(map);
            let msg = format!("a map cannot hold a `{}`", v.ty);
            self.error(Diagnostic::error(value.span, msg));
            return None;
        }
        if let Err(d) = self.maps.use_value(map, MapValue::Plain(v.ty.clone()), value.span) {
            self.error(d);
        }
        let v = match self.maps.value(map) {
            Some(MapValue::Plain(held)) => fit(v, held),
            _ => v,
        };
        Some(TStmtKind::MapStore { map, keys, value: v })
    }

    /// Statements that are calls: printf, print, exit, clear...
    fn call_stmt(&mut self, e: &Expr) -> Option<TStmt> {
        let span = e.span;
        let ExprKind::Call { name, args } = &e.kind else {
            // Run for what it reads (as bpftrace does), with a warning: nothing keeps its value.
            let v = self.expr_or_poison(e)?;
            let msg = "this expression does nothing: assign it or print it";
            self.warn(Diagnostic::warning(span, msg));
            if !v.ty.is_scalar() {
                return None;
            }
            let var = self.declare("(unused value)", v.ty.clone());
            return Some(TStmt { kind: TStmtKind::SetVar { var, value: v }, span });
        };
        if let Some(kind) = self.statement_call(name, args, span) {
            return kind.map(|kind| TStmt { kind, span });
        }
        // A function called for what it does: its value, if any, is kept nowhere.
        if let Some(v) = self.fn_call(name, args, span) {
            // Every function leaves a value in r0 (0 for those that return nothing).
            let var = self.declare("(unused value)", Type::S64);
            let value = TExpr { ty: Type::S64, ..v };
            return Some(TStmt { kind: TStmtKind::SetVar { var, value }, span });
        }
        // find()'s use may be its copy to the variable alone: kept in a variable no one reads.
        if super::builtins::table::unprefixed(name) == "find" {
            let v = self.expr(e);
            let var = self.declare("find (unused)", v.ty.clone());
            return Some(TStmt { kind: TStmtKind::SetVar { var, value: v }, span });
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
