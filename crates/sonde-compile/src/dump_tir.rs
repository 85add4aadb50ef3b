//! The typed program as indented text for `-S`: every expression carries its type after a colon,
//! maps and variables by name, so a reader can check what the checker inferred.

use crate::sema::tir::{TExpr, TExprKind, TProbe, TProgram, TStmt, TStmtKind};
use std::fmt::Write;

pub fn probe(tp: &TProgram, p: &TProbe, out: &mut String) {
    let names = Names { tp, vars: p.vars.iter().map(|(n, _)| n.as_str()).collect() };
    if let Some(pred) = &p.predicate {
        let _ = writeln!(out, "  / {} /", names.expr(pred));
    }
    for s in &p.body {
        names.stmt(s, 1, out);
    }
}

struct Names<'a> {
    tp: &'a TProgram,
    vars: Vec<&'a str>,
}

impl Names<'_> {
    fn map(&self, m: usize) -> String {
        self.tp.maps.get(m).map(|m| m.name.clone()).unwrap_or_else(|| format!("map{}", m))
    }

    fn var(&self, v: usize) -> String {
        format!("${}", self.vars.get(v).copied().unwrap_or("?"))
    }

    fn keys(&self, keys: &[TExpr]) -> String {
        if keys.is_empty() {
            return String::new();
        }
        format!("[{}]", self.list(keys))
    }

    fn list(&self, es: &[TExpr]) -> String {
        es.iter().map(|e| self.expr(e)).collect::<Vec<_>>().join(", ")
    }

    fn stmt(&self, s: &TStmt, depth: usize, out: &mut String) {
        let pad = "  ".repeat(depth);
        let line = match &s.kind {
            TStmtKind::Emit { event, args } => format!("emit event{}({})", event, self.list(args)),
            TStmtKind::Exit { event, code } => format!("exit event{}({})", event, self.expr(code)),
            TStmtKind::MapStore { map, keys, value } => {
                format!("{}{} = {}", self.map(*map), self.keys(keys), self.expr(value))
            }
            TStmtKind::Aggregate { map, keys, func, arg } => format!(
                "{}{} <- {}({})",
                self.map(*map),
                self.keys(keys),
                func.name(),
                arg.as_ref().map(|a| self.expr(a)).unwrap_or_default()
            ),
            TStmtKind::Delete { map, keys } => format!("delete {}{}", self.map(*map), self.keys(keys)),
            TStmtKind::SetVar { var, value } => format!("{} = {}", self.var(*var), self.expr(value)),
            TStmtKind::Return => "return".into(),
            TStmtKind::If { cond, then, els } => {
                let _ = writeln!(out, "{}if {}", pad, self.expr(cond));
                for t in then {
                    self.stmt(t, depth + 1, out);
                }
                if !els.is_empty() {
                    let _ = writeln!(out, "{}else", pad);
                    for e in els {
                        self.stmt(e, depth + 1, out);
                    }
                }
                return;
            }
        };
        let _ = writeln!(out, "{}{}", pad, line);
    }

    fn expr(&self, e: &TExpr) -> String {
        let inner = match &e.kind {
            TExprKind::Int(v) => format!("{}", *v as i64),
            TExprKind::Str(b) => format!("{:?}", String::from_utf8_lossy(b)),
            TExprKind::Builtin(b) => format!("{:?}", b).to_lowercase(),
            TExprKind::CtxLoad { offset } => format!("ctx[{}]", offset),
            TExprKind::CtxBuf { offset, len } => format!("ctx[{}..{}]", offset, offset + len),
            TExprKind::CtxDataLoc { offset } => format!("data_loc(ctx[{}])", offset),
            TExprKind::Var(v) => self.var(*v),
            TExprKind::MapGet { map, keys } => format!("{}{}", self.map(*map), self.keys(keys)),
            TExprKind::Neg(x) => format!("-{}", self.expr(x)),
            TExprKind::Not(x) => format!("!{}", self.expr(x)),
            TExprKind::BitNot(x) => format!("~{}", self.expr(x)),
            TExprKind::Binary { op, lhs, rhs } => format!("({} {} {})", self.expr(lhs), op.symbol(), self.expr(rhs)),
            TExprKind::Ternary { cond, then, els } => {
                format!("({} ? {} : {})", self.expr(cond), self.expr(then), self.expr(els))
            }
            TExprKind::Cast(x) => format!("cast({})", self.expr(x)),
            TExprKind::Read { ptr, offset, user } => {
                format!("read{}({} + {})", if *user { "_user" } else { "" }, self.expr(ptr), offset)
            }
            TExprKind::ReadStr { ptr, user } => {
                format!("str{}({})", if *user { "_user" } else { "" }, self.expr(ptr))
            }
            TExprKind::ReadMem { ptr, user } => {
                format!("mem{}({})", if *user { "_user" } else { "" }, self.expr(ptr))
            }
            TExprKind::Strcmp(a, b) => format!("strcmp({}, {})", self.expr(a), self.expr(b)),
        };
        format!("{}:{}", inner, e.ty)
    }
}
