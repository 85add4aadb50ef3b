//! Statements, blocks and top-level items to text, with their comments and blank lines.

use super::buffer::Buf;
use super::layout::Metas;
use super::print_expr::{escape, expr, is_literal, list, type_arg};
use super::tree::{Block, ConfigValue, Expr, ForIter, Program, Root, Stmt, E, R, S};
use super::INDENT;

pub fn program(p: &Program, m: &mut Metas, w: usize) -> Buf {
    let mut buf = Buf::new();
    if let Some(h) = &p.header {
        buf = buf.text(h.clone()).line_break();
    }
    for item in &p.items {
        let pre = m.before(item.lo);
        let local = root(item, m, w);
        buf = buf.meta_block(&pre, 0).append(local);
    }
    buf.meta_block(m, 0)
}

fn root(item: &Root, m: &mut Metas, w: usize) -> Buf {
    let comments = m.before(item.lo);
    let b = match &item.kind {
        R::C(text) => Buf::new().text(text.clone()),
        R::Config(settings) => config(settings),
        R::Import(name) => Buf::new().text(format!("import \"{}\";", name)),
        R::MapDecl { name, kind, size } => {
            Buf::new().text(format!("let {} = {}({});", name, kind, size))
        }
        R::Macro { name, args, body } => {
            let a = list(args, ", ", m, w.wrapping_sub(10), true);
            let body_metas = m.before(body.lo);
            let b = block(body, m, w.wrapping_sub(INDENT));
            Buf::new()
                .text(format!("macro {}(", name))
                .append(a)
                .text(")")
                .meta_block(&body_metas, 1)
                .text("{")
                .indented(b)
                .text("}")
        }
        R::Fn { name, args, ret, body } => function(name, args, ret, body, m, w),
        R::Probe { points, pred, body } => probe(points, pred.as_ref(), body, m, w),
    };
    Buf::new().meta_block(&comments, 0).append(b).line_break()
}

fn config(settings: &[(String, ConfigValue)]) -> Buf {
    if settings.is_empty() {
        return Buf::new().text("config = {}");
    }
    let mut b = Buf::new();
    for (key, value) in settings {
        if b.lines() > 0 {
            b = b.line_break();
        }
        let v = match value {
            ConfigValue::Bool(v) => v.to_string(),
            ConfigValue::Int(v) => v.to_string(),
            ConfigValue::Str(s) if escape(s.as_bytes()) == *s => s.clone(),
            ConfigValue::Str(s) => format!("\"{}\"", escape(s.as_bytes())),
        };
        b = b.text(format!("{} = {};", key, v));
    }
    Buf::new().text("config = {").indented(b).text("}")
}

fn function(
    name: &str,
    args: &[Expr],
    ret: &super::tree::TypeArg,
    body: &Block,
    m: &mut Metas,
    w: usize,
) -> Buf {
    let body_metas = m.before(body.lo);
    let r = type_arg(ret, m, w.wrapping_sub(name.len() + 7));
    let a = list(args, ", ", m, w.wrapping_sub(name.len() + 5), false);
    let head = Buf::new().text(format!("fn {}(", name));
    let decl = if a.lines() > 1 || a.width() + r.width() + 12 > w {
        head.indented(a).text(") : ").append(r)
    } else {
        head.append(a).text(") : ").append(r)
    };
    let b = block(body, m, w.wrapping_sub(INDENT));
    decl.meta_inline(&body_metas).line_break().text("{").indented(b).text("}")
}

fn probe(points: &[String], pred: Option<&Expr>, body: &Block, m: &mut Metas, w: usize) -> Buf {
    let mut buf = Buf::new();
    for (i, p) in points.iter().enumerate() {
        let sep = if i + 1 < points.len() { "," } else { "" };
        buf = buf.text(format!("{}{}", p, sep)).line_break();
    }
    if let Some(cond) = pred {
        let pred_metas = m.before(cond.lo);
        let c = expr(cond, m, w, true);
        buf = buf.meta_inline(&pred_metas).text("/").append(c).text("/").line_break();
    }
    let body_metas = m.before(body.lo);
    let b = block(body, m, w.wrapping_sub(2));
    buf.meta_inline(&body_metas).text("{").indented(b).text("}")
}

/// A block's contents (no braces): statements one per line, layout between them kept.
pub fn block(b: &Block, m: &mut Metas, w: usize) -> Buf {
    let mut buf = Buf::new();
    for (i, s) in b.stmts.iter().enumerate() {
        let sb = statement(s, m, w);
        if sb.width() > 0 && i > 0 {
            buf = buf.line_break();
        }
        buf = buf.append(sb);
    }
    let mut extra = m.before(b.hi);
    if let Some(e) = &b.expr {
        let expr_metas = extra.before(e.lo);
        let eb = expr(e, &mut extra, w, true);
        let min = if buf.lines() > 0 { 1 } else { 0 };
        buf = buf.meta_block(&expr_metas, min).append(eb);
    }
    buf.meta_inline(&extra)
}

fn statement(s: &Stmt, m: &mut Metas, w: usize) -> Buf {
    let comments = m.before(s.lo);
    let b = statement_value(s, m, w);
    Buf::new().meta_block(&comments, 0).append(b)
}

fn statement_value(s: &Stmt, m: &mut Metas, w: usize) -> Buf {
    match &s.kind {
        S::Expr(e) => {
            let b = expr(e, m, w, true);
            if is_ternary(e) || !matches!(e.kind, E::If { .. } | E::Block(_)) {
                b.text(";")
            } else {
                b
            }
        }
        S::Assign { target, value } => {
            let t = expr(target, m, w, true);
            assign(t, target, value, m, w)
        }
        S::Let { var, ty, value } => {
            let mut d = Buf::new().text(format!("let {}", var));
            if let Some(ty) = ty {
                d = d.text(" : ").append(type_arg(ty, m, w));
            }
            match value {
                Some(v) => {
                    let target = Expr { kind: E::Name(var.clone()), lo: 0, hi: 0 };
                    assign(d, &target, v, m, w)
                }
                None => d.text(";"),
            }
        }
        S::While { cond, body } => {
            let c = expr(cond, m, w.wrapping_sub(8), false);
            let b = block(body, m, w.wrapping_sub(2));
            Buf::new().text("while ").append(c).text(" {").indented(b).text("}")
        }
        S::Unroll { count, body } => {
            let b = block(body, m, w.wrapping_sub(2));
            let c = expr(count, m, w.wrapping_sub(11), false);
            Buf::new().text("unroll (").append(c).text(") {").indented(b).text("}")
        }
        S::For { var, iter, body } => {
            let it = match iter {
                ForIter::Map(name) => Buf::new().text(name.clone()),
                ForIter::Range(a, b) => {
                    Buf::new().append(bound(a, m, w)).text("..").append(bound(b, m, w))
                }
            };
            let b = block(body, m, w.wrapping_sub(INDENT));
            Buf::new().text(format!("for {} : ", var)).append(it).text(" {").indented(b).text("}")
        }
        S::Jump { word, value: None } => Buf::new().text(format!("{};", word)),
        S::Jump { word, value: Some(v) } => {
            // bpftrace formats a returned value at width 1 (so never bare).
            Buf::new().text(format!("{} ", word)).append(expr(v, m, 1, false)).text(";")
        }
        S::Discard(e) => Buf::new().text("_ = ").append(expr(e, m, w, true)).text(";"),
        S::Import(name) => Buf::new().text(format!("import \"{}\";", name)),
        S::Delete(e) => Buf::new().text("delete ").append(expr(e, m, w, true)).text(";"),
    }
}

/// `c ? a : b` as a statement: it keeps its `;`, which sonde's parser needs (bpftrace's printer
/// drops it, its parser taking any `if` without one).
fn is_ternary(e: &Expr) -> bool {
    match &e.kind {
        E::If { then, els: Some(els), .. } => {
            !matches!(then.kind, E::Block(_)) && !matches!(els.kind, E::Block(_))
        }
        _ => false,
    }
}

fn bound(e: &Expr, m: &mut Metas, w: usize) -> Buf {
    if is_literal(e) {
        return expr(e, m, w, true);
    }
    Buf::new().text("(").append(expr(e, m, w.wrapping_sub(4), true)).text(")")
}

/// `target = value;`, or `target op= rhs;` when the value is `target op rhs`.
fn assign(t: Buf, target: &Expr, value: &Expr, m: &mut Metas, w: usize) -> Buf {
    let (op, rhs) = match &value.kind {
        E::Binop { op, lhs, rhs } if compoundable(op) && same(lhs, target) => {
            (format!("{}=", op), &**rhs)
        }
        _ => ("=".to_string(), value),
    };
    let rest = w.wrapping_sub(t.width() + 2 + op.len());
    let v = expr(rhs, m, rest, true);
    let align = !matches!(rhs.kind, E::Block(_) | E::If { .. });
    Buf::new().append(t).text(format!(" {} ", op)).append_with(v, 0, align).text(";")
}

fn compoundable(op: &str) -> bool {
    matches!(op, "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>")
}

/// The same text, printed flat.
fn same(a: &Expr, b: &Expr) -> bool {
    let flat = |e: &Expr| expr(e, &mut Metas::default(), usize::MAX / 2, true).render();
    flat(a) == flat(b)
}
