//! Text to tokens. The lexer never fails: malformed input becomes a token carrying diagnostics
//! (or an `Error` token the parser reports and skips), so the parser decides how to go on.
//!
//! Probe specs (`tracepoint:syscalls:sys_enter_*`, `uprobe:/bin/bash:readline`) are not made of
//! ordinary tokens, so the parser asks for them explicitly with [`Lexer::next_spec`].

use crate::ast::Span;
use crate::diag::Diagnostic;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident,
    /// Integer or character literal, already evaluated.
    Int(u64),
    /// String literal with escapes decoded.
    Str(Vec<u8>),
    /// `$name`; the name is the token text without the `$`.
    Var,
    /// `@` or `@name`; the map name is the whole token text.
    At,
    /// Raw probe spec text, only from [`Lexer::next_spec`].
    Spec,
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Comma,
    Semi,
    Colon,
    Question,
    Dot,
    Arrow,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Bang,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    Ne,
    Shl,
    Shr,
    AndAnd,
    OrOr,
    Eq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    PercentEq,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
    PlusPlus,
    MinusMinus,
    /// Something that is not a token at all (unknown character, unterminated comment). The
    /// parser reports its diagnostics and skips it.
    Error,
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
    /// Problems found while lexing this token; the token is still usable (best-effort value).
    pub errors: Vec<Diagnostic>,
}

impl Token {
    fn new(kind: TokenKind, lo: usize, hi: usize) -> Token {
        Token { kind, span: Span::new(lo, hi), errors: Vec::new() }
    }
}

/// A cursor over the program text. Cheap to clone, which the parser uses for lookahead.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// Starts at the beginning of `text`, skipping a `#!` first line.
    pub fn new(text: &'a str) -> Lexer<'a> {
        let pos = if text.starts_with("#!") { text.find('\n').unwrap_or(text.len()) } else { 0 };
        Lexer { text, pos }
    }

    /// Byte offset of the next unread character.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves the cursor (the parser rewinds to re-read text as a probe spec).
    pub fn set_pos(&mut self, pos: usize) {
        let mut pos = pos.min(self.text.len());
        while !self.text.is_char_boundary(pos) {
            pos -= 1;
        }
        self.pos = pos;
    }

    /// Lexes every ordinary token up to and including `Eof` (for tests and tools).
    pub fn tokenize(text: &str) -> Vec<Token> {
        let mut lx = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lx.next_token();
            let eof = t.kind == TokenKind::Eof;
            out.push(t);
            if eof {
                return out;
            }
        }
    }

    /// Reads a probe spec: a maximal run of characters that are not whitespace, `{` or `,`,
    /// starting with an identifier character. Anything else is returned as an ordinary token.
    pub fn next_spec(&mut self) -> Token {
        if let Some(t) = self.skip_trivia() {
            return t;
        }
        let lo = self.pos;
        match self.peek() {
            Some(c) if is_ident_start(c) => {
                let len = self
                    .rest()
                    .find(|c: char| c.is_whitespace() || c == '{' || c == ',')
                    .unwrap_or(self.rest().len());
                self.pos += len;
                Token::new(TokenKind::Spec, lo, self.pos)
            }
            _ => self.next_token(),
        }
    }

    pub fn next_token(&mut self) -> Token {
        if let Some(t) = self.skip_trivia() {
            return t;
        }
        let lo = self.pos;
        let Some(c) = self.bump() else {
            return Token::new(TokenKind::Eof, lo, lo);
        };
        use TokenKind::*;
        let kind = match c {
            c if is_ident_start(c) => {
                self.eat_while(is_ident_char);
                Ident
            }
            '0'..='9' => return self.number(lo),
            '"' => return self.string(lo),
            '\'' => return self.char_lit(lo),
            '$' => return self.var(lo),
            '@' => {
                if self.peek().is_some_and(is_ident_start) {
                    self.eat_while(is_ident_char);
                }
                At
            }
            '(' => LParen,
            ')' => RParen,
            '{' => LBrace,
            '}' => RBrace,
            '[' => LBracket,
            ']' => RBracket,
            ',' => Comma,
            ';' => Semi,
            ':' => Colon,
            '?' => Question,
            '.' => Dot,
            '~' => Tilde,
            '+' => self.pick(&[("+", PlusPlus), ("=", PlusEq)], Plus),
            '-' => self.pick(&[("-", MinusMinus), ("=", MinusEq), (">", Arrow)], Minus),
            '*' => self.pick(&[("=", StarEq)], Star),
            '/' => self.pick(&[("=", SlashEq)], Slash),
            '%' => self.pick(&[("=", PercentEq)], Percent),
            '&' => self.pick(&[("&", AndAnd), ("=", AmpEq)], Amp),
            '|' => self.pick(&[("|", OrOr), ("=", PipeEq)], Pipe),
            '^' => self.pick(&[("=", CaretEq)], Caret),
            '!' => self.pick(&[("=", Ne)], Bang),
            '=' => self.pick(&[("=", EqEq)], Eq),
            '<' => self.pick(&[("<=", ShlEq), ("<", Shl), ("=", Le)], Lt),
            '>' => self.pick(&[(">=", ShrEq), (">", Shr), ("=", Ge)], Gt),
            c => {
                let mut t = Token::new(Error, lo, self.pos);
                let shown = if c.is_control() { format!("{:?}", c) } else { format!("`{}`", c) };
                t.errors.push(Diagnostic::error(t.span, format!("unknown character {}", shown)));
                return t;
            }
        };
        Token::new(kind, lo, self.pos)
    }

    // ------------------------------------------------------------------ helpers

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn eat_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }

    /// The longest of the given continuations, or `default`.
    fn pick(&mut self, options: &[(&str, TokenKind)], default: TokenKind) -> TokenKind {
        for (s, k) in options {
            if self.rest().starts_with(s) {
                self.pos += s.len();
                return k.clone();
            }
        }
        default
    }

    /// Skips whitespace and comments. An unterminated block comment becomes an `Error` token.
    fn skip_trivia(&mut self) -> Option<Token> {
        loop {
            self.eat_while(char::is_whitespace);
            let rest = self.rest();
            if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if let Some(body) = rest.strip_prefix("/*") {
                match body.find("*/") {
                    Some(i) => self.pos += i + 4,
                    None => {
                        let lo = self.pos;
                        self.pos = self.text.len();
                        let mut t = Token::new(TokenKind::Error, lo, lo + 2);
                        t.errors.push(Diagnostic::error(
                            t.span,
                            "unterminated block comment: `/*` without `*/`",
                        ));
                        return Some(t);
                    }
                }
            } else {
                return None;
            }
        }
    }

    fn err(&self, t: &mut Token, lo: usize, hi: usize, msg: impl Into<String>) {
        t.errors.push(Diagnostic::error(Span::new(lo, hi), msg));
    }

    // ------------------------------------------------------------------ literals

    /// Decimal, `0x` hex, `0b` binary or leading-`0` octal, with optional `u`/`l` suffixes.
    fn number(&mut self, lo: usize) -> Token {
        self.eat_while(is_ident_char);
        // `1.5`: say floats are unsupported rather than failing on a field access of `5`.
        // After a `.` it is a tuple element (`$t.3.0` is elements 3 then 0), never a float.
        let float = self.peek() == Some('.')
            && self.peek2().is_some_and(|c| c.is_ascii_digit())
            && !self.text[..lo].ends_with('.');
        if float {
            self.bump();
            self.eat_while(is_ident_char);
        }
        // bpftrace's digit separators: `1_000_000`.
        let text = self.text[lo..self.pos].replace('_', "");
        let text = text.as_str();
        let mut t = Token::new(TokenKind::Int(0), lo, self.pos);
        if float {
            self.err(&mut t, lo, self.pos, "floating-point numbers are not supported");
            return t;
        }
        if let Some(v) = exponent(text) {
            match v {
                Some(v) => t.kind = TokenKind::Int(v),
                None => {
                    self.err(&mut t, lo, self.pos, "number too large: integers are at most 64 bits")
                }
            }
            return t;
        }
        let lower = text.to_ascii_lowercase();
        let (radix, digits_at, name) = if lower.starts_with("0x") {
            (16, 2, "hexadecimal")
        } else if lower.starts_with("0b") {
            (2, 2, "binary")
        } else if text.starts_with('0') && text.len() > 1 && text.as_bytes()[1].is_ascii_digit() {
            (8, 1, "octal")
        } else {
            (10, 0, "decimal")
        };
        let body = &text[digits_at..];
        // Digits of any radix up to 16 belong to the number so `09` and `0b2` get a precise error.
        let ndigits = body
            .find(|c: char| !c.is_ascii_hexdigit() || (radix != 16 && c.is_ascii_alphabetic()))
            .unwrap_or(body.len());
        let (digits, suffix) = body.split_at(ndigits);
        let suffix_lo = lo + digits_at + ndigits;
        if digits.is_empty() {
            self.err(&mut t, lo, self.pos, format!("missing digits after `{}`", &text[..2]));
            return t;
        }
        let unit = if radix == 10 { duration_unit(suffix) } else { None };
        let c_suffix =
            suffix.chars().all(|c| matches!(c, 'u' | 'U' | 'l' | 'L')) && suffix.len() <= 3;
        if unit.is_none() && !c_suffix {
            self.err(&mut t, suffix_lo, self.pos, format!("invalid suffix `{}` on number", suffix));
        }
        let mut value: u64 = 0;
        for (i, c) in digits.char_indices() {
            let d = c.to_digit(16).unwrap_or(0) as u64;
            if d >= radix {
                let at = lo + digits_at + i;
                self.err(&mut t, at, at + 1, format!("invalid digit `{}` in {} number", c, name));
                return t;
            }
            match value.checked_mul(radix).and_then(|v| v.checked_add(d)) {
                Some(v) => value = v,
                None => {
                    self.err(
                        &mut t,
                        lo,
                        suffix_lo,
                        "number too large: integers are at most 64 bits",
                    );
                    return t;
                }
            }
        }
        match value.checked_mul(unit.unwrap_or(1)) {
            Some(v) => t.kind = TokenKind::Int(v),
            None => self.err(&mut t, lo, self.pos, "duration too long: at most 2^64 nanoseconds"),
        }
        t
    }

    /// `"..."` with C escapes. A string ends at its line: an unterminated one must not swallow
    /// the rest of the program.
    fn string(&mut self, lo: usize) -> Token {
        let mut t = Token::new(TokenKind::Str(Vec::new()), lo, lo);
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None | Some('\n') => {
                    self.err(&mut t, lo, self.pos, "unterminated string: missing closing `\"`");
                    break;
                }
                Some('"') => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    if let Some(b) = self.escape(&mut t) {
                        value.push(b);
                    }
                }
                Some(c) => {
                    self.bump();
                    let mut buf = [0; 4];
                    value.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        t.kind = TokenKind::Str(value);
        t.span = Span::new(lo, self.pos);
        t
    }

    /// `'a'`, `'\n'`: an integer with the character's value.
    fn char_lit(&mut self, lo: usize) -> Token {
        let mut t = Token::new(TokenKind::Int(0), lo, lo);
        let value = match self.peek() {
            Some('\\') => self.escape(&mut t).map(u64::from),
            Some('\'') => {
                self.bump();
                self.err(&mut t, lo, self.pos, "empty character literal");
                t.span = Span::new(lo, self.pos);
                return t;
            }
            Some(c) if c != '\n' => {
                self.bump();
                Some(c as u64)
            }
            _ => None,
        };
        if self.peek() == Some('\'') {
            self.bump();
        } else {
            // Find the closing quote on this line to tell "too long" from "unterminated".
            let line = &self.rest()[..self.rest().find('\n').unwrap_or(self.rest().len())];
            match line.find('\'') {
                Some(i) => {
                    self.pos += i + 1;
                    self.err(
                        &mut t,
                        lo,
                        self.pos,
                        "character literal may only contain one character; use `\"` for strings",
                    );
                }
                None => {
                    self.pos += line.len();
                    self.err(
                        &mut t,
                        lo,
                        self.pos,
                        "unterminated character literal: missing closing `'`",
                    );
                }
            }
        }
        t.kind = TokenKind::Int(value.unwrap_or(0));
        t.span = Span::new(lo, self.pos);
        t
    }

    /// Decodes the escape at the cursor (which is on the `\`).
    fn escape(&mut self, t: &mut Token) -> Option<u8> {
        let lo = self.pos;
        self.bump();
        let c = match self.peek() {
            None | Some('\n') => return None, // the caller reports the unterminated literal
            Some(c) => c,
        };
        self.bump();
        let b = match c {
            'n' => b'\n',
            't' => b'\t',
            'r' => b'\r',
            '\\' => b'\\',
            '"' => b'"',
            '\'' => b'\'',
            'a' => 0x07,
            'b' => 0x08,
            'f' => 0x0c,
            'v' => 0x0b,
            'e' => 0x1b,
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            self.bump();
                        }
                        None => break,
                    }
                }
                if v > 0xff {
                    self.err(
                        t,
                        lo,
                        self.pos,
                        format!(
                            "octal escape `{}` is out of range (at most `\\377`)",
                            &self.text[lo..self.pos]
                        ),
                    );
                }
                v as u8
            }
            'x' => {
                let mut v = 0;
                let mut n = 0;
                while n < 2 {
                    match self.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            self.bump();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    self.err(t, lo, self.pos, "`\\x` must be followed by hexadecimal digits");
                }
                v as u8
            }
            c => {
                self.err(t, lo, self.pos, format!("unknown escape `\\{}`", c));
                let mut buf = [0; 4];
                return c.encode_utf8(&mut buf).as_bytes().first().copied();
            }
        };
        Some(b)
    }

    /// `$name`, `$1` and `$#` (bpftrace's positional parameters). A bare `$` still makes a `Var`
    /// so parsing goes on, with an error.
    fn var(&mut self, lo: usize) -> Token {
        // bpftrace's positional parameters: `$1`..`$N`, and `$#` (how many there are).
        if self.peek() == Some('#') {
            self.bump();
            return Token::new(TokenKind::Var, lo, self.pos);
        }
        self.eat_while(is_ident_char);
        let mut t = Token::new(TokenKind::Var, lo, self.pos);
        let name = &self.text[lo + 1..self.pos];
        if name.is_empty() {
            self.err(&mut t, lo, self.pos, "expected a variable name after `$`");
        } else if name.starts_with(|c: char| c.is_ascii_digit())
            && !name.bytes().all(|c| c.is_ascii_digit())
        {
            self.err(
                &mut t,
                lo,
                self.pos,
                format!(
                    "`{}` is not a variable name or a positional parameter",
                    &self.text[lo..self.pos]
                ),
            );
        }
        t
    }
}

pub fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

pub fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// bpftrace's duration literals (`100ms`, `1s`): the suffix's nanoseconds.
fn duration_unit(suffix: &str) -> Option<u64> {
    Some(match suffix {
        "ns" => 1,
        "us" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return None,
    })
}

/// bpftrace's integer `1e6` (decimal digits, `e`, decimal digits): `Some(None)` when it overflows,
/// `None` when the text is not of that form.
pub fn exponent(text: &str) -> Option<Option<u64>> {
    let (m, e) = text.split_once(['e', 'E'])?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(m) || !digits(e) || (m.len() > 1 && m.starts_with('0')) {
        return None;
    }
    let m: u64 = m.parse().ok()?;
    Some(e.parse::<u32>().ok().and_then(|e| 10u64.checked_pow(e)).and_then(|p| m.checked_mul(p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenKind::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        Lexer::tokenize(text).into_iter().map(|t| t.kind).collect()
    }

    fn one(text: &str) -> Token {
        let mut v = Lexer::tokenize(text);
        assert_eq!(v.len(), 2, "{:?}", v);
        v.remove(0)
    }

    fn int(text: &str) -> u64 {
        let t = one(text);
        assert!(t.errors.is_empty(), "{}: {:?}", text, t.errors);
        match t.kind {
            Int(v) => v,
            k => panic!("{:?}", k),
        }
    }

    fn err(text: &str) -> String {
        let t = Lexer::tokenize(text).into_iter().find(|t| !t.errors.is_empty()).expect("an error");
        t.errors[0].message.clone()
    }

    fn string(text: &str) -> Vec<u8> {
        let t = one(text);
        assert!(t.errors.is_empty(), "{}: {:?}", text, t.errors);
        match t.kind {
            Str(v) => v,
            k => panic!("{:?}", k),
        }
    }

    fn specs(text: &str) -> Vec<String> {
        let mut lx = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lx.next_spec();
            match t.kind {
                Spec => out.push(text[t.span.lo as usize..t.span.hi as usize].to_string()),
                Eof => return out,
                _ => {}
            }
        }
    }

    #[test]
    fn operators_take_the_longest_match() {
        assert_eq!(
            kinds("<<= << <= < >>= >> >= > -> -- -= - ++ += + && &= & || |= | == = != ! ^= ^ %= % *= * /= /"),
            vec![
                ShlEq, Shl, Le, Lt, ShrEq, Shr, Ge, Gt, Arrow, MinusMinus, MinusEq, Minus, PlusPlus, PlusEq, Plus,
                AndAnd, AmpEq, Amp, OrOr, PipeEq, Pipe, EqEq, Eq, Ne, Bang, CaretEq, Caret, PercentEq, Percent, StarEq,
                Star, SlashEq, Slash, Eof
            ]
        );
        assert_eq!(
            kinds("( ) { } [ ] , ; : ? . ~"),
            vec![
                LParen, RParen, LBrace, RBrace, LBracket, RBracket, Comma, Semi, Colon, Question,
                Dot, Tilde, Eof
            ]
        );
    }

    #[test]
    fn names() {
        let ts = Lexer::tokenize("foo _x9 $v @ @m @_a1");
        let got: Vec<(TokenKind, Span)> = ts.into_iter().map(|t| (t.kind, t.span)).collect();
        assert_eq!(
            got,
            vec![
                (Ident, Span::new(0, 3)),
                (Ident, Span::new(4, 7)),
                (Var, Span::new(8, 10)),
                (At, Span::new(11, 12)),
                (At, Span::new(13, 15)),
                (At, Span::new(16, 20)),
                (Eof, Span::new(20, 20)),
            ]
        );
    }

    #[test]
    fn integers() {
        assert_eq!(int("42"), 42);
        assert_eq!(int("0"), 0);
        assert_eq!(int("0x2a"), 42);
        assert_eq!(int("0X2A"), 42);
        assert_eq!(int("052"), 42);
        assert_eq!(int("0b101010"), 42);
        assert_eq!(int("42u"), 42);
        assert_eq!(int("42UL"), 42);
        assert_eq!(int("42ull"), 42);
        assert_eq!(int("0xffULL"), 255);
        assert_eq!(int("18446744073709551615"), u64::MAX);
        assert_eq!(int("0xffffffffffffffff"), u64::MAX);
        // bpftrace's durations, in nanoseconds.
        assert_eq!(int("100ms"), 100_000_000);
        assert_eq!(int("1s"), 1_000_000_000);
        assert_eq!(int("5us"), 5_000);
        assert_eq!(int("7ns"), 7);
        assert_eq!(int("2m"), 120_000_000_000);
        assert_eq!(int("1h"), 3_600_000_000_000);
        assert_eq!(int("1d"), 86_400_000_000_000);
        assert_eq!(int("1_000ms"), 1_000_000_000);
    }

    #[test]
    fn char_literals() {
        assert_eq!(int("'a'"), 97);
        assert_eq!(int("'\\n'"), 10);
        assert_eq!(int("'\\''"), 39);
        assert_eq!(int("'\\x41'"), 65);
        assert_eq!(int("'\\0'"), 0);
        assert_eq!(int("'\"'"), 34);
    }

    #[test]
    fn number_errors() {
        assert_eq!(err("18446744073709551616"), "number too large: integers are at most 64 bits");
        assert_eq!(err("1000000d"), "duration too long: at most 2^64 nanoseconds");
        assert_eq!(err("5sec"), "invalid suffix `sec` on number");
        assert_eq!(err("0x10000000000000000"), "number too large: integers are at most 64 bits");
        assert_eq!(err("09"), "invalid digit `9` in octal number");
        assert_eq!(err("0b102"), "invalid digit `2` in binary number");
        assert_eq!(err("0x"), "missing digits after `0x`");
        assert_eq!(err("12ns5"), "invalid suffix `ns5` on number");
        assert_eq!(err("1.5"), "floating-point numbers are not supported");
        // A tuple's element of an element: `$t.3.0`.
        assert_eq!(kinds("$t.3.0"), vec![Var, Dot, Int(3), Dot, Int(0), Eof]);
        let t = one("12abc");
        assert_eq!(t.errors[0].span, Span::new(2, 5));
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(string(r#""hello""#), b"hello");
        assert_eq!(string(r#""""#), b"");
        assert_eq!(string(r#""\n\t\r\\\"\'\0\a\b\f\v\e""#), b"\n\t\r\\\"'\0\x07\x08\x0c\x0b\x1b");
        assert_eq!(string(r#""\x41\x4a\x7""#), b"AJ\x07");
        assert_eq!(string(r#""\101\0101""#), b"A\x081");
        assert_eq!(string("\"h\u{e9}\""), "h\u{e9}".as_bytes());
        assert_eq!(string(r#""%-5d|\n""#), b"%-5d|\n");
    }

    #[test]
    fn string_errors() {
        assert_eq!(err(r#""abc"#), "unterminated string: missing closing `\"`");
        assert_eq!(err(r#""\q""#), "unknown escape `\\q`");
        assert_eq!(err(r#""\777""#), "octal escape `\\777` is out of range (at most `\\377`)");
        assert_eq!(err(r#""\xg""#), "`\\x` must be followed by hexadecimal digits");
        assert_eq!(err("''"), "empty character literal");
        assert_eq!(
            err("'ab'"),
            "character literal may only contain one character; use `\"` for strings"
        );
        assert_eq!(err("'a"), "unterminated character literal: missing closing `'`");
        // The unterminated string stops at its line, so the next line lexes normally.
        let ts = Lexer::tokenize("\"abc\nfoo");
        assert_eq!(ts[0].span, Span::new(0, 4));
        assert_eq!(ts[1].kind, Ident);
    }

    #[test]
    fn other_errors() {
        assert_eq!(err("#"), "unknown character `#`");
        assert_eq!(err("\u{1}"), "unknown character '\\u{1}'");
        assert_eq!(err("a /* b"), "unterminated block comment: `/*` without `*/`");
        assert_eq!(err("$"), "expected a variable name after `$`");
        assert_eq!(err("$1x"), "`$1x` is not a variable name or a positional parameter");
        assert!(Lexer::tokenize("$1 $12 $#").iter().all(|t| t.errors.is_empty()));
        // Multi-byte unknown characters are skipped whole.
        let ts = Lexer::tokenize("é x");
        assert_eq!((ts[0].kind.clone(), ts[0].span), (Error, Span::new(0, 2)));
        assert_eq!(ts[1].kind, Ident);
    }

    #[test]
    fn comments_and_shebang() {
        assert_eq!(kinds("a // c\n b /* x\ny */ c"), vec![Ident, Ident, Ident, Eof]);
        assert_eq!(kinds("#!/usr/bin/sonde\nfoo"), vec![Ident, Eof]);
        assert_eq!(kinds("#!/usr/bin/sonde"), vec![Eof]);
        assert_eq!(kinds("a\n#!b"), vec![Ident, Error, Bang, Ident, Eof]);
    }

    #[test]
    fn probe_specs_are_single_tokens() {
        for s in [
            "tracepoint:syscalls:sys_enter_*",
            "tracepoint:sched/sched_wakeup",
            "kprobe:dev_hard_start_xmit+8",
            "uprobe:/bin/bash:readline",
            "interval:500ms",
            "profile:hz:99",
            "k:vfs_read",
            "BEGIN",
        ] {
            assert_eq!(specs(&format!("{} {{", s)), vec![s.to_string()]);
            assert_eq!(specs(&format!("{}{{", s)), vec![s.to_string()]);
        }
        assert_eq!(specs("a, b {"), vec!["a", "b"]);
        assert_eq!(specs("a,\n b\n{"), vec!["a", "b"]);
        assert_eq!(specs("  // c\n /* d */ kprobe:SyS_* / x"), vec!["kprobe:SyS_*", "x"]);
    }

    #[test]
    fn spec_mode_returns_ordinary_tokens_for_non_specs() {
        let mut lx = Lexer::new("{ }");
        assert_eq!(lx.next_spec().kind, LBrace);
        assert_eq!(lx.next_spec().kind, RBrace);
        assert_eq!(lx.next_spec().kind, Eof);
    }

    #[test]
    fn bpftrace_literals() {
        let ints = |t: &str| -> Vec<TokenKind> {
            Lexer::tokenize(t).into_iter().map(|t| t.kind).collect()
        };
        assert_eq!(
            ints("1e6 1_000_000 2E3 0x1e6"),
            [
                TokenKind::Int(1_000_000),
                TokenKind::Int(1_000_000),
                TokenKind::Int(2000),
                TokenKind::Int(0x1e6),
                TokenKind::Eof
            ]
        );
        assert!(!Lexer::tokenize("1e30")[0].errors.is_empty());
    }
}
