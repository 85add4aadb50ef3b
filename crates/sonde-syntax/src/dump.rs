//! The AST as an indented tree, one node per line, for `sonde -S` and golden tests.

use crate::ast::{Block, Expr, ExprKind, ForIter, Program, Stmt, StmtKind};
use std::fmt::Write;

/// ```text
/// probe tracepoint:syscalls:sys_exit_read
///   predicate
///     binary >
///       member ->ret
///         ident args
///       int 0
///   body
///     assign
///       map @bytes
///       call hist
///         member ->ret
///           ident args
/// ```
pub fn dump(p: &Program) -> String {
    let mut d = Dumper { out: String::new(), indent: 0 };
    for f in &p.funcs {
        let params: Vec<String> =
            f.params.iter().map(|p| format!("${}: {}", p.name, p.ty)).collect();
        let ret = f.ret.as_ref().map_or("void".to_string(), |t| t.to_string());
        d.line(format!("fn {}({}): {}", f.name, params.join(", "), ret));
        d.nested(|d| d.block(&f.body));
    }
    for probe in &p.probes {
        let specs: Vec<String> = probe
            .specs
            .iter()
            .map(|s| {
                if s.definition.is_empty() {
                    s.provider.clone()
                } else {
                    format!("{}:{}", s.provider, s.definition)
                }
            })
            .collect();
        d.line(format!("probe {}", specs.join(", ")));
        d.indent += 1;
        if let Some(pred) = &probe.predicate {
            d.line("predicate");
            d.nested(|d| d.expr(pred));
        }
        d.line("body");
        d.nested(|d| d.block(&probe.body));
        d.indent -= 1;
    }
    d.out
}

struct Dumper {
    out: String,
    indent: usize,
}

impl Dumper {
    fn line(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "{}{}", "  ".repeat(self.indent), s.as_ref());
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self)) {
        self.indent += 1;
        f(self);
        self.indent -= 1;
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Assign { target, value } => {
                self.line("assign");
                self.nested(|d| {
                    d.expr(target);
                    d.expr(value);
                });
            }
            StmtKind::AssignOp { target, op, value } => {
                self.line(format!("assign {}=", op.symbol()));
                self.nested(|d| {
                    d.expr(target);
                    d.expr(value);
                });
            }
            StmtKind::If { cond, then, els } => {
                self.line("if");
                self.nested(|d| {
                    d.expr(cond);
                    d.line("then");
                    d.nested(|d| d.block(then));
                    if let Some(els) = els {
                        d.line("else");
                        d.nested(|d| d.block(els));
                    }
                });
            }
            StmtKind::Return => self.line("return"),
            StmtKind::ReturnValue(e) => {
                self.line("return");
                self.nested(|d| d.expr(e));
            }
            StmtKind::Delete(e) => {
                self.line("delete");
                self.nested(|d| d.expr(e));
            }
            StmtKind::Block(b) => {
                self.line("block");
                self.nested(|d| d.block(b));
            }
            StmtKind::Let { name, ty, value } => {
                match ty {
                    Some(t) => self.line(format!("let ${}: {}", name, t)),
                    None => self.line(format!("let ${}", name)),
                }
                if let Some(v) = value {
                    self.nested(|d| d.expr(v));
                }
            }
            StmtKind::While { cond, body } => {
                self.line("while");
                self.nested(|d| {
                    d.expr(cond);
                    d.block(body);
                });
            }
            StmtKind::For { var, iter, body } => {
                self.line(format!("for ${}", var));
                self.nested(|d| {
                    match iter {
                        ForIter::Range(a, b) => {
                            d.line("range");
                            d.nested(|d| {
                                d.expr(a);
                                d.expr(b);
                            });
                        }
                        ForIter::Map(m) => d.expr(m),
                    }
                    d.line("do");
                    d.nested(|d| d.block(body));
                });
            }
            StmtKind::Unroll { count, body } => {
                self.line("unroll");
                self.nested(|d| {
                    d.expr(count);
                    d.block(body);
                });
            }
            StmtKind::Seq(b) => {
                self.line("seq");
                self.nested(|d| d.block(b));
            }
            StmtKind::Break => self.line("break"),
            StmtKind::Continue => self.line("continue"),
        }
    }

    fn expr(&mut self, e: &Expr) {
        if let ExprKind::Block { stmts, value } = &e.kind {
            self.line("block");
            self.nested(|d| {
                stmts.iter().for_each(|s| d.stmt(s));
                d.expr(value)
            });
            return;
        }
        let (label, children): (String, Vec<&Expr>) = match &e.kind {
            ExprKind::Int(v) => (format!("int {}", v), vec![]),
            ExprKind::Str(s) => (format!("str \"{}\"", escape(s)), vec![]),
            ExprKind::Ident(n) => (format!("ident {}", n), vec![]),
            ExprKind::Var(n) => (format!("var ${}", n), vec![]),
            ExprKind::Map { name, keys } => (format!("map {}", name), keys.iter().collect()),
            ExprKind::Call { name, args } => (format!("call {}", name), args.iter().collect()),
            ExprKind::Unary { op, expr } => (format!("unary {}", op.symbol()), vec![&**expr]),
            ExprKind::Binary { op, lhs, rhs } => {
                (format!("binary {}", op.symbol()), vec![&**lhs, &**rhs])
            }
            ExprKind::Ternary { cond, then, els } => {
                ("ternary".into(), vec![&**cond, &**then, &**els])
            }
            ExprKind::Cast { ty, expr } => (format!("cast ({})", ty), vec![&**expr]),
            ExprKind::Member { expr, field, arrow } => {
                (format!("member {}{}", if *arrow { "->" } else { "." }, field), vec![&**expr])
            }
            ExprKind::Index { expr, index } => ("index".into(), vec![&**expr, &**index]),
            ExprKind::Tuple(es) => ("tuple".into(), es.iter().collect()),
            ExprKind::Record(fs) => {
                let names: Vec<&str> = fs.iter().map(|(n, _)| n.as_str()).collect();
                (format!("record {}", names.join(", ")), fs.iter().map(|(_, e)| e).collect())
            }
            ExprKind::TypeArg(ty) => (format!("type {}", ty), vec![]),
            ExprKind::Block { value, .. } => ("block".into(), vec![&**value]),
            ExprKind::Step { target, op, post } => {
                let sym = if *op == crate::ast::BinOp::Add { "++" } else { "--" };
                let when = if *post { "post" } else { "pre" };
                (format!("{}{}", when, sym), vec![&**target])
            }
        };
        self.line(label);
        self.nested(|d| children.into_iter().for_each(|c| d.expr(c)));
    }
}

/// A string literal's bytes as they could be written back in the source.
fn escape(s: &[u8]) -> String {
    let mut out = String::new();
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        let _ = write!(out, "\\x{:02x}", b);
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{:02x}", b);
        }
    }
    out
}
