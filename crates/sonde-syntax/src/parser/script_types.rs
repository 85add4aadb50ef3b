//! bpftrace's script-level type definitions, before or between the probes:
//! `struct NAME { type field; char name[16]; int m[2][2]; struct other *p; };` and
//! `enum [NAME] { A = 1, B, C = -2 };` (the `;` after the `}` is optional).

use super::{PResult, Parser};
use crate::ast::{FieldDecl, TypeDecl};
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// `struct NAME {`, `enum NAME {` or `enum {` at the cursor: which keyword.
    pub(super) fn type_decl_ahead(&mut self) -> Option<&'static str> {
        if let Some(t) = self.tok.take() {
            self.lex.set_pos(t.span.lo as usize);
        }
        let mut lx = self.lex.clone();
        let kw = lx.next_token();
        if kw.kind != TokenKind::Ident {
            return None;
        }
        let word = match self.text_of(kw.span) {
            "struct" => "struct",
            "enum" => "enum",
            _ => return None,
        };
        let next = lx.next_token();
        let brace = match next.kind {
            TokenKind::LBrace => word == "enum",
            TokenKind::Ident => lx.next_token().kind == TokenKind::LBrace,
            _ => false,
        };
        brace.then_some(word)
    }

    /// The definition at the cursor; on a mistake, reports it and skips the definition.
    pub(super) fn type_decl(&mut self, kind: &str) -> Option<TypeDecl> {
        let parsed = if kind == "struct" { self.struct_decl() } else { self.enum_decl() };
        if parsed.is_err() {
            while !matches!(self.peek().kind, TokenKind::RBrace | TokenKind::Eof) {
                self.bump();
            }
            self.eat(TokenKind::RBrace);
        }
        self.eat(TokenKind::Semi);
        parsed.ok()
    }

    fn struct_decl(&mut self) -> PResult<TypeDecl> {
        let kw = self.bump();
        let name = self.bump();
        self.expect(TokenKind::LBrace, "`{` after the struct's name")?;
        let mut fields = Vec::new();
        while self.eat(TokenKind::RBrace).is_none() {
            let ty = self.type_name()?;
            let field = self.expect(TokenKind::Ident, "a field name after its type")?;
            let mut array = Vec::new();
            let mut end = field.span;
            while self.eat(TokenKind::LBracket).is_some() {
                let n = self.bump();
                let TokenKind::Int(n) = n.kind else {
                    self.expected("an array length (a number)", &n);
                    return Err(());
                };
                array.push(n);
                end = self.expect(TokenKind::RBracket, "`]` after the array length")?.span;
            }
            // As in C, the last field's `;` may be left out.
            if self.peek().kind != TokenKind::RBrace {
                self.expect(TokenKind::Semi, "`;` after the field")?;
            }
            fields.push(FieldDecl {
                span: ty.span.to(end),
                ty,
                name: self.text_of(field.span).to_string(),
                array,
            });
        }
        let span = kw.span.to(name.span);
        Ok(TypeDecl::Struct { name: self.text_of(name.span).to_string(), fields, span })
    }

    fn enum_decl(&mut self) -> PResult<TypeDecl> {
        let kw = self.bump();
        let mut span = kw.span;
        let name = match self.eat(TokenKind::Ident) {
            Some(t) => {
                span = span.to(t.span);
                Some(self.text_of(t.span).to_string())
            }
            None => None,
        };
        self.expect(TokenKind::LBrace, "`{` after `enum`")?;
        let mut values = Vec::new();
        let mut next: i64 = 0;
        while self.eat(TokenKind::RBrace).is_none() {
            let item = self.expect(TokenKind::Ident, "an enumerator name")?;
            if self.eat(TokenKind::Eq).is_some() {
                let neg = self.eat(TokenKind::Minus).is_some();
                let v = self.bump();
                let TokenKind::Int(n) = v.kind else {
                    self.expected("the enumerator's value (a number)", &v);
                    return Err(());
                };
                next = if neg { (n as i64).wrapping_neg() } else { n as i64 };
            }
            values.push((self.text_of(item.span).to_string(), next, item.span));
            next = next.wrapping_add(1);
            if self.eat(TokenKind::Comma).is_none() && self.peek().kind != TokenKind::RBrace {
                let t = self.peek().clone();
                self.expected("`,` or `}` after the enumerator", &t);
                return Err(());
            }
        }
        Ok(TypeDecl::Enum { name, values, span })
    }
}
