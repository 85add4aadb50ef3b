//! bpftrace's script-level type definitions, before or between the probes:
//! `struct NAME { type field; char name[16]; int m[2][2]; struct other *p; };` and
//! `enum [NAME] { A = 1, B, C = -2 };` (the `;` after the `}` is optional). A field's type may be
//! an anonymous struct, `struct { int x; } pos;`: it becomes a struct of its own, named
//! `OUTER.FIELD` (a name no program can write), defined before the struct that holds it.

use super::{PResult, Parser};
use crate::ast::{FieldDecl, Span, StructAttributes, TypeDecl, TypeName};
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

    /// The definition at the cursor (with the anonymous structs of its fields before it); on a
    /// mistake, reports it and skips the definition.
    pub(super) fn type_decl(&mut self, kind: &str) -> Vec<TypeDecl> {
        let mut decls = Vec::new();
        let parsed = if kind == "struct" {
            self.struct_decl(&mut decls)
        } else {
            self.enum_decl().map(|d| decls.push(d))
        };
        if parsed.is_err() {
            while !matches!(self.peek().kind, TokenKind::RBrace | TokenKind::Eof) {
                self.bump();
            }
            self.eat(TokenKind::RBrace);
        }
        self.eat(TokenKind::Semi);
        match parsed {
            Ok(()) => decls,
            Err(()) => Vec::new(),
        }
    }

    fn struct_decl(&mut self, decls: &mut Vec<TypeDecl>) -> PResult<()> {
        let kw = self.bump();
        let name = self.bump();
        self.expect(TokenKind::LBrace, "`{` after the struct's name")?;
        let span = kw.span.to(name.span);
        let name = self.text_of(name.span).to_string();
        let (fields, _) = self.struct_fields(&name, decls)?;
        let attributes = self.struct_attributes()?;
        decls.push(TypeDecl::Struct { name, fields, attributes, span });
        Ok(())
    }

    /// A struct's fields after its `{`, through its `}` (whose span comes with them); anonymous
    /// structs among them go to `decls`, named after `outer` and the field.
    fn struct_fields(
        &mut self,
        outer: &str,
        decls: &mut Vec<TypeDecl>,
    ) -> PResult<(Vec<FieldDecl>, Span)> {
        let mut fields = Vec::new();
        loop {
            if let Some(close) = self.eat(TokenKind::RBrace) {
                return Ok((fields, close.span));
            }
            let anonymous = self.anonymous_struct_ahead();
            let (ty, nested) = match anonymous {
                Some(kw) => {
                    self.bump();
                    self.bump();
                    let (fields, close) = self.struct_fields(outer, decls)?;
                    let ty = self.anonymous_type(kw.to(close))?;
                    (ty, Some(fields))
                }
                None => (self.type_name()?, None),
            };
            let mut field = self.expect(TokenKind::Ident, "a field name after its type")?;
            let ty = match nested {
                Some(fields) => {
                    let named = format!("{}.{}", outer, self.text_of(field.span));
                    let span = ty.span;
                    let attributes = StructAttributes::default();
                    decls.push(TypeDecl::Struct { name: named.clone(), fields, attributes, span });
                    TypeName { base: format!("struct {}", named), ..ty }
                }
                None => ty,
            };
            // `int a:3, b:5;`: several fields of one type.
            loop {
                let (array, bits, end) = self.field_suffix(field.span)?;
                let name = self.text_of(field.span).to_string();
                fields.push(FieldDecl { span: ty.span.to(end), ty: ty.clone(), name, array, bits });
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
                field = self.expect(TokenKind::Ident, "a field name after `,`")?;
            }
            // As in C, the last field's `;` may be left out.
            if self.peek().kind != TokenKind::RBrace {
                self.expect(TokenKind::Semi, "`;` after the field")?;
            }
        }
    }

    /// A field's array lengths (`[4][2]`) and bitfield width (`:3`) after its name, and where
    /// they end.
    fn field_suffix(&mut self, name: Span) -> PResult<(Vec<u64>, Option<u32>, Span)> {
        let mut array = Vec::new();
        let mut end = name;
        while self.eat(TokenKind::LBracket).is_some() {
            let n = self.bump();
            let TokenKind::Int(n) = n.kind else {
                self.expected("an array length (a number)", &n);
                return Err(());
            };
            array.push(n);
            end = self.expect(TokenKind::RBracket, "`]` after the array length")?.span;
        }
        if self.eat(TokenKind::Colon).is_none() {
            return Ok((array, None, end));
        }
        let n = self.bump();
        match n.kind {
            TokenKind::Int(bits) if bits <= 64 && array.is_empty() => {
                Ok((array, Some(bits as u32), n.span))
            }
            _ => {
                self.expected("a bitfield width from 0 to 64", &n);
                Err(())
            }
        }
    }

    /// GCC's `__attribute__((packed))`, `__attribute__((aligned(N)))` (one or several, each may
    /// list both) after a struct's `}`.
    fn struct_attributes(&mut self) -> PResult<StructAttributes> {
        let mut attrs = StructAttributes::default();
        loop {
            let (kind, span) = (self.peek().kind.clone(), self.peek().span);
            if kind != TokenKind::Ident || self.text_of(span) != "__attribute__" {
                break;
            }
            self.bump();
            self.expect(TokenKind::LParen, "`((` after `__attribute__`")?;
            self.expect(TokenKind::LParen, "`((` after `__attribute__`")?;
            loop {
                let word = self.expect(TokenKind::Ident, "`packed` or `aligned(N)`")?;
                match self.text_of(word.span) {
                    "packed" | "__packed__" => attrs.packed = true,
                    "aligned" | "__aligned__" => {
                        self.expect(TokenKind::LParen, "`(` after `aligned`")?;
                        let n = self.bump();
                        match n.kind {
                            TokenKind::Int(n) if n.is_power_of_two() && n <= 4096 => {
                                attrs.aligned = Some(n)
                            }
                            _ => {
                                self.expected("an alignment (a power of two, 4096 at most)", &n);
                                return Err(());
                            }
                        }
                        self.expect(TokenKind::RParen, "`)` after the alignment")?;
                    }
                    _ => {
                        self.expected("`packed` or `aligned(N)`", &word);
                        return Err(());
                    }
                }
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
            self.expect(TokenKind::RParen, "`))` after the attribute")?;
            self.expect(TokenKind::RParen, "`))` after the attribute")?;
        }
        Ok(attrs)
    }

    /// `struct {` at the cursor: the span of `struct`.
    fn anonymous_struct_ahead(&mut self) -> Option<Span> {
        if let Some(t) = self.tok.take() {
            self.lex.set_pos(t.span.lo as usize);
        }
        let mut lx = self.lex.clone();
        let kw = lx.next_token();
        let is_struct = kw.kind == TokenKind::Ident && self.text_of(kw.span) == "struct";
        (is_struct && lx.next_token().kind == TokenKind::LBrace).then_some(kw.span)
    }

    /// The type of a field whose type is an anonymous struct, at `span`, with its `*`s; the
    /// caller names it.
    fn anonymous_type(&mut self, span: Span) -> PResult<TypeName> {
        let mut pointers = 0u8;
        let mut span = span;
        while self.peek().kind == TokenKind::Star {
            span = span.to(self.bump().span);
            pointers = pointers.saturating_add(1);
        }
        Ok(TypeName { base: String::new(), pointers, array: None, of: None, span })
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
