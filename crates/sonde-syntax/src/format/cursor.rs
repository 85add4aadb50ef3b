//! The formatter parser's position in the text: tokens from sonde's lexer, layout recorded on
//! the way (see [`super::layout`]).

use super::layout::{self, Metas};
use crate::ast::Span;
use crate::diag::Diagnostic;
use crate::lexer::{Lexer, Token, TokenKind};

pub type PResult<T> = Result<T, Diagnostic>;

pub struct Cursor<'a> {
    pub text: &'a str,
    pub pos: usize,
    pub metas: Metas,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, pos: 0, metas: Metas::default() }
    }

    /// Skips (and records) whitespace and comments.
    pub fn layout(&mut self) {
        self.pos = layout::scan(self.text, self.pos, &mut self.metas);
    }

    /// The next character after layout.
    pub fn ch(&mut self) -> Option<u8> {
        self.layout();
        self.text.as_bytes().get(self.pos).copied()
    }

    pub fn ch_at(&self, pos: usize) -> Option<u8> {
        self.text.as_bytes().get(pos).copied()
    }

    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub fn peek(&mut self) -> PResult<Token> {
        self.layout();
        let mut lx = Lexer::new(self.text);
        lx.set_pos(self.pos);
        let t = lx.next_token();
        match t.errors.first() {
            Some(e) => Err(e.clone()),
            None => Ok(t),
        }
    }

    pub fn bump(&mut self) -> PResult<Token> {
        let t = self.peek()?;
        self.pos = t.span.hi as usize;
        Ok(t)
    }

    pub fn src(&self, t: &Token) -> &'a str {
        &self.text[t.span.lo as usize..t.span.hi as usize]
    }

    pub fn is(&mut self, kind: TokenKind) -> PResult<bool> {
        Ok(self.peek()?.kind == kind)
    }

    pub fn eat(&mut self, kind: TokenKind) -> PResult<bool> {
        if self.is(kind)? {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// The next token if it is the identifier `word`.
    pub fn is_word(&mut self, word: &str) -> PResult<bool> {
        let t = self.peek()?;
        Ok(t.kind == TokenKind::Ident && self.src(&t) == word)
    }

    pub fn eat_word(&mut self, word: &str) -> PResult<bool> {
        if self.is_word(word)? {
            self.bump()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        let t = self.peek()?;
        if t.kind != kind {
            return Err(self.unexpected(&t, what));
        }
        self.bump()
    }

    pub fn ident(&mut self, what: &str) -> PResult<String> {
        let t = self.expect(TokenKind::Ident, what)?;
        Ok(self.src(&t).to_string())
    }

    pub fn unexpected(&self, t: &Token, what: &str) -> Diagnostic {
        let found = match t.kind {
            TokenKind::Eof => "the end of the program".to_string(),
            _ => format!("`{}`", self.src(t)),
        };
        Diagnostic::error(t.span, format!("expected {}, found {}", what, found))
    }

    pub fn error_here(&self, len: usize, msg: impl Into<String>) -> Diagnostic {
        let hi = (self.pos + len).min(self.text.len());
        Diagnostic::error(Span::new(self.pos, hi), msg)
    }
}
