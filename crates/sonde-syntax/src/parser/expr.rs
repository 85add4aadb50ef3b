//! Expressions: Pratt parsing with C's precedence.

use super::{PResult, Parser, MAX_DEPTH};
use crate::ast::{BinOp, Block, Expr, ExprKind, Span, Stmt, StmtKind, TypeName, UnOp};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind};

impl Parser<'_> {
    /// A full expression. Nesting is counted in `unary` and in the arms of `?:`, which every
    /// recursion passes through.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.ternary()
    }

    /// An expression inside brackets, where `/` divides even within a predicate.
    pub(super) fn inner_expr(&mut self) -> PResult<Expr> {
        let saved = std::mem::replace(&mut self.slash_ends, false);
        let e = self.expr();
        self.slash_ends = saved;
        e
    }

    /// `cond ? a : b`, right associative.
    fn ternary(&mut self) -> PResult<Expr> {
        let cond = self.binary(1)?;
        if self.eat(TokenKind::Question).is_none() {
            return Ok(cond);
        }
        // GNU C's `a ?: b`: `a` when it is true, else `b`.
        if self.peek().kind == TokenKind::Colon {
            return self.elvis(cond);
        }
        // Both arms recurse into `ternary` without passing through `unary`: count them here.
        let then = self.nested(|p| p.inner_expr())?;
        self.expect(TokenKind::Colon, "`:` in conditional expression `cond ? a : b`")?;
        let els = self.nested(|p| p.expr())?;
        let span = cond.span.to(els.span);
        Ok(Expr {
            kind: ExprKind::Ternary {
                cond: Box::new(cond),
                then: Box::new(then),
                els: Box::new(els),
            },
            span,
        })
    }

    /// `a ?: b` after `a ?`: `a ? a : b`. `a` is read twice, so it must be a value whose
    /// reading changes nothing and gives the same twice: a variable, a map element or a constant.
    fn elvis(&mut self, cond: Expr) -> PResult<Expr> {
        let colon = self.bump();
        let read_twice = matches!(
            cond.kind,
            ExprKind::Var(_) | ExprKind::Map { .. } | ExprKind::Int(_) | ExprKind::Str(_)
        );
        if !read_twice {
            let msg = "`?:` with an empty middle takes a variable, a map element or a constant on its left";
            let help = "assign the expression to a variable first: `$v = EXPR; $v ?: OTHER`";
            self.emit(Diagnostic::error(cond.span.to(colon.span), msg).with_help(help));
            return Err(());
        }
        let els = self.nested(|p| p.expr())?;
        let span = cond.span.to(els.span);
        let then = Box::new(cond.clone());
        Ok(Expr {
            kind: ExprKind::Ternary { cond: Box::new(cond), then, els: Box::new(els) },
            span,
        })
    }

    /// Binary operators binding at least as tightly as `min`.
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        // Left-associative chains grow the tree without recursing, so measure it instead.
        let mut d = depth(&lhs);
        while let Some((op, prec)) = binop(&self.peek().kind) {
            if prec < min || (op == BinOp::Div && self.slash_ends) {
                break;
            }
            let t = self.bump();
            let rhs = self.binary(prec + 1)?;
            d = 1 + d.max(depth(&rhs));
            if d > MAX_DEPTH {
                self.too_deep(t.span);
                return Err(());
            }
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
                span,
            };
        }
        Ok(lhs)
    }

    /// Prefix operators and casts.
    pub(super) fn unary(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let op = match p.peek_kind() {
                TokenKind::Minus => UnOp::Neg,
                TokenKind::Bang => UnOp::Not,
                TokenKind::Tilde => UnOp::BitNot,
                TokenKind::Star => UnOp::Deref,
                TokenKind::Amp => UnOp::AddrOf,
                TokenKind::PlusPlus | TokenKind::MinusMinus => return p.prefix_increment(),
                TokenKind::LParen if p.cast_ahead() => return p.cast(),
                _ => return p.postfix(),
            };
            let t = p.bump();
            let e = p.unary()?;
            Ok(Expr { span: t.span.to(e.span), kind: ExprKind::Unary { op, expr: Box::new(e) } })
        })
    }

    /// `++$a`, `--@m[k]`.
    fn prefix_increment(&mut self) -> PResult<Expr> {
        let t = self.bump();
        let target = self.postfix()?;
        if !steppable(&target) {
            let op = self.text_of(t.span);
            let msg = format!("`{}` needs a map or variable after it, like `{}$i`", op, op);
            self.emit(Diagnostic::error(target.span, msg));
            return Err(());
        }
        let op = if t.kind == TokenKind::PlusPlus { BinOp::Add } else { BinOp::Sub };
        let span = t.span.to(target.span);
        Ok(Expr { kind: ExprKind::Step { target: Box::new(target), op, post: false }, span })
    }

    /// Field access and indexing after a primary expression.
    pub(super) fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let mut d = depth(&e);
        loop {
            let kind = self.peek().kind.clone();
            // `a..b` is a `for` loop's range, never a member.
            if kind == TokenKind::Dot && self.lex.clone().next_token().kind == TokenKind::Dot {
                return Ok(e);
            }
            match kind {
                TokenKind::Dot | TokenKind::Arrow => {
                    let t = self.bump();
                    let arrow = t.kind == TokenKind::Arrow;
                    let what =
                        if arrow { "a field name after `->`" } else { "a field name after `.`" };
                    // A tuple's element by number: `$t.0`.
                    let f = match self.peek().kind {
                        TokenKind::Int(_) if !arrow => self.bump(),
                        _ => self.expect(TokenKind::Ident, what)?,
                    };
                    let field = self.text_of(f.span).to_string();
                    e = Expr {
                        span: e.span.to(f.span),
                        kind: ExprKind::Member { expr: Box::new(e), field, arrow },
                    };
                    d += 1;
                }
                // A type parameter's array: `sizeof(t[2])`.
                TokenKind::LBracket if matches!(&e.kind, ExprKind::TypeArg(t) if t.array.is_none()) =>
                {
                    let open = self.bump();
                    let len = match self.peek().kind {
                        TokenKind::Int(n) if n > 0 => self.bump().kind,
                        _ => {
                            let t = self.peek().clone();
                            self.expected("an array length", &t);
                            return Err(());
                        }
                    };
                    let close =
                        self.close(TokenKind::RBracket, "`]` after the array's length", &open)?;
                    if let (ExprKind::TypeArg(t), TokenKind::Int(n)) = (&mut e.kind, len) {
                        t.array = Some(n);
                        t.span = t.span.to(close.span);
                    }
                    e.span = e.span.to(close.span);
                }
                TokenKind::LBracket => {
                    let open = self.bump();
                    let index = self.inner_expr()?;
                    let close = self.close(TokenKind::RBracket, "`]` after index", &open)?;
                    d = 1 + d.max(depth(&index));
                    e = Expr {
                        span: e.span.to(close.span),
                        kind: ExprKind::Index { expr: Box::new(e), index: Box::new(index) },
                    };
                }
                TokenKind::PlusPlus | TokenKind::MinusMinus if steppable(&e) => {
                    let t = self.bump();
                    let op = if t.kind == TokenKind::PlusPlus { BinOp::Add } else { BinOp::Sub };
                    let span = e.span.to(t.span);
                    let target = Box::new(e);
                    e = Expr { kind: ExprKind::Step { target, op, post: true }, span };
                }
                _ => return Ok(e),
            }
            if d > MAX_DEPTH {
                self.too_deep(e.span);
                return Err(());
            }
        }
    }

    fn primary(&mut self) -> PResult<Expr> {
        let in_predicate = self.in_predicate;
        match self.peek().kind {
            TokenKind::Int(_)
            | TokenKind::Str(_)
            | TokenKind::Ident
            | TokenKind::Var
            | TokenKind::At
            | TokenKind::LParen => {}
            // `/{` would read as a predicate's end and a body's start.
            TokenKind::LBrace if !in_predicate => return self.block_expr(),
            _ => return self.missing("an expression"),
        }
        let t = self.bump();
        let kind = match t.kind {
            TokenKind::Int(v) => ExprKind::Int(v),
            TokenKind::Str(mut s) => {
                // Adjacent literals concatenate, as in C.
                let mut span = t.span;
                while matches!(self.peek().kind, TokenKind::Str(_)) {
                    let next = self.bump();
                    if let TokenKind::Str(more) = next.kind {
                        s.extend(more);
                    }
                    span = span.to(next.span);
                }
                return Ok(Expr { kind: ExprKind::Str(s), span });
            }
            TokenKind::Var => ExprKind::Var(self.var_name(&t)),
            TokenKind::At => return self.map(&t),
            // A macro's parameter wins over a macro of the same name (`macro ident(add) { add }`).
            TokenKind::Ident if self.macro_args.contains_key(self.text_of(t.span)) => {
                match self.expand(&t) {
                    Some(e) => return e,
                    None => ExprKind::Ident(self.text_of(t.span).to_string()),
                }
            }
            TokenKind::Ident if self.user_macro_use(&t) => match self.expand_user(&t) {
                Some(e) => return e,
                None => ExprKind::Ident(self.text_of(t.span).to_string()),
            },
            TokenKind::Ident if self.macro_use(&t) => match self.expand(&t) {
                Some(e) => return e,
                None => ExprKind::Ident(self.text_of(t.span).to_string()),
            },
            TokenKind::Ident
                if self.text_of(t.span) == "if" && self.peek().kind == TokenKind::LParen =>
            {
                return self.if_expr(&t)
            }
            // bpftrace's `typeof(x)` as a value: a type, for `sizeof` and macros' type parameters.
            TokenKind::Ident
                if self.text_of(t.span) == "typeof" && self.peek().kind == TokenKind::LParen =>
            {
                let ty = self.typeof_type(&t)?;
                return Ok(Expr { span: ty.span, kind: ExprKind::TypeArg(ty) });
            }
            TokenKind::Ident => match self.peek().kind {
                TokenKind::LParen => return self.call(&t),
                TokenKind::LBracket => return self.map(&t),
                _ => match self.text_of(t.span) {
                    // bpftrace's `bool` constants.
                    "true" => bool_literal(1, t.span),
                    "false" => bool_literal(0, t.span),
                    w => ExprKind::Ident(w.to_string()),
                },
            },
            _ if self.record_ahead() => return self.record(&t),
            _ => {
                // `( expr )`: the span covers the parentheses so carets include them.
                let mut e = self.inner_expr()?;
                if self.eat(TokenKind::Comma).is_some() {
                    // bpftrace's tuple: `(a, b, ...)`.
                    let (mut items, close) =
                        self.list(&t, TokenKind::RParen, "`,` or `)` in a tuple")?;
                    items.insert(0, e);
                    return Ok(Expr { kind: ExprKind::Tuple(items), span: t.span.to(close.span) });
                }
                let close = self.close(TokenKind::RParen, "`)`", &t)?;
                e.span = t.span.to(close.span);
                return Ok(e);
            }
        };
        Ok(Expr { kind, span: t.span })
    }

    /// bpftrace's `if (c) { a } else { b }` as a value, after its `if`: `c ? a : b`, each arm a
    /// block ending with its value (`else if` chains).
    fn if_expr(&mut self, kw: &Token) -> PResult<Expr> {
        let open = self.expect(TokenKind::LParen, "`(` after `if`")?;
        let cond = self.inner_expr()?;
        self.close(TokenKind::RParen, "`)` after the condition", &open)?;
        let then = self.nested(|p| p.valued_block("if"))?;
        if !self.at_word("else") {
            let msg = "an `if` used as a value needs an `else` with a value too";
            self.emit(Diagnostic::error(kw.span.to(then.span), msg));
            return Err(());
        }
        self.bump();
        let els = if self.at_word("if") {
            let t = self.bump();
            self.nested(|p| p.if_expr(&t))?
        } else {
            self.nested(|p| p.valued_block("else"))?
        };
        let span = kw.span.to(els.span);
        let kind =
            ExprKind::Ternary { cond: Box::new(cond), then: Box::new(then), els: Box::new(els) };
        Ok(Expr { kind, span })
    }

    /// `{ ...; value }`, an arm of an `if` used as a value: its last statement is its value.
    fn valued_block(&mut self, arm: &str) -> PResult<Expr> {
        let block = self.block()?;
        let span = block.span;
        match self.block_value(block) {
            Some(e) => Ok(e),
            None => {
                let msg =
                    format!("this `{}` arm of an `if` used as a value ends without a value", arm);
                self.emit(Diagnostic::error(span, msg));
                Err(())
            }
        }
    }

    /// A block's value: its last statement's expression, or of its last `if`-`else` whose arms
    /// both end with one (that `if` is then a value too); `None` without.
    fn block_value(&mut self, mut block: Block) -> Option<Expr> {
        let last = block.stmts.pop()?;
        let value = match last.kind {
            StmtKind::Expr(e) => e,
            StmtKind::If { cond, then, els: Some(els) } => {
                let then = self.block_value(then)?;
                let els = self.block_value(els)?;
                let kind = ExprKind::Ternary {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    els: Box::new(els),
                };
                Expr { kind, span: last.span }
            }
            _ => return None,
        };
        block.stmts.push(Stmt { kind: StmtKind::Expr(value), span: last.span });
        Some(self.split_value(block.stmts, block.span))
    }

    /// bpftrace's record `(a = 1, b = "x")`, after its `(`.
    fn record(&mut self, open: &Token) -> PResult<Expr> {
        let mut fields = Vec::new();
        loop {
            let name = self.expect(TokenKind::Ident, "a field name in a record")?;
            self.expect(TokenKind::Eq, "`=` after the record's field name")?;
            fields.push((self.text_of(name.span).to_string(), self.inner_expr()?));
            if self.eat(TokenKind::Comma).is_none() {
                let close = self.close(TokenKind::RParen, "`,` or `)` in a record", open)?;
                return Ok(Expr { kind: ExprKind::Record(fields), span: open.span.to(close.span) });
            }
        }
    }

    /// `@`, `@name`, `@name[keys]`, or ply's `name[keys]`.
    fn map(&mut self, name: &Token) -> PResult<Expr> {
        let mut span = name.span;
        let mut keys = Vec::new();
        if self.peek().kind == TokenKind::LBracket {
            let open = self.bump();
            let (k, close) = self.list(&open, TokenKind::RBracket, "`,` or `]` after map key")?;
            keys = k;
            span = span.to(close.span);
        }
        let name = self.map_name(name);
        Ok(Expr { kind: ExprKind::Map { name, keys }, span })
    }

    /// `name(args)`.
    fn call(&mut self, name: &Token) -> PResult<Expr> {
        if matches!(self.text_of(name.span), "sizeof" | "offsetof") && self.cast_ahead() {
            return self.type_call(name);
        }
        if self.text_of(name.span) == "container_of" {
            return self.container_of(name);
        }
        let open = self.bump();
        let (args, close) = if self.peek().kind == TokenKind::RParen {
            (Vec::new(), self.bump())
        } else {
            self.list(&open, TokenKind::RParen, "`,` or `)` after function argument")?
        };
        let kind = ExprKind::Call { name: self.text_of(name.span).to_string(), args };
        Ok(Expr { kind, span: name.span.to(close.span) })
    }

    /// Comma-separated expressions up to `close`; the opener is already consumed.
    pub(super) fn list(
        &mut self,
        open: &Token,
        close: TokenKind,
        what: &str,
    ) -> PResult<(Vec<Expr>, Token)> {
        let mut items = Vec::new();
        loop {
            items.push(self.inner_expr()?);
            if self.eat(TokenKind::Comma).is_none() {
                let end = self.close(close, what, open)?;
                return Ok((items, end));
            }
        }
    }
}

/// Operator and precedence (higher binds tighter).
fn binop(k: &TokenKind) -> Option<(BinOp, u8)> {
    use TokenKind::*;
    Some(match k {
        OrOr => (BinOp::Or, 1),
        AndAnd => (BinOp::And, 2),
        Pipe => (BinOp::BitOr, 3),
        Caret => (BinOp::BitXor, 4),
        Amp => (BinOp::BitAnd, 5),
        EqEq => (BinOp::Eq, 6),
        Ne => (BinOp::Ne, 6),
        Lt => (BinOp::Lt, 7),
        Le => (BinOp::Le, 7),
        Gt => (BinOp::Gt, 7),
        Ge => (BinOp::Ge, 7),
        Shl => (BinOp::Shl, 8),
        Shr => (BinOp::Shr, 8),
        Plus => (BinOp::Add, 9),
        Minus => (BinOp::Sub, 9),
        Star => (BinOp::Mul, 10),
        Slash => (BinOp::Div, 10),
        Percent => (BinOp::Mod, 10),
        _ => return None,
    })
}

/// Height of an expression tree. Only called on trees the depth limits already bound.
fn depth(e: &Expr) -> usize {
    let max = |es: &[Expr]| es.iter().map(depth).max().unwrap_or(0);
    1 + match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Str(_)
        | ExprKind::Ident(_)
        | ExprKind::Var(_)
        | ExprKind::TypeArg(_) => 0,
        ExprKind::Map { keys: es, .. } | ExprKind::Call { args: es, .. } | ExprKind::Tuple(es) => {
            max(es)
        }
        ExprKind::Record(fs) => fs.iter().map(|(_, e)| depth(e)).max().unwrap_or(0),
        ExprKind::Unary { expr, .. }
        | ExprKind::Cast { expr, .. }
        | ExprKind::Member { expr, .. }
        | ExprKind::Step { target: expr, .. }
        | ExprKind::Block { value: expr, .. } => depth(expr),
        ExprKind::Binary { lhs, rhs, .. } => depth(lhs).max(depth(rhs)),
        ExprKind::Index { expr, index } => depth(expr).max(depth(index)),
        ExprKind::Ternary { cond, then, els } => depth(cond).max(depth(then)).max(depth(els)),
    }
}

/// What `++`/`--` can change: a variable or a map element (not a positional parameter).
fn steppable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) => v != "#" && !v.bytes().all(|c| c.is_ascii_digit()),
        ExprKind::Map { .. } => true,
        _ => false,
    }
}

/// `true`/`false`: bpftrace's `bool` constants, written as the cast `(bool)1` so they print as
/// booleans and stay integers everywhere else.
fn bool_literal(v: u64, span: Span) -> ExprKind {
    let ty = TypeName { base: "bool".to_string(), pointers: 0, array: None, of: None, span };
    ExprKind::Cast { ty, expr: Box::new(Expr { kind: ExprKind::Int(v), span }) }
}
