//! bpftrace's loops and declarations: `let`, `while`, `for`, `unroll`, `break`, `continue`.

use super::{PResult, Parser};
use crate::ast::{Block, ForIter, Stmt, StmtKind};
use crate::lexer::{Token, TokenKind};

impl Parser<'_> {
    /// The statement the lookahead word starts, if it is one of this module's keywords.
    pub(super) fn flow_stmt(&mut self) -> Option<PResult<(Stmt, bool)>> {
        let t = self.peek().clone();
        if t.kind != TokenKind::Ident {
            return None;
        }
        Some(match self.text_of(t.span) {
            "let" if self.lex.clone().next_token().kind == TokenKind::Var => self.let_stmt(),
            "while" => self.while_stmt(),
            "for" => self.for_stmt(),
            "unroll" if self.lex.clone().next_token().kind == TokenKind::LParen => {
                self.unroll_stmt()
            }
            "break" | "continue" => {
                let t = self.bump();
                let kind = if self.text_of(t.span) == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                };
                Ok((Stmt { kind, span: t.span }, false))
            }
            _ => return None,
        })
    }

    /// `let $x;`, `let $x = value;`, `let $x: type = value;` (also `type[N]`, an array).
    fn let_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        let var = self.bump();
        let name = self.var_name(&var);
        let ty = match self.eat(TokenKind::Colon) {
            Some(_) => Some(self.type_with_array()?),
            None => None,
        };
        let value = match self.eat(TokenKind::Eq) {
            Some(_) => Some(self.expr()?),
            None => None,
        };
        let kind = StmtKind::Let { name, ty, value };
        Ok((Stmt { kind, span: self.span_from(kw.span) }, false))
    }

    /// `while (cond) { ... }` (also without the parentheses).
    fn while_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        let cond = self.inner_expr()?;
        let body = self.loop_body("`{` after the `while` condition")?;
        let span = kw.span.to(body.span);
        Ok((Stmt { kind: StmtKind::While { cond, body }, span }, true))
    }

    /// `for ($v : start..end) { ... }` and `for ($kv : @map) { ... }`, parentheses optional.
    fn for_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        let open = self.eat(TokenKind::LParen);
        let var = self.expect(TokenKind::Var, "a variable after `for`, like `for ($i : 0..10)`")?;
        let name = self.var_name(&var);
        if self.peek().kind == TokenKind::Comma {
            let t = self.peek().clone();
            let d = crate::diag::Diagnostic::error(t.span, "a `for` loop takes one variable")
                .with_help(format!(
                    "write `for (${} : @map)`: `${}.0` is the key, `${}.1` the value",
                    name, name, name
                ));
            self.emit(d);
            return Err(());
        }
        self.expect(TokenKind::Colon, "`:` after the loop variable")?;
        let first = self.inner_expr()?;
        let iter = if self.peek().kind == TokenKind::Dot {
            self.bump();
            self.expect(TokenKind::Dot, "`..` in the range `start..end`")?;
            ForIter::Range(first, self.inner_expr()?)
        } else {
            ForIter::Map(first)
        };
        if let Some(open) = open {
            self.close(TokenKind::RParen, "`)` after the `for` range", &open)?;
        }
        let body = self.loop_body("`{` after `for (...)`")?;
        let span = kw.span.to(body.span);
        Ok((Stmt { kind: StmtKind::For { var: name, iter, body }, span }, true))
    }

    /// `unroll(N) { ... }`
    fn unroll_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        let open = self.bump();
        let count = self.inner_expr()?;
        self.close(TokenKind::RParen, "`)` after the unroll count", &open)?;
        let body = self.loop_body("`{` after `unroll(N)`")?;
        let span = kw.span.to(body.span);
        Ok((Stmt { kind: StmtKind::Unroll { count, body }, span }, true))
    }

    fn loop_body(&mut self, what: &str) -> PResult<Block> {
        if self.peek().kind != TokenKind::LBrace {
            let t = self.peek().clone();
            self.expected_with(what, &t, |d| d.with_help("a loop's body is a `{ }` block"));
            return Err(());
        }
        self.block()
    }

    /// A `$name` token's variable, as renamed inside a macro's expansion.
    pub(super) fn var_name(&self, t: &Token) -> String {
        let name = self.text_of(t.span).get(1..).unwrap_or("");
        match &self.hygiene {
            Some(h) => match h.vars.get(name) {
                Some(outer) => outer.clone(),
                None if name.starts_with(|c: char| c.is_ascii_digit() || c == '#') => name.into(),
                None => format!("{}.{}", name, h.tag),
            },
            None => name.to_string(),
        }
    }

    /// A `@name` token's map, as renamed inside a macro's expansion.
    pub(super) fn map_name(&self, t: &Token) -> String {
        let name = self.text_of(t.span);
        match self.hygiene.as_ref().and_then(|h| h.maps.get(name)) {
            Some(outer) => outer.clone(),
            None => name.to_string(),
        }
    }
}
