//! `for ($i : a..b)` whose bounds are known only at run time (`0..@a`): the verifier cannot
//! bound such a loop, so its body becomes a callback of `bpf_loop` (5.17+), as bpftrace's does
//! (lower/range_for.rs). Constant bounds keep the plain loop (every kernel with bounded loops,
//! 5.3+); so does a kernel without `bpf_loop`, whose verifier then accepts the loop only where
//! it can bound it.

use super::check::Checker;
use crate::model::tir::{TExprKind, TStmt, TStmtKind};
use crate::model::types::arith_type;
use sonde_syntax::ast::{Block, Expr, ExprKind, Span, Stmt, StmtKind};

impl Checker<'_> {
    /// Do the range's set-up statements (`$i = a`, then its end) give a bound the verifier
    /// cannot see, on a kernel with `bpf_loop`?
    pub(super) fn runtime_bound(&self, setup: &[TStmt]) -> bool {
        let constant = |s: &TStmt| matches!(&s.kind, TStmtKind::SetVar { value, .. } if matches!(value.kind, TExprKind::Int(_)));
        !setup.iter().all(constant) && self.env.has_helper(sonde_bpf::helper::LOOP)
    }

    /// The range as a `bpf_loop` callback: the start kept in a variable of its own (`$i` is
    /// the body's to change), the body checked without the probe's context.
    pub(super) fn range_callback(
        &mut self,
        var: &str,
        end_name: &str,
        body: &Block,
        mut out: Vec<TStmt>,
        span: Span,
    ) -> Option<TStmtKind> {
        // Not a name the program can write.
        let start_name = format!("for {} start", var);
        let from = Expr { kind: ExprKind::Var(var.to_string()), span };
        let keep = StmtKind::Let { name: start_name.clone(), ty: None, value: Some(from) };
        out.extend(self.stmt(&Stmt { kind: keep, span }));
        let (Some(var), Some(start), Some(end)) =
            (self.var_index(var), self.var_index(&start_name), self.var_index(end_name))
        else {
            return None;
        };
        let signed = arith_type(&self.vars[start].ty, &self.vars[end].ty).is_signed();
        self.map_for += 1;
        let body = self.loop_body(body);
        self.map_for -= 1;
        for i in self.scopes.pop().unwrap_or_default() {
            self.vars[i].live = false;
        }
        out.push(TStmt { kind: TStmtKind::RangeFor { var, start, end, signed, body }, span });
        Some(TStmtKind::Seq(out))
    }
}
