//! bpftrace's `config = { name = value; ... }` block, before the probes.

use super::Parser;
use crate::ast::Setting;
use crate::lexer::TokenKind;

impl Parser<'_> {
    /// Is the text at the cursor `config =`? Reads ahead on a copy of the lexer.
    pub(super) fn config_ahead(&mut self) -> bool {
        if let Some(t) = self.tok.take() {
            self.lex.set_pos(t.span.lo as usize);
        }
        let mut lx = self.lex.clone();
        let t = lx.next_token();
        t.kind == TokenKind::Ident
            && self.text_of(t.span) == "config"
            && lx.next_token().kind == TokenKind::Eq
    }

    /// `config = { name = value; ... }`: each value an identifier, a number or a string.
    pub(super) fn config_block(&mut self, out: &mut Vec<Setting>) {
        self.bump();
        self.bump();
        let Ok(open) = self.expect(TokenKind::LBrace, "`{` after `config =`") else {
            self.recover_probe();
            return;
        };
        loop {
            if self.eat(TokenKind::RBrace).is_some() {
                return;
            }
            let name = match self.expect(TokenKind::Ident, "a setting name, like `missing_probes`")
            {
                Ok(t) => t,
                Err(()) => break,
            };
            if self.expect(TokenKind::Eq, "`=` after the setting name").is_err() {
                break;
            }
            let v = self.bump();
            let value = match &v.kind {
                TokenKind::Ident | TokenKind::Int(_) => self.text_of(v.span).to_string(),
                TokenKind::Str(s) => String::from_utf8_lossy(s).into_owned(),
                _ => {
                    self.expected("a setting value (a name, number or string)", &v);
                    break;
                }
            };
            out.push(Setting {
                name: self.text_of(name.span).to_string(),
                value,
                span: name.span.to(v.span),
                value_span: v.span,
            });
            if self.eat(TokenKind::Semi).is_none() && self.peek().kind != TokenKind::RBrace {
                let t = self.peek().clone();
                self.expected("`;` or `}` after the setting", &t);
                break;
            }
        }
        // Skip the rest of a broken block.
        let _ = open;
        while !matches!(self.peek().kind, TokenKind::RBrace | TokenKind::Eof) {
            self.bump();
        }
        self.eat(TokenKind::RBrace);
    }
}
