//! Tokens to AST: recursive descent for probes and statements, Pratt for expressions.
//!
//! Errors are collected, not returned early: a failing statement is skipped up to its `;` or the
//! `}` closing its block, and a failing probe header up to its body, so one run reports several
//! mistakes. Parse functions return `PResult`; `Err(())` means "already reported, recover".

mod cast;
mod config;
mod expr;
mod flow;
mod functions;
mod macros;
mod script_types;
mod stmt;
mod user_macros;

use crate::ast::{Expr, Probe, ProbeSpec, Program, Span};
use crate::diag::Diagnostic;
use crate::lexer::{Lexer, Token, TokenKind};

/// How deeply blocks, statements and expressions may nest. Real programs stay far below; the
/// cap keeps the parser (and later passes, which recurse over the tree) off the end of the stack.
pub const MAX_DEPTH: usize = 128;

/// After this many errors the parser stops: later ones are mostly consequences of earlier ones.
pub const MAX_ERRORS: usize = 20;

type PResult<T> = Result<T, ()>;

/// Parses a whole program, returning what could be parsed and every diagnostic found.
pub fn parse(text: &str) -> (Program, Vec<Diagnostic>) {
    let (text, macros, mut diags) = crate::prep::run(text);
    let mut p = Parser::new(&text);
    p.macros = std::rc::Rc::new(macros);
    p.find_macros();
    let program = p.program();
    diags.append(&mut p.diags);
    (program, diags)
}

/// Parses one expression filling `text` from byte `start` to its end (a face's `--filter`): a
/// `/`, `}` or anything after the expression is an error, so the text can only ever be that one
/// expression. Spans count from the start of `text`.
pub fn parse_expr(text: &str, start: usize) -> (Option<Expr>, Vec<Diagnostic>) {
    let mut p = Parser::new(text);
    p.lex.set_pos(start);
    let e = p.expr().ok();
    let t = p.peek().clone();
    if e.is_some() && t.kind != TokenKind::Eof {
        p.expected("the end of the expression", &t);
    }
    if p.diags.is_empty() && !p.pending.is_empty() {
        let span = Span::new(start, text.len());
        p.emit(Diagnostic::error(span, "a `macro` with statements cannot be called here"));
    }
    let e = e.filter(|_| p.diags.is_empty());
    (e, p.diags)
}

struct Parser<'a> {
    text: &'a str,
    lex: Lexer<'a>,
    /// The lookahead token, lexed on demand so the parser can switch the lexer to spec mode.
    tok: Option<Token>,
    /// End of the last consumed token: where "found end of input" points.
    prev_hi: usize,
    diags: Vec<Diagnostic>,
    depth: usize,
    /// Inside a predicate and outside any brackets: `/` ends the predicate instead of dividing.
    slash_ends: bool,
    reported_depth: bool,
    reported_eof: bool,
    /// `#define`d names, expanded where they appear as identifiers.
    macros: std::rc::Rc<crate::prep::Macros>,
    /// Inside a function-like macro's expansion: its parameters' arguments.
    macro_args: std::collections::HashMap<String, crate::ast::Expr>,
    /// Macros being expanded (a macro naming itself is not expanded again, as in C).
    expanding: Vec<String>,
    /// bpftrace's `macro` definitions.
    user_macros: user_macros::UserMacros,
    /// Inside a `macro`'s expansion: how its variables and maps are renamed.
    hygiene: Option<user_macros::Hygiene>,
    /// Statements of the macros called by the statement being parsed, to run before it.
    pending: Vec<crate::ast::Stmt>,
    /// The last macro call expanded in the statement being parsed.
    expansion: Option<user_macros::Expansion>,
    /// Parsing a probe's predicate.
    in_predicate: bool,
    /// Parsing a `fn` body: `return value;` returns the value.
    in_fn: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            lex: Lexer::new(text),
            tok: None,
            prev_hi: 0,
            diags: Vec::new(),
            depth: 0,
            slash_ends: false,
            reported_depth: false,
            reported_eof: false,
            macros: Default::default(),
            macro_args: Default::default(),
            expanding: Vec::new(),
            user_macros: Default::default(),
            hygiene: None,
            pending: Vec::new(),
            expansion: None,
            in_predicate: false,
            in_fn: false,
        }
    }

    // ------------------------------------------------------------------ probes

    fn program(&mut self) -> Program {
        let mut probes = Vec::new();
        let mut config = Vec::new();
        let mut map_decls = Vec::new();
        let mut types = Vec::new();
        let mut funcs = Vec::new();
        loop {
            if let Some(kind) = self.type_decl_ahead() {
                types.extend(self.type_decl(kind));
                continue;
            }
            if self.config_ahead() {
                self.config_block(&mut config);
                continue;
            }
            if self.top_word_ahead("macro", TokenKind::Ident) {
                self.macro_def();
                continue;
            }
            if self.top_word_ahead("fn", TokenKind::Ident) {
                funcs.extend(self.fn_def());
                continue;
            }
            if self.top_word_ahead("let", TokenKind::At) {
                map_decls.extend(self.map_decl());
                continue;
            }
            if let Some(spec) = self.spec() {
                probes.extend(self.probe(spec));
                continue;
            }
            let t = self.peek().clone();
            if t.kind == TokenKind::Eof {
                break;
            }
            let help = match t.kind {
                TokenKind::Semi => Some("probes need no `;` between them"),
                TokenKind::RBrace => Some("this `}` closes no block"),
                _ => None,
            };
            self.expected_with("a probe, like `BEGIN` or `kprobe:vfs_read`", &t, |d| match help {
                Some(h) => d.with_help(h),
                None => d,
            });
            self.recover_probe();
        }
        if probes.is_empty() && self.diags.is_empty() {
            let d = Diagnostic::error(Span::new(0, 0), "no probes in program").with_help(
                "a program is one or more probes, like `BEGIN { printf(\"hello\\n\"); }`",
            );
            self.emit(d);
        }
        Program { probes, config, map_decls, types, funcs }
    }

    /// `spec[, spec...] [/predicate/] { body }`, starting after the first spec.
    fn probe(&mut self, first: Token) -> Option<Probe> {
        let mut specs = vec![self.make_spec(&first)];
        while self.eat(TokenKind::Comma).is_some() {
            match self.spec() {
                Some(t) => specs.push(self.make_spec(&t)),
                None => {
                    let t = self.peek().clone();
                    self.expected("a probe spec after `,`", &t);
                    break;
                }
            }
        }
        let has_predicate = self.peek().kind == TokenKind::Slash;
        let predicate = if has_predicate { self.predicate() } else { None };
        // A macro with a value may be a predicate (its statements run first); one ending in a
        // statement may not.
        let x = self.expansion.take();
        if let Some(x) = x.filter(|x| x.valueless || !self.pending.is_empty()) {
            self.pending.clear();
            self.emit(
                Diagnostic::error(
                    x.span,
                    "a `macro` that ends in a statement has no value to test in a predicate",
                )
                .with_help("test its value in an `if` inside the probe's body"),
            );
        }
        let body = match self.peek().kind {
            TokenKind::LBrace => self.block().ok()?,
            // As in ply, a probe's body may be one statement (`kprobe:f if (x) @ = count();`);
            // after a predicate ply wants a block, and so does sonde.
            TokenKind::Eof | TokenKind::Semi | TokenKind::RBrace | TokenKind::Comma
                if !has_predicate =>
            {
                return self.no_body("`{` after probe spec");
            }
            _ if has_predicate => return self.no_body("`{` after the predicate"),
            _ => self.statement_body()?,
        };
        Some(Probe { span: first.span.to(body.span), specs, predicate, body })
    }

    #[cold]
    fn no_body(&mut self, what: &str) -> Option<Probe> {
        let t = self.peek().clone();
        self.expected(what, &t);
        self.recover_probe();
        None
    }

    fn make_spec(&self, t: &Token) -> ProbeSpec {
        let s = self.text_of(t.span);
        let (provider, definition) = s.split_once(':').unwrap_or((s, ""));
        ProbeSpec {
            provider: provider.to_string(),
            definition: definition.to_string(),
            span: t.span,
        }
    }

    /// `/ expr /`. On error, skips to the body's `{`.
    fn predicate(&mut self) -> Option<crate::ast::Expr> {
        self.bump();
        let saved = std::mem::replace(&mut self.slash_ends, true);
        self.in_predicate = true;
        let e = self.expr();
        self.in_predicate = false;
        self.slash_ends = saved;
        let e = e.ok().and_then(|e| {
            if self.eat(TokenKind::Slash).is_some() {
                return Some(e);
            }
            let t = self.peek().clone();
            self.expected_with("`/` to end the predicate", &t, compare_help(&t));
            None
        });
        if e.is_none() {
            while !matches!(self.peek().kind, TokenKind::LBrace | TokenKind::Eof) {
                self.bump();
            }
        }
        e
    }

    /// After a broken probe header: skip to its body and parse that (for the errors inside), or
    /// past a stray `}`.
    fn recover_probe(&mut self) {
        loop {
            match self.peek().kind {
                TokenKind::Eof => return,
                TokenKind::LBrace => {
                    let _ = self.block();
                    return;
                }
                TokenKind::RBrace => {
                    self.bump();
                    return;
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    // ------------------------------------------------------------------ tokens

    /// The lookahead token (lexing it if needed). Lexer errors are reported here, once.
    fn peek(&mut self) -> &Token {
        if self.tok.is_none() {
            let t = self.lex_with(Lexer::next_token);
            self.tok = Some(t);
        }
        match &self.tok {
            Some(t) => t,
            None => unreachable!("lookahead was just filled"),
        }
    }

    /// Reads a probe spec at the cursor; `None` (with the token left as lookahead) if the text
    /// there is not a spec.
    fn spec(&mut self) -> Option<Token> {
        if let Some(t) = self.tok.take() {
            self.lex.set_pos(t.span.lo as usize);
        }
        let t = self.lex_with(Lexer::next_spec);
        if t.kind == TokenKind::Spec {
            self.prev_hi = t.span.hi as usize;
            return Some(t);
        }
        self.tok = Some(t);
        None
    }

    fn lex_with(&mut self, next: fn(&mut Lexer<'a>) -> Token) -> Token {
        loop {
            let t = next(&mut self.lex);
            for d in &t.errors {
                self.emit(d.clone());
            }
            if t.kind != TokenKind::Error {
                return t;
            }
        }
    }

    /// The lookahead's kind, without a literal's payload (cheap to match on and copy).
    fn peek_kind(&mut self) -> TokenKind {
        match &self.peek().kind {
            TokenKind::Int(_) => TokenKind::Int(0),
            TokenKind::Str(_) => TokenKind::Str(Vec::new()),
            k => k.clone(),
        }
    }

    fn bump(&mut self) -> Token {
        self.peek();
        let t = self.tok.take().unwrap_or_else(|| Token {
            kind: TokenKind::Eof,
            span: Span::default(),
            errors: vec![],
        });
        if t.kind != TokenKind::Eof {
            self.prev_hi = t.span.hi as usize;
        }
        t
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Token> {
        if self.peek().kind == kind {
            Some(self.bump())
        } else {
            None
        }
    }

    /// Consumes a `kind` token or reports "expected WHAT, found ...".
    fn expect(&mut self, kind: TokenKind, what: &str) -> PResult<Token> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => self.missing(what),
        }
    }

    #[cold]
    #[inline(never)]
    fn missing<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.peek().clone();
        self.expected(what, &t);
        Err(())
    }

    /// Like `expect` for a closing bracket; points back at the opener when the bracket was
    /// evidently never closed.
    fn close(&mut self, kind: TokenKind, what: &str, open: &Token) -> PResult<Token> {
        match self.eat(kind) {
            Some(t) => Ok(t),
            None => self.unclosed(what, open),
        }
    }

    #[cold]
    #[inline(never)]
    fn unclosed(&mut self, what: &str, open: &Token) -> PResult<Token> {
        let t = self.peek().clone();
        let unclosed = matches!(t.kind, TokenKind::Semi | TokenKind::RBrace | TokenKind::Eof);
        let note = format!("this `{}` is not closed", self.text_of(open.span));
        self.expected_with(what, &t, |d| if unclosed { d.with_label(open.span, note) } else { d });
        Err(())
    }

    /// Whether the lookahead is the identifier `word` (keywords are identifiers to the lexer).
    fn at_word(&mut self, word: &str) -> bool {
        let t = self.peek();
        let (ident, span) = (t.kind == TokenKind::Ident, t.span);
        ident && self.text_of(span) == word
    }

    fn peek_span(&mut self) -> Span {
        self.peek().span
    }

    fn text_of(&self, span: Span) -> &'a str {
        self.text.get(span.lo as usize..span.hi as usize).unwrap_or("")
    }

    fn span_from(&self, lo: Span) -> Span {
        Span::new(lo.lo as usize, self.prev_hi.max(lo.hi as usize))
    }

    // ------------------------------------------------------------------ diagnostics

    #[cold]
    #[inline(never)]
    fn emit(&mut self, d: Diagnostic) {
        // Re-lexing after a rewind can find the same problem twice.
        if self.diags.len() > MAX_ERRORS
            || self.diags.iter().rev().take(4).any(|x| x.span == d.span && x.message == d.message)
        {
            return;
        }
        if self.diags.len() == MAX_ERRORS {
            self.diags.push(Diagnostic::error(
                d.span,
                format!("too many errors ({}); stopping here", MAX_ERRORS),
            ));
            self.stop();
            return;
        }
        self.diags.push(d);
    }

    #[cold]
    #[inline(never)]
    fn expected(&mut self, what: &str, found: &Token) {
        self.expected_with(what, found, |d| d);
    }

    #[cold]
    #[inline(never)]
    fn expected_with(
        &mut self,
        what: &str,
        found: &Token,
        f: impl FnOnce(Diagnostic) -> Diagnostic,
    ) {
        let span = if found.kind == TokenKind::Eof {
            // Every unclosed construct would say so at the end; once is enough.
            if self.reported_eof {
                return;
            }
            self.reported_eof = true;
            Span::new(self.prev_hi, self.prev_hi)
        } else {
            found.span
        };
        let d =
            Diagnostic::error(span, format!("expected {}, found {}", what, self.describe(found)));
        self.emit(f(d));
    }

    fn describe(&self, t: &Token) -> String {
        if t.kind == TokenKind::Eof {
            return "end of input".into();
        }
        let s = self.text_of(t.span);
        if s.chars().count() > 30 {
            format!("`{}...`", s.chars().take(27).collect::<String>())
        } else {
            format!("`{}`", s)
        }
    }

    /// Runs `f` one nesting level deeper, refusing beyond [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            let span = self.peek_span();
            self.too_deep(span);
            return Err(());
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Reports excessive nesting and gives up on the rest of the program: recovering inside
    /// such input only produces a cascade of errors.
    #[cold]
    #[inline(never)]
    fn too_deep(&mut self, span: Span) {
        if !self.reported_depth {
            self.reported_depth = true;
            self.emit(Diagnostic::error(
                span,
                format!("program is nested too deeply (more than {} levels)", MAX_DEPTH),
            ));
        }
        self.stop();
    }

    /// Skips the rest of the input: every parse loop then ends at end of input, silently.
    fn stop(&mut self) {
        self.reported_eof = true;
        self.tok = None;
        self.lex.set_pos(self.text.len());
    }
}

/// A help for an `=` where a comparison's context expected something else.
fn compare_help(found: &Token) -> impl FnOnce(Diagnostic) -> Diagnostic {
    let is_assign = found.kind == TokenKind::Eq;
    move |d| if is_assign { d.with_help("to compare, use `==`") } else { d }
}
