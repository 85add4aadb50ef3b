//! Expressions to text, as bpftrace's formatter prints them: operands that are not primitive
//! in parentheses, lists broken across lines where they would pass the width.

use super::buffer::Buf;
use super::layout::Metas;
use super::tree::{Expr, Suffix, Type, TypeArg, E};
use super::INDENT;

/// Names, literals, calls, accesses: never need parentheses.
pub fn is_primitive(e: &Expr) -> bool {
    match &e.kind {
        E::Int(_) | E::Str(_) | E::Bool(_) | E::Name(_) | E::Call { .. } | E::Index { .. } => true,
        E::TupleIndex { .. } | E::MapAccess { .. } | E::Field { .. } | E::Offsetof { .. } => true,
        E::TypeFn { name, .. } => *name != "typeof",
        E::Comptime(inner) => is_primitive(inner),
        _ => false,
    }
}

fn is_comparison(e: &Expr) -> bool {
    matches!(&e.kind, E::Binop { op, .. } if matches!(*op, "==" | "!=" | "<=" | ">=" | "<" | ">"))
}

pub fn is_literal(e: &Expr) -> bool {
    matches!(e.kind, E::Int(_) | E::Str(_) | E::Bool(_))
}

/// bpftrace's string escapes: printable ASCII as is, `\n`, `\t`, `\r`, else `\xNN`.
pub fn escape(s: &[u8]) -> String {
    let mut out = String::new();
    for &b in s {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(b as char),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            _ => out.push_str(&format!("\\x{:02x}", b)),
        }
    }
    out
}

/// An expression in a place: in parentheses unless `bare` or primitive; layout inside dropped.
pub fn expr(e: &Expr, m: &mut Metas, w: usize, bare: bool) -> Buf {
    let mut local = m.before(e.hi);
    let bare_ok = (bare && !matches!(e.kind, E::Tuple(_))) || is_primitive(e);
    let local_w = if bare_ok { w } else { w.wrapping_sub(2) };
    let mut buf = Buf::new();
    if !bare_ok {
        buf = buf.text("(");
    }
    if let E::Block(b) = &e.kind {
        let block = super::print::block(b, &mut local, w.wrapping_sub(2));
        buf = if block.lines() > 1 || block.width() > local_w {
            buf.text("{").indented(block).text("}")
        } else {
            buf.text("{ ").append(block).text(" }")
        };
    } else {
        buf = buf.append(value(e, &mut local, local_w, true));
    }
    m.drop_part(local);
    if bare_ok {
        buf
    } else {
        buf.text(")")
    }
}

/// Items joined by `sep`, on one line if they fit, else on the fewest lines that do (the first
/// arrangement, breaking as early as possible, where every line fits).
pub fn list(items: &[Expr], sep: &str, m: &mut Metas, w: usize, bare: bool) -> Buf {
    let n = items.len();
    let mut bufs = Vec::with_capacity(n);
    let mut total = 0;
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == n;
        let iw = if last { w } else { w.wrapping_sub(1) };
        let mut b = if matches!(item.kind, E::Named { .. } | E::Typed { .. }) {
            value(item, m, iw, bare)
        } else {
            expr(item, m, iw, bare || is_comparison(item))
        };
        if !last {
            b = b.text(sep);
        }
        total += b.width();
        bufs.push(b);
    }
    if total < w || n == 0 {
        return bufs.into_iter().fold(Buf::new(), Buf::append);
    }
    let widths: Vec<usize> = bufs.iter().map(Buf::width).collect();
    let breaks = best_breaks(&widths, w);
    let mut out = Buf::new();
    for (b, brk) in bufs.into_iter().zip(breaks) {
        if brk {
            out = out.line_break();
        }
        out = out.append(b);
    }
    out
}

/// Where to break a list too wide for one line (`true`: before that item): bpftrace takes the
/// first arrangement, counting breaks as bits with the last item's highest, whose lines all fit
/// in `w`; none fitting, no breaks. Found from the highest bit down (a break left out where the
/// rest can still fit), not by trying all 2^n.
pub fn best_breaks(widths: &[usize], w: usize) -> Vec<bool> {
    let n = widths.len();
    let fits = |brk: &[bool]| {
        let mut line = 0;
        for (width, b) in widths.iter().zip(brk) {
            if *b {
                if line > w {
                    return false;
                }
                line = 0;
            }
            line += width;
        }
        line <= w
    };
    let mut brk: Vec<bool> = (0..n).map(|i| i > 0).collect();
    if !fits(&brk) {
        return vec![false; n];
    }
    for i in (1..n).rev() {
        brk[i] = false;
        if !fits(&brk) {
            brk[i] = true;
        }
    }
    brk
}

fn type_text(t: &Type) -> String {
    let mut s = t.base.clone();
    for suffix in &t.suffixes {
        match suffix {
            Suffix::Pointer => s.push('*'),
            Suffix::Array(0) => s.push_str("[]"),
            Suffix::Array(n) => s.push_str(&format!("[{}]", n)),
        }
    }
    s
}

/// A type argument where a type goes (a cast, `let $x : T`).
pub fn type_arg(t: &TypeArg, m: &mut Metas, w: usize) -> Buf {
    match t {
        TypeArg::Type(t) => Buf::new().text(type_text(t)),
        TypeArg::Expr(e) => as_type(e, m, w),
        TypeArg::TypeOf(e) => {
            Buf::new().text("typeof(").append(as_type(e, m, w.wrapping_sub(8))).text(")")
        }
        TypeArg::TypeOfType(t) => Buf::new().text(format!("typeof({})", type_text(t))),
    }
}

/// An expression standing for its type; `ident[0]` in parentheses so it stays an expression.
fn as_type(e: &Expr, m: &mut Metas, w: usize) -> Buf {
    let b = expr(e, m, w, true);
    let mut base = e;
    while let E::Index { expr, .. } = &base.kind {
        base = expr;
    }
    if !std::ptr::eq(base, e) && matches!(&base.kind, E::Name(n) if !n.starts_with(['$', '@'])) {
        return Buf::new().text("(").append(b).text(")");
    }
    b
}

/// The node itself (`expr` adds the parentheses).
fn value(e: &Expr, m: &mut Metas, w: usize, bare: bool) -> Buf {
    match &e.kind {
        E::Int(s) | E::Name(s) => Buf::new().text(s.clone()),
        E::Str(s) => Buf::new().text(format!("\"{}\"", escape(s))),
        E::Bool(b) => Buf::new().text(if *b { "true" } else { "false" }),
        E::Call { name, args } => {
            let a = list(args, ", ", m, w.wrapping_sub(name.len() + 2), true);
            let head = Buf::new().text(format!("{}(", name));
            if a.width() > w {
                head.indented(a).text(")")
            } else {
                head.append(a).text(")")
            }
        }
        E::TypeFn { name, arg } => {
            let inner_w = w.wrapping_sub(if *name == "typeinfo" { 10 } else { 8 });
            let inner = match &**arg {
                TypeArg::Expr(x) => as_type(x, m, inner_w),
                other => type_arg(other, m, inner_w),
            };
            Buf::new().text(format!("{}(", name)).append(inner).text(")")
        }
        E::Offsetof { arg, fields } => {
            let inner = match &**arg {
                TypeArg::Expr(x) => as_type(x, m, w),
                other => type_arg(other, m, w),
            };
            Buf::new().text("offsetof(").append(inner).text(", ").text(fields.join(".")).text(")")
        }
        E::Comptime(x) => Buf::new().text("comptime ").append(expr(x, m, w.wrapping_sub(9), false)),
        E::Binop { op, .. } => {
            let mut entries = Vec::new();
            flatten(e, op, &mut entries);
            list(&entries, &format!(" {} ", op), m, w, false)
        }
        E::Unop { op, expr: x, post } => {
            let b = expr(x, m, w.wrapping_sub(op.len()), false);
            if *post {
                b.text(*op)
            } else {
                Buf::new().text(*op).append(b)
            }
        }
        E::If { .. } => super::print_if::if_expr(e, m, w),
        E::Field { expr: x, field } => expr(x, m, w.wrapping_sub(field.len() + 1), is_primitive(x))
            .text(".")
            .text(field.clone()),
        E::Index { expr: x, index } => {
            let b = expr(x, m, w.wrapping_sub(1), false);
            let i = expr(index, m, w.wrapping_sub(INDENT), false);
            let wide = b.width() + i.width() + 2 > w;
            let b = Buf::new().append(b).text("[");
            if wide { b.indented(i) } else { b.append(i) }.text("]")
        }
        E::TupleIndex { expr: x, index } => {
            expr(x, m, w.wrapping_sub(index.len() + 1), false).text(".").text(index.clone())
        }
        E::MapAccess { map, key } => {
            let k = match &key.kind {
                E::Tuple(items) if items.len() >= 2 => value(key, m, w.wrapping_sub(INDENT), true),
                _ => expr(key, m, w.wrapping_sub(INDENT), true),
            };
            let b = Buf::new().text(format!("{}[", map));
            if map.len() + k.width() + 2 > w { b.indented(k) } else { b.append(k) }.text("]")
        }
        E::Cast { ty, expr: x } => {
            let head = Buf::new().text("(").append(type_arg(ty, m, w)).text(")");
            let rest_w = w.wrapping_sub(head.width());
            head.append(expr(x, m, rest_w, is_primitive(x)))
        }
        E::Tuple(items) => {
            let elems = if items.len() == 1 {
                expr(&items[0], m, w.wrapping_sub(3), true).text(",")
            } else {
                list(items, ", ", m, w.wrapping_sub(INDENT), true)
            };
            if bare {
                return elems;
            }
            wrap_parens(elems)
        }
        E::Record(items) => {
            let elems = if items.len() == 1 {
                value(&items[0], m, w.wrapping_sub(2), false)
            } else {
                list(items, ", ", m, w.wrapping_sub(INDENT), false)
            };
            wrap_parens(elems)
        }
        E::Named { name, expr: x } => {
            let b = expr(x, m, w.wrapping_sub(name.len() + 1), false);
            Buf::new().text(format!("{}=", name)).append(b)
        }
        E::Typed { var, ty } => Buf::new().text(format!("{} : ", var)).append(type_arg(
            ty,
            m,
            w.wrapping_sub(var.len() + 3),
        )),
        E::Block(b) => super::print::block(b, m, w),
    }
}

fn wrap_parens(elems: Buf) -> Buf {
    if elems.lines() > 1 {
        Buf::new().text("(").indented(elems).text(")")
    } else {
        Buf::new().text("(").append(elems).text(")")
    }
}

/// A binary operation's operands; `a && b && c` (and `||`) as one list.
fn flatten(e: &Expr, op: &str, out: &mut Vec<Expr>) {
    let logical = op == "&&" || op == "||";
    if let E::Binop { lhs, rhs, .. } = &e.kind {
        for side in [lhs, rhs] {
            match &side.kind {
                E::Binop { op: o, .. } if logical && *o == op => flatten(side, op, out),
                _ => out.push((**side).clone()),
            }
        }
    }
}
