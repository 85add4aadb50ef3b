//! bpftrace's functions: `fn NAME($p: TYPE, ...) [: TYPE] { body }` at the top level.

use super::{PResult, Parser};
use crate::ast::{FnDef, FnParam};
use crate::lexer::TokenKind;

impl<'a> Parser<'a> {
    /// `fn NAME(params) [: TYPE] { body }`, starting at `fn`; None after a reported mistake.
    pub(super) fn fn_def(&mut self) -> Option<FnDef> {
        let kw = self.bump();
        let name = self.bump();
        let def = self.fn_rest(kw.span, name.span);
        if def.is_err() {
            self.recover_probe();
        }
        def.ok()
    }

    fn fn_rest(&mut self, kw: crate::ast::Span, name: crate::ast::Span) -> PResult<FnDef> {
        let open = self.expect(TokenKind::LParen, "`(` after the function's name")?;
        let mut params = Vec::new();
        while self.peek().kind != TokenKind::RParen {
            params.push(self.fn_param()?);
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        let close = self.close(TokenKind::RParen, "`)` after the function's parameters", &open)?;
        let ret = match self.eat(TokenKind::Colon) {
            Some(_) => Some(self.type_name()?).filter(|t| !(t.base == "void" && t.pointers == 0)),
            None => None,
        };
        if self.peek().kind != TokenKind::LBrace {
            let t = self.peek().clone();
            self.expected("`{` to start the function's body", &t);
            return Err(());
        }
        let outer = std::mem::replace(&mut self.in_fn, true);
        let body = self.block();
        self.in_fn = outer;
        let name = self.text_of(name).to_string();
        Ok(FnDef { name, params, ret, body: body?, span: kw.to(close.span) })
    }

    /// `$name: TYPE`
    fn fn_param(&mut self) -> PResult<FnParam> {
        let t = self.peek().clone();
        if t.kind != TokenKind::Var {
            self.expected("a parameter, like `$x: int64`", &t);
            return Err(());
        }
        self.bump();
        let name = self.text_of(t.span)[1..].to_string();
        self.expect(TokenKind::Colon, "`:` and the parameter's type")?;
        let ty = self.type_name()?;
        Ok(FnParam { name, span: t.span.to(ty.span), ty })
    }
}
