//! Expressions, as bpftrace's parser reads them: precedence climbing, `?:`, unary and postfix
//! operators, and the forms a `(` can start (tuple, record, cast, grouping).

use super::cursor::{Cursor, PResult};
use super::layout::{self, Metas};
use super::tree::{Expr, Suffix, Type, TypeArg, E};
use crate::lexer::{is_ident_start, TokenKind as T};

/// Builtins that cannot name a type, so `(pid)` is never a cast.
const BUILTINS: &[&str] = &[
    "pid", "tid", "uid", "gid", "nsecs", "elapsed", "numaid", "cpu", "ncpus", "curtask", "rand",
    "cgroup", "comm", "kstack", "ustack", "func", "probe", "username", "args", "retval", "ctx",
    "cpid", "jiffies", "usermode", "sarg0", "arg0", "arg1", "arg2", "arg3", "arg4", "arg5", "arg6",
    "arg7", "arg8", "arg9",
];

fn binop(kind: &T) -> Option<(&'static str, u8)> {
    Some(match kind {
        T::OrOr => ("||", 1),
        T::AndAnd => ("&&", 2),
        T::Pipe => ("|", 3),
        T::Caret => ("^", 4),
        T::Amp => ("&", 5),
        T::EqEq => ("==", 6),
        T::Ne => ("!=", 6),
        T::Lt => ("<", 7),
        T::Gt => (">", 7),
        T::Le => ("<=", 7),
        T::Ge => (">=", 7),
        T::Shl => ("<<", 8),
        T::Shr => (">>", 8),
        T::Plus => ("+", 9),
        T::Minus => ("-", 9),
        T::Star => ("*", 10),
        T::Slash => ("/", 10),
        T::Percent => ("%", 10),
        _ => return None,
    })
}

pub fn expr(c: &mut Cursor) -> PResult<Expr> {
    ternary(c)
}

fn ternary(c: &mut Cursor) -> PResult<Expr> {
    let cond = binary(c, 0)?;
    if !c.eat(T::Question)? {
        return Ok(cond);
    }
    let then = if c.eat(T::Colon)? {
        cond.clone()
    } else {
        let then = ternary(c)?;
        c.expect(T::Colon, "`:` of `?:`")?;
        then
    };
    let els = ternary(c)?;
    let (lo, hi) = (cond.lo, els.hi);
    let kind = E::If { cond: Box::new(cond), then: Box::new(then), els: Some(Box::new(els)) };
    Ok(Expr { kind, lo, hi })
}

pub fn binary(c: &mut Cursor, min: u8) -> PResult<Expr> {
    let lhs = unary(c)?;
    binary_from(c, min, lhs)
}

fn binary_from(c: &mut Cursor, min: u8, mut lhs: Expr) -> PResult<Expr> {
    loop {
        let t = c.peek()?;
        let Some((op, prec)) = binop(&t.kind) else { break };
        if prec < min || (t.kind == T::Slash && ends_predicate(c, t.span.hi as usize)) {
            break;
        }
        c.bump()?;
        let rhs = binary(c, prec + 1)?;
        let (lo, hi) = (lhs.lo, rhs.hi);
        lhs = Expr { kind: E::Binop { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, lo, hi };
    }
    Ok(lhs)
}

/// A `/` followed by `{` closes a predicate.
fn ends_predicate(c: &Cursor, after: usize) -> bool {
    let p = layout::scan(c.text, after, &mut Metas::default());
    c.ch_at(p) == Some(b'{')
}

pub fn unary(c: &mut Cursor) -> PResult<Expr> {
    let t = c.peek()?;
    let lo = t.span.lo as usize;
    let op = match t.kind {
        T::PlusPlus => "++",
        T::MinusMinus => "--",
        T::Amp => "&",
        T::Star => "*",
        T::Bang => "!",
        T::Tilde => "~",
        T::Minus => "-",
        _ => {
            let p = primary(c)?;
            return postfix(c, p);
        }
    };
    c.bump()?;
    let e = unary(c)?;
    let hi = e.hi;
    Ok(Expr { kind: E::Unop { op, expr: Box::new(e), post: false }, lo, hi })
}

fn incrementable(e: &Expr) -> bool {
    match &e.kind {
        E::MapAccess { .. } => true,
        E::Name(n) => n.starts_with('$') || n.starts_with('@'),
        _ => false,
    }
}

pub fn postfix(c: &mut Cursor, mut e: Expr) -> PResult<Expr> {
    loop {
        let t = c.peek()?;
        let lo = e.lo;
        let kind = match t.kind {
            T::Dot if c.ch_at(t.span.hi as usize) == Some(b'.') => break,
            T::Dot | T::Arrow => {
                c.bump()?;
                let f = c.bump()?;
                match f.kind {
                    T::Int(_) if t.kind == T::Dot => {
                        E::TupleIndex { expr: Box::new(e), index: c.src(&f).to_string() }
                    }
                    T::Ident => E::Field { expr: Box::new(e), field: c.src(&f).to_string() },
                    _ => return Err(c.unexpected(&f, "a field name")),
                }
            }
            T::LBracket => {
                c.bump()?;
                let index = expr(c)?;
                c.expect(T::RBracket, "`]`")?;
                E::Index { expr: Box::new(e), index: Box::new(index) }
            }
            T::PlusPlus | T::MinusMinus => {
                if !incrementable(&e) {
                    return Err(c.unexpected(&t, "no `++`/`--` here (they need a variable or map)"));
                }
                c.bump()?;
                let op = if t.kind == T::PlusPlus { "++" } else { "--" };
                E::Unop { op, expr: Box::new(e), post: true }
            }
            _ => break,
        };
        e = Expr { kind, lo, hi: c.pos };
    }
    Ok(e)
}

fn primary(c: &mut Cursor) -> PResult<Expr> {
    let t = c.peek()?;
    let lo = t.span.lo as usize;
    let word = c.src(&t).to_string();
    let kind = match t.kind {
        T::LParen => return paren(c),
        T::LBrace => {
            let b = super::parse::block(c, true)?;
            let hi = b.hi;
            return Ok(Expr { kind: E::Block(b), lo, hi });
        }
        T::Ident if word == "if" => return if_expr(c),
        T::Ident if matches!(word.as_str(), "sizeof" | "typeinfo" | "offsetof") => {
            return type_fn(c)
        }
        T::Ident if word == "comptime" => {
            c.bump()?;
            let e = unary(c)?;
            let hi = e.hi;
            return Ok(Expr { kind: E::Comptime(Box::new(e)), lo, hi });
        }
        T::Ident if word == "true" || word == "false" => {
            c.bump()?;
            E::Bool(word == "true")
        }
        T::Ident => {
            c.bump()?;
            if c.is(T::LParen)? {
                return call(c, word, lo);
            }
            E::Name(word)
        }
        T::At => {
            c.bump()?;
            return map_with_keys(c, word, lo);
        }
        T::Var => {
            c.bump()?;
            E::Name(word)
        }
        T::Int(_) => {
            c.bump()?;
            E::Int(word)
        }
        T::Str(ref s) => {
            let s = s.clone();
            c.bump()?;
            E::Str(s)
        }
        _ => return Err(c.unexpected(&t, "an expression")),
    };
    Ok(Expr { kind, lo, hi: c.pos })
}

/// A map's name (read, starting at `lo`) and its `[keys]` if they follow; several keys are
/// one tuple.
pub fn map_with_keys(c: &mut Cursor, map: String, lo: usize) -> PResult<Expr> {
    if !c.eat(T::LBracket)? {
        return Ok(Expr { kind: E::Name(map), lo, hi: c.pos });
    }
    let mut keys = vec![expr(c)?];
    while c.eat(T::Comma)? {
        keys.push(expr(c)?);
    }
    c.expect(T::RBracket, "`]` after the map's keys")?;
    let key = match keys.len() {
        1 => keys.remove(0),
        _ => Expr { kind: E::Tuple(keys), lo, hi: c.pos },
    };
    Ok(Expr { kind: E::MapAccess { map, key: Box::new(key) }, lo, hi: c.pos })
}

fn call(c: &mut Cursor, name: String, lo: usize) -> PResult<Expr> {
    c.expect(T::LParen, "`(`")?;
    let mut args = Vec::new();
    if !c.is(T::RParen)? {
        loop {
            args.push(if c.is_word("typeof")? { typeof_expr(c)? } else { expr(c)? });
            if !c.eat(T::Comma)? {
                break;
            }
        }
    }
    c.expect(T::RParen, "`,` or `)` in the call's arguments")?;
    Ok(Expr { kind: E::Call { name, args }, lo, hi: c.pos })
}

/// `typeof(x)` as an expression argument.
fn typeof_expr(c: &mut Cursor) -> PResult<Expr> {
    let lo = c.peek()?.span.lo as usize;
    let arg = match type_annotation(c)? {
        TypeArg::TypeOf(e) => TypeArg::Expr(e),
        TypeArg::TypeOfType(t) => TypeArg::Type(t),
        other => other,
    };
    Ok(Expr { kind: E::TypeFn { name: "typeof", arg: Box::new(arg) }, lo, hi: c.pos })
}

fn if_expr(c: &mut Cursor) -> PResult<Expr> {
    let lo = c.bump()?.span.lo as usize;
    let cond = condition(c)?;
    let then = block_expr(c)?;
    let save = c.pos;
    let els = if c.eat_word("else")? {
        if c.is_word("if")? {
            Some(Box::new(if_expr(c)?))
        } else {
            Some(Box::new(block_expr(c)?))
        }
    } else {
        c.pos = save;
        None
    };
    let kind = E::If { cond: Box::new(cond), then: Box::new(then), els };
    Ok(Expr { kind, lo, hi: c.pos })
}

/// An `if` or `while` condition: `(expr)`, or an expression up to the block (bpftrace reads a
/// unary expression there; sonde any).
pub fn condition(c: &mut Cursor) -> PResult<Expr> {
    if !c.eat(T::LParen)? {
        return expr(c);
    }
    let e = expr(c)?;
    c.expect(T::RParen, "`)` after the condition")?;
    Ok(e)
}

/// A branch's block; sonde's (C's) branch of one statement without braces becomes one.
fn block_expr(c: &mut Cursor) -> PResult<Expr> {
    let b = if c.is(T::LBrace)? {
        super::parse::block(c, true)?
    } else {
        super::parse::lone_statement(c)?
    };
    let (lo, hi) = (b.lo, b.hi);
    Ok(Expr { kind: E::Block(b), lo, hi })
}

fn type_fn(c: &mut Cursor) -> PResult<Expr> {
    let t = c.bump()?;
    let lo = t.span.lo as usize;
    let name = c.src(&t);
    c.expect(T::LParen, "`(`")?;
    let arg = Box::new(type_or_expr(c)?);
    let kind = if name == "offsetof" {
        c.expect(T::Comma, "`,` and a field")?;
        let mut fields = vec![c.ident("a field name")?];
        while c.eat(T::Dot)? {
            fields.push(c.ident("a field name")?);
        }
        E::Offsetof { arg, fields }
    } else if name == "sizeof" {
        E::TypeFn { name: "sizeof", arg }
    } else {
        E::TypeFn { name: "typeinfo", arg }
    };
    c.expect(T::RParen, "`)`")?;
    Ok(Expr { kind, lo, hi: c.pos })
}

/// `typeof(...)`, a type, or an expression (whichever reads to the closing `)` or `,`).
fn type_or_expr(c: &mut Cursor) -> PResult<TypeArg> {
    if c.is_word("typeof")? {
        return type_annotation(c);
    }
    let save = c.pos;
    if let Some(ty) = try_type(c)? {
        if c.is(T::RParen)? || c.is(T::Comma)? {
            return Ok(TypeArg::Type(ty));
        }
    }
    c.pos = save;
    Ok(TypeArg::Expr(expr(c)?))
}

/// `typeof(type or expr)` or a type.
pub fn type_annotation(c: &mut Cursor) -> PResult<TypeArg> {
    if c.eat_word("typeof")? {
        c.expect(T::LParen, "`(`")?;
        let inner = type_or_expr(c)?;
        c.expect(T::RParen, "`)`")?;
        return Ok(match inner {
            TypeArg::Type(t) | TypeArg::TypeOfType(t) => TypeArg::TypeOfType(t),
            TypeArg::Expr(e) | TypeArg::TypeOf(e) => TypeArg::TypeOf(e),
        });
    }
    let t = c.peek()?;
    match try_type(c)? {
        Some(ty) => Ok(TypeArg::Type(ty)),
        None => Err(c.unexpected(&t, "a type")),
    }
}

/// A type name (`struct x`, `uint64`) and its `*` and `[N]` suffixes.
pub fn try_type(c: &mut Cursor) -> PResult<Option<Type>> {
    let t = c.peek()?;
    if t.kind != T::Ident {
        return Ok(None);
    }
    c.bump()?;
    let mut base = c.src(&t).to_string();
    if matches!(base.as_str(), "struct" | "union" | "enum") {
        let n = c.peek()?;
        if n.kind != T::Ident {
            return Ok(None);
        }
        c.bump()?;
        base = format!("{} {}", base, c.src(&n));
    }
    let mut suffixes = Vec::new();
    loop {
        if c.eat(T::Star)? {
            suffixes.push(Suffix::Pointer);
        } else if c.eat(T::LBracket)? {
            let mut n = 0;
            if let T::Int(v) = c.peek()?.kind {
                c.bump()?;
                n = v;
            }
            c.expect(T::RBracket, "`]`")?;
            suffixes.push(Suffix::Array(n));
        } else {
            break;
        }
    }
    Ok(Some(Type { base, suffixes }))
}

fn can_start_expression(c: &mut Cursor) -> bool {
    match c.ch() {
        Some(ch) => {
            ch.is_ascii_digit() || b"$@\"(-!~*&".contains(&ch) || is_ident_start(ch as char)
        }
        None => false,
    }
}

fn paren(c: &mut Cursor) -> PResult<Expr> {
    let lo = c.bump()?.span.lo as usize;
    if c.eat(T::RParen)? {
        return Ok(Expr { kind: E::Tuple(vec![]), lo, hi: c.pos });
    }
    if let Some(r) = try_record(c, lo)? {
        return Ok(r);
    }
    if let Some(cast) = try_cast(c, lo)? {
        return Ok(cast);
    }
    let first = expr(c)?;
    if !c.eat(T::Comma)? {
        c.expect(T::RParen, "`)`")?;
        return Ok(first);
    }
    let mut elems = vec![first];
    while !c.is(T::RParen)? {
        elems.push(expr(c)?);
        if !c.eat(T::Comma)? {
            break;
        }
    }
    c.expect(T::RParen, "`,` or `)` in the tuple")?;
    Ok(Expr { kind: E::Tuple(elems), lo, hi: c.pos })
}

fn try_record(c: &mut Cursor, lo: usize) -> PResult<Option<Expr>> {
    let save = c.pos;
    let t = c.peek()?;
    if t.kind != T::Ident {
        return Ok(None);
    }
    c.bump()?;
    if !c.is(T::Eq)? {
        c.pos = save;
        return Ok(None);
    }
    c.pos = save;
    let mut elems = Vec::new();
    loop {
        let n = c.peek()?;
        let name = c.ident("a field name")?;
        c.expect(T::Eq, "`=` after the field name")?;
        let e = expr(c)?;
        let (nlo, hi) = (n.span.lo as usize, e.hi);
        elems.push(Expr { kind: E::Named { name, expr: Box::new(e) }, lo: nlo, hi });
        if !c.eat(T::Comma)? || c.is(T::RParen)? {
            break;
        }
    }
    c.expect(T::RParen, "`,` or `)` in the record")?;
    Ok(Some(Expr { kind: E::Record(elems), lo, hi: c.pos }))
}

fn try_cast(c: &mut Cursor, lo: usize) -> PResult<Option<Expr>> {
    let save = c.pos;
    let ty = if c.is_word("typeof")? {
        type_annotation(c)?
    } else {
        let t = c.peek()?;
        if t.kind != T::Ident || BUILTINS.contains(&c.src(&t)) {
            return Ok(None);
        }
        match try_type(c)? {
            Some(ty) => TypeArg::Type(ty),
            None => {
                c.pos = save;
                return Ok(None);
            }
        }
    };
    if !c.eat(T::RParen)? || !can_start_expression(c) {
        c.pos = save;
        return Ok(None);
    }
    let e = unary(c)?;
    let hi = e.hi;
    Ok(Some(Expr { kind: E::Cast { ty: Box::new(ty), expr: Box::new(e) }, lo, hi }))
}
