//! bpftrace's declarations and loops: `let`, `while`, `for`, `unroll`, `break`, `continue`.
//!
//! A `let` variable belongs to its block (`Checker::block` ends its scope); a `for` range is
//! checked as the `let`s and the `while` it stands for.

use super::check::{Checker, Var};
use crate::model::tir::{TStmt, TStmtKind};
use crate::model::types::Type;
use sonde_syntax::ast::{BinOp, Block, Expr, ExprKind, ForIter, Span, Stmt, StmtKind, TypeName};
use sonde_syntax::diag::Diagnostic;

/// What the statement does when it leaves its block whatever follows.
fn leaves_block(s: &Stmt) -> Option<(&'static str, &'static str)> {
    match &s.kind {
        StmtKind::Return | StmtKind::ReturnValue(_) => Some(("return", "returns")),
        StmtKind::Break => Some(("break", "leaves the loop")),
        StmtKind::Continue => Some(("continue", "starts the loop's next round")),
        StmtKind::Expr(Expr { kind: ExprKind::Call { name, .. }, .. }) if name == "exit" => {
            Some(("exit()", "ends the probe"))
        }
        _ => None,
    }
}

/// bpftrace's limit on `unroll(N)`.
const MAX_UNROLL: i64 = 100;

/// How many copies of a body nested `unroll`s may make (their counts multiplied).
const MAX_UNROLLED: i64 = 1000;

impl Checker<'_> {
    /// The variable `$name` reads: the innermost one in scope.
    pub(super) fn var_index(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|v| v.live && v.name == name)
    }

    /// A new variable of the current block.
    pub(super) fn declare(&mut self, name: &str, ty: Type) -> usize {
        // A string variable holds the longest string any assignment gives it (seen in pass 1),
        // a tuple the longest of each of its strings.
        let mut ty = ty;
        if let Some(hint) = self.type_hints.get(name).filter(|h| h.compatible(&ty)) {
            ty.widen_strings(hint);
        }
        self.vars.push(Var { name: name.to_string(), ty, live: true, declared: false });
        let i = self.vars.len() - 1;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(i);
        }
        i
    }

    /// A block's statements, its `let` variables ending with it.
    pub(super) fn scoped(&mut self, b: &Block) -> Vec<TStmt> {
        self.warn_unreachable(&b.stmts);
        self.in_scope(|c| b.stmts.iter().filter_map(|s| c.stmt(s)).collect())
    }

    /// A statement after one that leaves its block (`exit()`, `return`, `break`, `continue`)
    /// never runs: said once, as bpftrace and C compilers say it.
    fn warn_unreachable(&mut self, stmts: &[Stmt]) {
        let Some(at) = stmts.iter().position(|s| leaves_block(s).is_some()) else { return };
        let (Some(next), Some(how)) = (stmts.get(at + 1), leaves_block(&stmts[at])) else {
            return;
        };
        let (word, what) = how;
        let msg = format!("this statement is never reached: `{word}` before it {what}");
        self.warn(Diagnostic::warning(next.span, msg));
    }

    /// `f`'s result, the variables it declares with `let` ending with it.
    pub(super) fn in_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.scopes.push(Vec::new());
        let out = f(self);
        for i in self.scopes.pop().unwrap_or_default() {
            self.vars[i].live = false;
        }
        out
    }

    pub(super) fn let_stmt(
        &mut self,
        name: &str,
        ty: Option<&TypeName>,
        value: Option<&Expr>,
        span: Span,
    ) -> Option<TStmtKind> {
        if let Some(ty) = ty {
            let held = self.declared_type(ty)?;
            if !held.is_scalar() {
                return self.declared_whole(name, held, value);
            }
            let v = self.declared_value(ty, value, span)?;
            let var = self.declare(name, v.ty.clone());
            self.vars[var].declared = true;
            return Some(TStmtKind::SetVar { var, value: v });
        }
        let Some(value) = value else {
            // Its type comes from its first assignment; until then it reads as zero.
            let var = self.declare(name, Type::Void);
            return Some(TStmtKind::ZeroVar { var });
        };
        let v = self.expr(value);
        if matches!(v.ty, Type::Void) {
            self.error(Diagnostic::error(
                value.span,
                format!("a variable cannot hold a `{}`", v.ty),
            ));
            return None;
        }
        let var = self.declare(name, v.ty.clone());
        Some(TStmtKind::SetVar { var, value: v })
    }

    pub(super) fn while_stmt(&mut self, cond: &Expr, body: &Block) -> TStmtKind {
        let cond = self.scalar(cond, "a `while` condition");
        let body = self.loop_body(body);
        TStmtKind::Loop { cond, body, step: Vec::new() }
    }

    /// `for ($i : a..b) body` is `{ let $i = a; let end = b; while ($i < end) { body; $i++ } }`,
    /// where `continue` still runs the `$i++`.
    pub(super) fn for_stmt(
        &mut self,
        var: &str,
        iter: &ForIter,
        body: &Block,
        span: Span,
    ) -> Option<TStmtKind> {
        let (start, end) = match iter {
            ForIter::Range(a, b) => (a, b),
            ForIter::Map(m) => return self.map_for(var, m, body, span),
        };
        self.scopes.push(Vec::new());
        let stmt = |kind| Stmt { kind, span };
        let v = |name: &str| Expr { kind: ExprKind::Var(name.to_string()), span };
        // Not a name the program can write.
        let end_name = format!("for {} end", var);
        let mut out = Vec::new();
        let decls = [(var, start), (end_name.as_str(), end)];
        for (name, value) in decls {
            let s = stmt(StmtKind::Let { name: name.into(), ty: None, value: Some(value.clone()) });
            out.extend(self.stmt(&s));
        }
        if self.runtime_bound(&out) {
            return self.range_callback(var, &end_name, body, out, span);
        }
        let kind =
            ExprKind::Binary { op: BinOp::Lt, lhs: Box::new(v(var)), rhs: Box::new(v(&end_name)) };
        let cond = self.scalar(&Expr { kind, span }, "a `for` range");
        let body = self.loop_body(body);
        let one = Expr { kind: ExprKind::Int(1), span };
        let step = stmt(StmtKind::AssignOp { target: v(var), op: BinOp::Add, value: one });
        let step = self.stmt(&step).into_iter().collect();
        for i in self.scopes.pop().unwrap_or_default() {
            self.vars[i].live = false;
        }
        out.push(TStmt { kind: TStmtKind::Loop { cond, body, step }, span });
        Some(TStmtKind::Seq(out))
    }

    pub(super) fn loop_body(&mut self, body: &Block) -> Vec<TStmt> {
        self.loops += 1;
        let body = self.scoped(body);
        self.loops -= 1;
        body
    }

    pub(super) fn unroll(&mut self, count: &Expr, body: &Block) -> Option<TStmtKind> {
        let n = match super::stmt::constant(count) {
            Some(n) if (1..=MAX_UNROLL).contains(&n) => n,
            _ => {
                let msg = format!("unroll's count must be a constant from 1 to {}", MAX_UNROLL);
                self.error(Diagnostic::error(count.span, msg));
                return None;
            }
        };
        let outer = self.unrolled;
        if outer * n > MAX_UNROLLED {
            let msg = format!(
                "nested unrolls would repeat this body {} times; at most {}",
                outer * n,
                MAX_UNROLLED
            );
            self.error(Diagnostic::error(count.span, msg).with_help("use a `for` loop"));
            return None;
        }
        self.unrolled = outer * n;
        let body = self.scoped(body);
        self.unrolled = outer;
        Some(TStmtKind::Seq(
            (0..n)
                .map(|_| TStmt { kind: TStmtKind::Seq(body.clone()), span: count.span })
                .collect(),
        ))
    }

    pub(super) fn jump(&mut self, s: &Stmt) -> Option<TStmtKind> {
        let brk = matches!(s.kind, StmtKind::Break);
        if self.loops == 0 {
            let word = if brk { "break" } else { "continue" };
            self.error(
                Diagnostic::error(s.span, format!("`{}` outside a loop", word))
                    .with_help("`break` and `continue` belong in a `while` or `for` body"),
            );
            return None;
        }
        Some(if brk { TStmtKind::Break } else { TStmtKind::Continue })
    }
}
