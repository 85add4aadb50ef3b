//! Program, probes and statements, as bpftrace's parser reads them.

use super::cursor::{Cursor, PResult};
use super::parse_expr::{condition, expr, map_with_keys, postfix, type_annotation, unary};
use super::tree::{Block, ConfigValue, Expr, ForIter, Program, Root, Stmt, E, R, S};
use crate::lexer::TokenKind as T;

pub fn program(c: &mut Cursor) -> PResult<Program> {
    c.layout();
    let mut header = None;
    if c.rest().starts_with("#!") {
        let end = c.rest().find('\n').map_or(c.text.len(), |i| c.pos + i + 1);
        header = Some(c.text[c.pos..end].to_string());
        c.pos = end;
    }
    let mut items = Vec::new();
    while let Some(ch) = c.ch() {
        let lo = c.pos;
        let kind = if ch == b'#' {
            R::C(c_line(c))
        } else if c_definition_ahead(c) {
            R::C(c_definition(c))
        } else if c.is_word("config")? {
            config(c)?
        } else if c.is_word("import")? {
            R::Import(import(c)?)
        } else if c.is_word("macro")? {
            macro_def(c)?
        } else if c.is_word("fn")? {
            function(c)?
        } else if c.is_word("let")? {
            map_decl(c)?
        } else {
            probe(c)?
        };
        items.push(Root { kind, lo });
    }
    Ok(Program { header, items })
}

/// A preprocessor line, verbatim without trailing space; its newline is part of it.
fn c_line(c: &mut Cursor) -> String {
    let end = c.rest().find('\n').map_or(c.text.len(), |i| c.pos + i);
    let line = c.text[c.pos..end].trim_end().to_string();
    c.pos = (end + 1).min(c.text.len());
    line
}

/// `struct|union|enum` then names and bracketed groups up to a `{`.
fn c_definition_ahead(c: &mut Cursor) -> bool {
    let rest = c.rest();
    let word: String =
        rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if !matches!(word.as_str(), "struct" | "union" | "enum") {
        return false;
    }
    let mut depth = 0i32;
    for ch in rest[word.len()..].chars() {
        match ch {
            '{' if depth == 0 => return true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if depth > 0 || c.is_whitespace() || c.is_ascii_alphanumeric() || c == '_' => {}
            _ => return false,
        }
    }
    false
}

/// A C definition, verbatim (comments inside included), ending in `;`.
fn c_definition(c: &mut Cursor) -> String {
    let b = c.rest().as_bytes();
    let mut depth = 0;
    let mut end = b.len();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            i += b[i..].iter().position(|&ch| ch == b'\n').unwrap_or(b.len() - i);
            continue;
        }
        if b[i..].starts_with(b"/*") {
            i += b[i + 2..].windows(2).position(|x| x == b"*/").map_or(b.len() - i, |j| j + 4);
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut def = c.rest()[..end].trim_end().to_string();
    c.pos += end;
    if !def.ends_with(';') {
        def.push(';');
    }
    if c.ch() == Some(b';') {
        c.pos += 1;
    }
    def
}

fn config(c: &mut Cursor) -> PResult<R> {
    c.bump()?;
    c.expect(T::Eq, "`=` after `config`")?;
    c.expect(T::LBrace, "`{`")?;
    let mut settings = Vec::new();
    while !c.eat(T::RBrace)? {
        let key = c.ident("a config key")?;
        c.expect(T::Eq, "`=` after the config key")?;
        let t = c.bump()?;
        let value = match &t.kind {
            T::Str(s) => ConfigValue::Str(String::from_utf8_lossy(s).into_owned()),
            T::Int(v) => ConfigValue::Int(*v),
            T::Ident if matches!(c.src(&t), "true" | "false") => {
                ConfigValue::Bool(c.src(&t) == "true")
            }
            T::Ident => ConfigValue::Str(c.src(&t).to_string()),
            _ => return Err(c.unexpected(&t, "a string, integer, boolean or name")),
        };
        settings.push((key, value));
        if !c.eat(T::Semi)? && !c.is(T::RBrace)? {
            let t = c.peek()?;
            return Err(c.unexpected(&t, "`;` or `}`"));
        }
    }
    Ok(R::Config(settings))
}

fn import(c: &mut Cursor) -> PResult<String> {
    c.bump()?;
    let t = c.bump()?;
    let T::Str(s) = &t.kind else { return Err(c.unexpected(&t, "a quoted module name")) };
    let name = String::from_utf8_lossy(s).into_owned();
    c.expect(T::Semi, "`;`")?;
    Ok(name)
}

fn macro_def(c: &mut Cursor) -> PResult<R> {
    c.bump()?;
    let name = c.ident("the macro's name")?;
    c.expect(T::LParen, "`(`")?;
    let mut args = Vec::new();
    while !c.is(T::RParen)? {
        let t = c.bump()?;
        if !matches!(t.kind, T::Var | T::At | T::Ident) {
            return Err(c.unexpected(&t, "a macro parameter"));
        }
        let (lo, hi) = (t.span.lo as usize, t.span.hi as usize);
        args.push(Expr { kind: E::Name(c.src(&t).to_string()), lo, hi });
        if !c.eat(T::Comma)? {
            break;
        }
    }
    c.expect(T::RParen, "`,` or `)`")?;
    let body = block(c, true)?;
    Ok(R::Macro { name, args, body })
}

fn function(c: &mut Cursor) -> PResult<R> {
    c.bump()?;
    let name = c.ident("the function's name")?;
    c.expect(T::LParen, "`(`")?;
    let mut args = Vec::new();
    while !c.is(T::RParen)? {
        let v = c.expect(T::Var, "a parameter")?;
        let var = c.src(&v).to_string();
        c.expect(T::Colon, "`:` and the parameter's type")?;
        let ty = Box::new(type_annotation(c)?);
        args.push(Expr { kind: E::Typed { var, ty }, lo: v.span.lo as usize, hi: c.pos });
        if !c.eat(T::Comma)? {
            break;
        }
    }
    c.expect(T::RParen, "`,` or `)`")?;
    c.expect(T::Colon, "`:` and the return type")?;
    let ret = type_annotation(c)?;
    let body = block(c, true)?;
    Ok(R::Fn { name, args, ret, body })
}

fn map_decl(c: &mut Cursor) -> PResult<R> {
    c.bump()?;
    let m = c.expect(T::At, "a map name")?;
    let name = c.src(&m).to_string();
    c.expect(T::Eq, "`=`")?;
    let kind = c.ident("a map type")?;
    c.expect(T::LParen, "`(`")?;
    let n = c.bump()?;
    let T::Int(size) = n.kind else { return Err(c.unexpected(&n, "the map's size")) };
    c.expect(T::RParen, "`)`")?;
    c.expect(T::Semi, "`;`")?;
    Ok(R::MapDecl { name, kind, size: size.to_string() })
}

fn probe(c: &mut Cursor) -> PResult<R> {
    let mut points = vec![attach_point(c)?];
    while c.ch() == Some(b',') {
        c.pos += 1;
        if matches!(c.ch(), Some(b'/' | b'{')) {
            break;
        }
        points.push(attach_point(c)?);
    }
    let mut pred = None;
    if c.ch() == Some(b'/') && !matches!(c.ch_at(c.pos + 1), Some(b'/' | b'*')) {
        c.pos += 1;
        pred = Some(expr(c)?);
        if c.ch() != Some(b'/') {
            return Err(c.error_here(1, "expected `/` to close the predicate"));
        }
        c.pos += 1;
    }
    let body =
        if pred.is_none() && !c.is(T::LBrace)? { lone_statement(c)? } else { block(c, false)? };
    Ok(R::Probe { points, pred, body })
}

/// An attach point's raw text: up to `{`, `,`, whitespace, or a `/` before any `:`.
fn attach_point(c: &mut Cursor) -> PResult<String> {
    c.layout();
    let b = c.text.as_bytes();
    let lo = c.pos;
    let mut p = lo;
    while p < b.len() {
        let ch = b[p];
        let path = b[lo..p].contains(&b':');
        if ch == b'{' || ch == b',' || ch.is_ascii_whitespace() {
            break;
        }
        if ch == b'/' && p > lo && !path && !matches!(b.get(p + 1), Some(b'/' | b'*')) {
            break;
        }
        if ch == b'"' {
            p += 1;
            while p < b.len() && b[p] != b'"' {
                p += if b[p] == b'\\' { 2 } else { 1 };
            }
        }
        p += 1;
    }
    let mut p = p.min(b.len());
    while !c.text.is_char_boundary(p) {
        p += 1;
    }
    if p == lo {
        return Err(c.error_here(1, "expected an attach point"));
    }
    c.pos = p;
    Ok(c.text[lo..p].to_string())
}

/// `{ statements [trailing expression] }`; without `allow_value` a trailing expression becomes
/// a statement.
pub fn block(c: &mut Cursor, allow_value: bool) -> PResult<Block> {
    let lo = c.expect(T::LBrace, "`{`")?.span.lo as usize;
    let mut stmts = Vec::new();
    let mut value = None;
    while !c.is(T::RBrace)? {
        if c.is(T::Eof)? {
            let t = c.peek()?;
            return Err(c.unexpected(&t, "`}`"));
        }
        match statement(c)? {
            Item::Stmt(s) => stmts.push(s),
            Item::Value(e) => value = Some(e),
        }
    }
    c.bump()?;
    let hi = c.pos;
    if let Some(e) = value {
        if !allow_value {
            stmts.push(Stmt { kind: S::Expr(e), lo });
        } else {
            return Ok(Block { stmts, expr: Some(Box::new(e)), lo, hi });
        }
    }
    Ok(Block { stmts, expr: None, lo, hi })
}

/// ply's body of one statement without braces (`k:f @[comm] = count();`), as a block.
pub fn lone_statement(c: &mut Cursor) -> PResult<Block> {
    let lo = c.peek()?.span.lo as usize;
    let stmt = match statement(c)? {
        Item::Stmt(s) => s,
        Item::Value(e) => Stmt { kind: S::Expr(e), lo },
    };
    Ok(Block { stmts: vec![stmt], expr: None, lo, hi: c.pos })
}

enum Item {
    Stmt(Stmt),
    /// An expression ending the block without `;`.
    Value(Expr),
}

fn stmt_end(c: &mut Cursor) -> PResult<()> {
    if c.eat(T::Semi)? || c.is(T::RBrace)? {
        return Ok(());
    }
    let t = c.peek()?;
    Err(c.unexpected(&t, "`;`"))
}

fn statement(c: &mut Cursor) -> PResult<Item> {
    let t = c.peek()?;
    let lo = t.span.lo as usize;
    let word = if t.kind == T::Ident { c.src(&t) } else { "" };
    let kind = match word {
        "import" => S::Import(import(c)?),
        "while" | "unroll" => {
            c.bump()?;
            let cond = condition(c)?;
            let body = block(c, false)?;
            if word == "while" {
                S::While { cond, body }
            } else {
                S::Unroll { count: cond, body }
            }
        }
        "for" => for_loop(c)?,
        "break" | "continue" => {
            c.bump()?;
            stmt_end(c)?;
            S::Jump { word: if word == "break" { "break" } else { "continue" }, value: None }
        }
        "return" => {
            c.bump()?;
            let value = if c.is(T::Semi)? || c.is(T::RBrace)? { None } else { Some(expr(c)?) };
            stmt_end(c)?;
            S::Jump { word: "return", value }
        }
        "_" if discard_ahead(c) => {
            c.bump()?;
            c.bump()?;
            let e = expr(c)?;
            stmt_end(c)?;
            S::Discard(e)
        }
        "let" => let_stmt(c)?,
        "delete" if !next_is_paren(c)? => {
            c.bump()?;
            let e = expr(c)?;
            stmt_end(c)?;
            S::Delete(e)
        }
        _ if matches!(t.kind, T::Var | T::At | T::Ident) => match assignment(c)? {
            Some(kind) => kind,
            None => return expr_statement(c, lo),
        },
        _ => return expr_statement(c, lo),
    };
    Ok(Item::Stmt(Stmt { kind, lo }))
}

/// Whether the token after the next is `(`.
fn next_is_paren(c: &mut Cursor) -> PResult<bool> {
    let save = c.pos;
    c.bump()?;
    let paren = c.is(T::LParen)?;
    c.pos = save;
    Ok(paren)
}

fn discard_ahead(c: &mut Cursor) -> bool {
    let save = c.pos;
    let yes = c.bump().is_ok() && c.is(T::Eq).unwrap_or(false);
    c.pos = save;
    yes
}

fn expr_statement(c: &mut Cursor, lo: usize) -> PResult<Item> {
    let e = expr(c)?;
    if c.eat(T::Semi)? {
        return Ok(Item::Stmt(Stmt { kind: S::Expr(e), lo }));
    }
    if c.is(T::RBrace)? {
        return Ok(Item::Value(e));
    }
    if matches!(e.kind, E::If { .. } | E::Block(_)) {
        return Ok(Item::Stmt(Stmt { kind: S::Expr(e), lo }));
    }
    let t = c.peek()?;
    Err(c.unexpected(&t, "`;`"))
}

fn let_stmt(c: &mut Cursor) -> PResult<S> {
    c.bump()?;
    let v = c.expect(T::Var, "a variable after `let`")?;
    let var = c.src(&v).to_string();
    let ty = if c.eat(T::Colon)? { Some(type_annotation(c)?) } else { None };
    let value = if c.eat(T::Eq)? { Some(expr(c)?) } else { None };
    stmt_end(c)?;
    Ok(S::Let { var, ty, value })
}

fn compound(kind: &T) -> Option<&'static str> {
    Some(match kind {
        T::PlusEq => "+",
        T::MinusEq => "-",
        T::StarEq => "*",
        T::SlashEq => "/",
        T::PercentEq => "%",
        T::AmpEq => "&",
        T::PipeEq => "|",
        T::CaretEq => "^",
        T::ShlEq => "<<",
        T::ShrEq => ">>",
        _ => return None,
    })
}

/// `$x = e`, `@m[k] op= e`, `$x++`: a statement; anything else is left for the expression
/// parser (returns `None` with the cursor where it was).
fn assignment(c: &mut Cursor) -> PResult<Option<S>> {
    let save = c.pos;
    let target = target(c)?;
    let t = c.peek()?;
    if t.kind == T::Eq {
        c.bump()?;
        let value = expr(c)?;
        stmt_end(c)?;
        return Ok(Some(S::Assign { target, value }));
    }
    if let Some(op) = compound(&t.kind) {
        c.bump()?;
        let rhs = expr(c)?;
        stmt_end(c)?;
        let (lo, hi) = (target.lo, rhs.hi);
        let value = Expr {
            kind: E::Binop { op, lhs: Box::new(target.clone()), rhs: Box::new(rhs) },
            lo,
            hi,
        };
        return Ok(Some(S::Assign { target, value }));
    }
    if matches!(t.kind, T::PlusPlus | T::MinusMinus) {
        c.bump()?;
        let op = if t.kind == T::PlusPlus { "++" } else { "--" };
        let (lo, hi) = (target.lo, c.pos);
        let e = Expr { kind: E::Unop { op, expr: Box::new(target), post: true }, lo, hi };
        if !c.is(T::RBrace)? {
            stmt_end(c)?;
        }
        return Ok(Some(S::Expr(e)));
    }
    let p = postfix(c, target)?;
    if c.is(T::Eq)? && matches!(&p.kind, E::Name(n) if n.starts_with('$')) {
        c.bump()?;
        let value = expr(c)?;
        stmt_end(c)?;
        return Ok(Some(S::Assign { target: p, value }));
    }
    c.pos = save;
    Ok(None)
}

/// `$x`, `@m` or `@m[keys]` (or ply's `m[keys]`, a map without `@`).
fn target(c: &mut Cursor) -> PResult<Expr> {
    let t = c.bump()?;
    let lo = t.span.lo as usize;
    let name = c.src(&t).to_string();
    if t.kind == T::Var {
        return Ok(Expr { kind: E::Name(name), lo, hi: c.pos });
    }
    map_with_keys(c, name, lo)
}

fn for_loop(c: &mut Cursor) -> PResult<S> {
    c.bump()?;
    let paren = c.eat(T::LParen)?;
    let v = c.expect(T::Var, "a variable in the `for` loop")?;
    let var = c.src(&v).to_string();
    c.expect(T::Colon, "`:`")?;
    let first = for_operand(c)?;
    let iter = if c.is(T::Dot)? && c.ch_at(c.pos + 1) == Some(b'.') {
        c.pos += 2;
        ForIter::Range(first, for_operand(c)?)
    } else {
        match first.kind {
            E::Name(n) if n.starts_with('@') => ForIter::Map(n),
            _ => {
                return Err(crate::diag::Diagnostic::error(
                    crate::ast::Span::new(first.lo, first.hi),
                    "expected a map or a range in the `for` loop",
                ))
            }
        }
    };
    if paren {
        c.expect(T::RParen, "`)`")?;
    }
    let body = block(c, false)?;
    Ok(S::For { var, iter, body })
}

/// A range bound or the map: one primary expression (no operators, no postfix).
fn for_operand(c: &mut Cursor) -> PResult<Expr> {
    let t = c.peek()?;
    if t.kind == T::At {
        c.bump()?;
        let (lo, hi) = (t.span.lo as usize, t.span.hi as usize);
        return Ok(Expr { kind: E::Name(c.src(&t).to_string()), lo, hi });
    }
    unary(c)
}
