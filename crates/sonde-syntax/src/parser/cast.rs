//! Casts: `(u64)x`, `(unsigned long long)x`, `(struct task_struct *)arg0`, `(foo **)p`,
//! `(int8[8])x`.

use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, Span, TypeName};
use crate::lexer::{Lexer, Token, TokenKind};

/// Words that always name a type, so `(word` starts a cast.
const TYPE_WORDS: &[&str] = &[
    "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "i8", "i16", "i32", "i64", "__u8",
    "__u16", "__u32", "__u64", "__s8", "__s16", "__s32", "__s64", "char", "short", "int", "long",
    "unsigned", "signed", "void", "bool", "_Bool", "uint8", "uint16", "uint32", "uint64", "int8",
    "int16", "int32", "int64",
];

/// Words that combine into one C type: `unsigned long long int`.
const COMBINING: &[&str] = &["unsigned", "signed", "char", "short", "int", "long"];

/// Dropped wherever they appear: they do not change how a value is read.
const QUALIFIERS: &[&str] = &["const", "volatile"];

const TAGS: &[&str] = &["struct", "union", "enum"];

impl<'a> Parser<'a> {
    /// With `(` as the lookahead: does a type name follow? Reads ahead on a copy of the lexer.
    pub(super) fn cast_ahead(&mut self) -> bool {
        let mut lx = self.lex.clone();
        let text = self.text;
        let word = |t: &Token| {
            if t.kind == TokenKind::Ident {
                text.get(t.span.lo as usize..t.span.hi as usize)
            } else {
                None
            }
        };
        let mut t = next(&mut lx);
        let mut qualified = false;
        while word(&t).is_some_and(|w| QUALIFIERS.contains(&w)) {
            qualified = true;
            t = next(&mut lx);
        }
        let Some(w) = word(&t) else { return qualified };
        let typed = w == "typeof" || self.type_param(w).is_some();
        if qualified || typed || TAGS.contains(&w) || TYPE_WORDS.contains(&w) || w.ends_with("_t") {
            return true;
        }
        // Any other name is a type only as `(name *)`, `(name **)`...: `(x * y)` multiplies.
        let mut stars = 0;
        loop {
            t = next(&mut lx);
            if t.kind != TokenKind::Star {
                break;
            }
            stars += 1;
        }
        stars > 0 && t.kind == TokenKind::RParen
    }

    /// After `(`: a name then a single `=` starts a record (`(a = 1, b = 2)`).
    pub(super) fn record_ahead(&mut self) -> bool {
        if self.peek().kind != TokenKind::Ident {
            return false;
        }
        let mut lx = self.lex.clone();
        next(&mut lx).kind == TokenKind::Eq
    }

    /// `( type ) operand`, with the `(` as lookahead.
    pub(super) fn cast(&mut self) -> PResult<Expr> {
        let open = self.bump();
        // bpftrace's casts to arrays: `(int8[8])x`, `(int8[])x`.
        let ty = self.type_with_array()?;
        self.close(TokenKind::RParen, "`)` to end the cast", &open)?;
        let e = self.unary()?;
        Ok(Expr { span: open.span.to(e.span), kind: ExprKind::Cast { ty, expr: Box::new(e) } })
    }

    /// `sizeof(TYPE)` and `offsetof(TYPE, field[.field...])`: the type is the first argument.
    pub(super) fn type_call(&mut self, name: &Token) -> PResult<Expr> {
        let open = self.bump();
        let ty = self.type_with_array()?;
        let mut args = vec![Expr { span: ty.span, kind: ExprKind::TypeArg(ty) }];
        if self.eat(TokenKind::Comma).is_some() {
            args.push(self.inner_expr()?);
        }
        let close = self.close(TokenKind::RParen, "`)` after the type", &open)?;
        let kind = ExprKind::Call { name: self.text_of(name.span).to_string(), args };
        Ok(Expr { kind, span: name.span.to(close.span) })
    }

    /// `container_of(ptr, TYPE, member)`: the type is the second argument, written as a type or
    /// as bpftrace's `typeof(TYPE)`.
    pub(super) fn container_of(&mut self, name: &Token) -> PResult<Expr> {
        let open = self.bump();
        let ptr = self.inner_expr()?;
        self.expect(TokenKind::Comma, "`,` after the pointer")?;
        let typeof_open = match self.peek_word() {
            Some("typeof") => {
                self.bump();
                Some(self.expect(TokenKind::LParen, "`(` after `typeof`")?)
            }
            _ => None,
        };
        let mut ty = self.type_name()?;
        if let Some(paren) = typeof_open {
            let close = self.close(TokenKind::RParen, "`)` after the type", &paren)?;
            ty.span = paren.span.to(close.span);
        }
        let ty = Expr { span: ty.span, kind: ExprKind::TypeArg(ty) };
        self.expect(TokenKind::Comma, "`,` after the type")?;
        let member = self.inner_expr()?;
        let close = self.close(TokenKind::RParen, "`)` after the member", &open)?;
        let kind = ExprKind::Call { name: "container_of".to_string(), args: vec![ptr, ty, member] };
        Ok(Expr { kind, span: name.span.to(close.span) })
    }

    /// A type name with bpftrace's array suffix: `int8[8]`, `struct Foo *[2]`, `int8[]` (length 0).
    pub(super) fn type_with_array(&mut self) -> PResult<TypeName> {
        let mut ty = self.type_name()?;
        if self.eat(TokenKind::LBracket).is_some() {
            let len = match self.peek().kind {
                TokenKind::Int(n) if n > 0 => {
                    self.bump();
                    n
                }
                _ => 0,
            };
            let close = self.expect(TokenKind::RBracket, "`]` after the array's length")?;
            ty.array = Some(len);
            ty.span = ty.span.to(close.span);
        }
        Ok(ty)
    }

    /// The type a macro's parameter `word` stands for, when its argument is a type
    /// (`m(typeof(uint8))`).
    fn type_param(&self, word: &str) -> Option<TypeName> {
        match &self.macro_args.get(word)?.kind {
            ExprKind::TypeArg(t) => Some(t.clone()),
            _ => None,
        }
    }

    /// bpftrace's `typeof(TYPE)` (TYPE itself) or `typeof(EXPR)`, its `typeof` consumed.
    pub(super) fn typeof_type(&mut self, kw: &Token) -> PResult<TypeName> {
        if self.peek().kind != TokenKind::LParen {
            let t = self.peek().clone();
            self.expected("`(` after `typeof`", &t);
            return Err(());
        }
        let mut ty = if self.cast_ahead() {
            let open = self.bump();
            let ty = self.type_with_array()?;
            self.close(TokenKind::RParen, "`)` after the type", &open)?;
            ty
        } else {
            let open = self.bump();
            let e = self.inner_expr()?;
            self.close(TokenKind::RParen, "`)` after the expression", &open)?;
            match e.kind {
                ExprKind::TypeArg(t) => t,
                _ => TypeName {
                    base: "typeof".into(),
                    pointers: 0,
                    array: None,
                    of: Some(Box::new(e)),
                    span: kw.span,
                },
            }
        };
        ty.span = self.span_from(kw.span);
        Ok(ty)
    }

    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        if let Some(w) = self.peek_word() {
            let given = match w {
                "typeof" => {
                    let kw = self.bump();
                    Some(self.typeof_type(&kw)?)
                }
                w => match self.type_param(w) {
                    Some(mut t) => {
                        t.span = self.bump().span;
                        Some(t)
                    }
                    None => None,
                },
            };
            if let Some(t) = given {
                return self.more_pointers(t);
            }
        }
        let mut words: Vec<&str> = Vec::new();
        let mut span: Option<Span> = None;
        while let Some(w) = self.peek_word() {
            if QUALIFIERS.contains(&w) {
                self.bump();
                continue;
            }
            let joins = match words.as_slice() {
                [] => true,
                [tag] if TAGS.contains(tag) => true,
                [.., last] => COMBINING.contains(last) && COMBINING.contains(&w),
            };
            if !joins {
                break;
            }
            let t = self.bump();
            span = Some(span.map_or(t.span, |s| s.to(t.span)));
            words.push(w);
        }
        let Some(span) = span else {
            let t = self.peek().clone();
            self.expected("a type name", &t);
            return Err(());
        };
        if let [tag] = words.as_slice() {
            if TAGS.contains(tag) {
                let t = self.peek().clone();
                self.expected(&format!("a name after `{}`", tag), &t);
                return Err(());
            }
        }
        let t = TypeName { base: words.join(" "), pointers: 0, array: None, of: None, span };
        self.more_pointers(t)
    }

    /// `t` with the `*`s that follow it.
    fn more_pointers(&mut self, t: TypeName) -> PResult<TypeName> {
        let TypeName { mut pointers, mut span, .. } = t;
        loop {
            if self.peek().kind == TokenKind::Star {
                let t = self.bump();
                span = span.to(t.span);
                pointers = match pointers.checked_add(1) {
                    Some(n) => n,
                    None => {
                        self.emit(crate::diag::Diagnostic::error(t.span, "too many `*` in a type"));
                        return Err(());
                    }
                };
            } else if self.peek_word().is_some_and(|w| QUALIFIERS.contains(&w)) {
                self.bump();
            } else {
                break;
            }
        }
        Ok(TypeName { pointers, span, ..t })
    }

    /// The lookahead's text if it is an identifier.
    fn peek_word(&mut self) -> Option<&'a str> {
        let t = self.peek();
        let (ident, span) = (t.kind == TokenKind::Ident, t.span);
        let text = self.text;
        ident.then(|| text.get(span.lo as usize..span.hi as usize).unwrap_or(""))
    }
}

fn next(lx: &mut Lexer) -> Token {
    loop {
        let t = lx.next_token();
        if t.kind != TokenKind::Error {
            return t;
        }
    }
}
