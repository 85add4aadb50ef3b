//! `if` and `?:`: a ternary on one line or three; an `if` chain on one line only when it yields
//! a value and fits, else in blocks.

use super::buffer::Buf;
use super::layout::Metas;
use super::print_expr::expr;
use super::tree::{Expr, E};

pub fn if_expr(e: &Expr, m: &mut Metas, w: usize) -> Buf {
    let E::If { cond, then, els } = &e.kind else { return Buf::new() };
    let is_block = |x: &Expr| matches!(x.kind, E::Block(_));
    if let Some(els) = els.as_deref().filter(|x| !is_block(then) && !is_block(x)) {
        let c = expr(cond, m, w, false);
        let t = expr(then, m, w.wrapping_sub(2), false);
        let f = expr(els, m, w.wrapping_sub(2), false);
        if c.width() + t.width() + f.width() + 8 > w {
            return Buf::new()
                .append(c)
                .line_break()
                .text("? ")
                .append(t)
                .line_break()
                .text(": ")
                .append(f);
        }
        return Buf::new().append(c).text(" ? ").append(t).text(" : ").append(f);
    }
    let comments = m.before(e.lo);
    let mut pairs = Vec::new();
    let mut last = None;
    let mut total = 0;
    let mut it = e;
    while let E::If { cond, then, els } = &it.kind {
        // Layout between the first `if`'s condition and its block goes with the condition
        // (bpftrace takes the first block's position for every branch of the chain).
        let mut cm = m.before(then_lo(e));
        let c = expr(cond, &mut cm, w.wrapping_sub(5), matches!(cond.kind, E::Comptime(_)));
        let c = c.meta_inline(&cm);
        let body = raw_block(then, m, w);
        total += c.width() + 5 + body.width() + 3;
        pairs.push((c, body));
        match els.as_deref() {
            Some(x) if matches!(x.kind, E::If { .. }) => it = x,
            Some(x) => {
                last = Some(raw_block(x, m, w));
                break;
            }
            None => break,
        }
    }
    let mut buf = Buf::new().meta_block(&comments, 0);
    let no_value = matches!(&then.kind, E::Block(b) if b.expr.is_none()) || els.is_none();
    let multiline = pairs.iter().any(|(c, b)| c.lines() > 1 || b.lines() > 1);
    let in_blocks = no_value
        || total > w
        || pairs.len() > 1
        || multiline
        || last.as_ref().is_some_and(|b| b.lines() > 1);
    for (i, (c, b)) in pairs.into_iter().enumerate() {
        buf = branch(buf.text(if i > 0 { " else if " } else { "if " }).append(c), b, in_blocks);
    }
    match last {
        Some(b) => branch(buf.text(" else"), b, in_blocks),
        None => buf,
    }
}

/// ` { body }` on one line, or the body in an indented block.
fn branch(head: Buf, body: Buf, in_block: bool) -> Buf {
    if in_block {
        head.text(" {").indented(body).text("}")
    } else {
        head.text(" { ").append(body).text(" }")
    }
}

fn then_lo(e: &Expr) -> usize {
    match &e.kind {
        E::If { then, .. } => then.lo,
        _ => e.lo,
    }
}

/// A branch's statements without their braces.
fn raw_block(x: &Expr, m: &mut Metas, w: usize) -> Buf {
    match &x.kind {
        E::Block(b) => super::print::block(b, m, w.wrapping_sub(super::INDENT)),
        _ => expr(x, m, w.wrapping_sub(super::INDENT), true),
    }
}
