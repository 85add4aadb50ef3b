//! bpftrace's `macro NAME(params) { body }`: defined at the top level, expanded where it is
//! called. A `$v` parameter names the caller's variable, an `@m` parameter the caller's map, a
//! plain one stands for the argument expression; other variables of the body are its own
//! (renamed per expansion). The body's statements run where the call is, before the statement
//! holding it, and its last expression (if any) is the call's value.

use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, MapDecl, Span, Stmt, StmtKind};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub(super) enum Param {
    Var(String),
    Map(String),
    Expr(String),
}

#[derive(Clone, Debug)]
pub(super) struct UserMacro {
    params: Vec<Param>,
    /// Where the body's `{` is in the program text.
    body_lo: usize,
    span: Span,
    /// Its body did not parse (already reported).
    broken: bool,
}

/// The macros defined so far, shared with the parsers of expansions.
#[derive(Clone, Default)]
pub(super) struct UserMacros {
    defs: Rc<RefCell<HashMap<String, UserMacro>>>,
    expansions: Rc<Cell<usize>>,
    /// Where each `macro NAME` of the program starts, so one may be called before its definition.
    ahead: Rc<HashMap<String, usize>>,
    /// Macros whose definitions are being parsed (a body naming its own macro, or two macros
    /// naming each other, must not define them again without end).
    defining: Rc<RefCell<Vec<String>>>,
}

/// Inside an expansion: the caller's names for the `$v` and `@m` parameters, and the suffix that
/// makes the body's own variables its own.
pub(super) struct Hygiene {
    pub tag: String,
    pub vars: HashMap<String, String>,
    pub maps: HashMap<String, String>,
}

/// How the last expansion ended: its call's span and whether it had a value.
pub(super) struct Expansion {
    pub span: Span,
    pub valueless: bool,
}

impl Parser<'_> {
    /// Notes where each top-level `macro NAME` starts (one pass over the tokens).
    pub(super) fn find_macros(&mut self) {
        let mut lx = crate::lexer::Lexer::new(self.text);
        let mut ahead = HashMap::new();
        let mut depth = 0usize;
        let mut prev: Option<Token> = None;
        loop {
            let t = lx.next_token();
            match t.kind {
                TokenKind::Eof => break,
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => depth = depth.saturating_sub(1),
                TokenKind::Ident if depth == 0 => {
                    if let Some(p) = prev.as_ref().filter(|p| self.text_of(p.span) == "macro") {
                        ahead.insert(self.text_of(t.span).to_string(), p.span.lo as usize);
                    }
                }
                _ => {}
            }
            prev = (t.kind == TokenKind::Ident).then_some(t);
        }
        self.user_macros.ahead = Rc::new(ahead);
    }

    /// Defines macro `name` ahead of where the parser is, if the program defines it later.
    fn define_ahead(&self, name: &str) -> bool {
        let Some(&at) = self.user_macros.ahead.get(name) else { return false };
        if self.user_macros.defs.borrow().contains_key(name) {
            return true;
        }
        if self.user_macros.defining.borrow().iter().any(|d| d == name) {
            return false;
        }
        let mut sub = Parser::new(self.text);
        sub.lex.set_pos(at);
        sub.macros = self.macros.clone();
        sub.user_macros = self.user_macros.clone();
        // Its mistakes are reported when the parser reaches the definition.
        self.user_macros.defining.borrow_mut().push(name.to_string());
        sub.macro_def();
        self.user_macros.defining.borrow_mut().retain(|d| d != name);
        self.user_macros.defs.borrow().contains_key(name)
    }

    /// Is the lookahead the top-level word `word` followed by a token of kind `then`?
    pub(super) fn top_word_ahead(&mut self, word: &str, then: TokenKind) -> bool {
        if let Some(t) = self.tok.take() {
            self.lex.set_pos(t.span.lo as usize);
        }
        let mut lx = self.lex.clone();
        let t = lx.next_token();
        t.kind == TokenKind::Ident && self.text_of(t.span) == word && lx.next_token().kind == then
    }

    /// `macro NAME(params) { body }` or `macro NAME { body }`.
    pub(super) fn macro_def(&mut self) {
        let kw = self.bump();
        let name = self.bump();
        let mut params = Vec::new();
        if let Some(open) = self.eat(TokenKind::LParen) {
            while self.peek().kind != TokenKind::RParen {
                let t = self.bump();
                let text = self.text_of(t.span).to_string();
                params.push(match t.kind {
                    TokenKind::Var => Param::Var(text[1..].to_string()),
                    TokenKind::At => Param::Map(text),
                    TokenKind::Ident => Param::Expr(text),
                    _ => {
                        self.expected("a parameter (`$var`, `@map` or `name`)", &t);
                        self.recover_probe();
                        return;
                    }
                });
                if self.eat(TokenKind::Comma).is_none() {
                    break;
                }
            }
            if self.close(TokenKind::RParen, "`)` after the macro's parameters", &open).is_err() {
                self.recover_probe();
                return;
            }
        }
        if self.peek().kind != TokenKind::LBrace {
            let t = self.peek().clone();
            self.expected("`{` to start the macro's body", &t);
            self.recover_probe();
            return;
        }
        let body_lo = self.peek_span().lo as usize;
        let before = self.diags.len();
        let word = self.text_of(name.span).to_string();
        self.user_macros.defining.borrow_mut().push(word.clone());
        // Parsed once here for its mistakes; each call parses it again with its arguments.
        let saved = self.hygiene.replace(Hygiene {
            tag: String::new(),
            vars: HashMap::new(),
            maps: HashMap::new(),
        });
        let _ = self.block();
        self.hygiene = saved;
        self.user_macros.defining.borrow_mut().retain(|d| *d != word);
        let broken = self.diags.len() > before;
        let span = kw.span.to(name.span);
        let m = UserMacro { params, body_lo, span, broken };
        self.user_macros.defs.borrow_mut().insert(word, m);
    }

    /// `let @name = lruhash(4096);` at the top level.
    pub(super) fn map_decl(&mut self) -> Option<MapDecl> {
        let kw = self.bump();
        let name = self.bump();
        let name = self.text_of(name.span).to_string();
        let r = (|| {
            self.expect(TokenKind::Eq, "`=` after the map's name")?;
            let kind = self.expect(TokenKind::Ident, "a map kind, like `lruhash(4096)`")?;
            let open = self.expect(TokenKind::LParen, "`(` after the map kind")?;
            let size = match self.peek().kind {
                TokenKind::Int(n) => {
                    self.bump();
                    n
                }
                _ => return self.missing("the map's size, a number"),
            };
            self.close(TokenKind::RParen, "`)` after the map's size", &open)?;
            self.eat(TokenKind::Semi);
            Ok((self.text_of(kind.span).to_string(), size))
        })();
        match r {
            Ok((kind, size)) => Some(MapDecl { name, kind, size, span: self.span_from(kw.span) }),
            Err(()) => {
                self.recover_stmt();
                None
            }
        }
    }

    /// Is identifier `name` a defined macro, not being expanded?
    pub(super) fn user_macro_use(&self, name: &Token) -> bool {
        let w = self.text_of(name.span);
        (self.user_macros.defs.borrow().contains_key(w) || self.define_ahead(w))
            && !self.expanding.iter().any(|m| m == w)
    }

    /// With macro name `name` just consumed: its call's value, its statements left in `pending`.
    /// `None` when it is not a call (a macro with parameters named without `(`).
    pub(super) fn expand_user(&mut self, name: &Token) -> Option<PResult<Expr>> {
        let word = self.text_of(name.span).to_string();
        let m = self.user_macros.defs.borrow().get(&word).cloned()?;
        let (args, span) = if self.peek().kind == TokenKind::LParen {
            let open = self.bump();
            if self.peek().kind == TokenKind::RParen {
                (Vec::new(), name.span.to(self.bump().span))
            } else {
                match self.list(&open, TokenKind::RParen, "`,` or `)` after macro argument") {
                    Ok((a, close)) => (a, name.span.to(close.span)),
                    Err(()) => return Some(Err(())),
                }
            }
        } else if m.params.is_empty() {
            (Vec::new(), name.span)
        } else {
            return None;
        };
        Some(self.expand_body(&word, &m, args, span))
    }

    /// bpftrace's block expression `{ stmts; value }`: the statements run where it is evaluated
    /// (as a macro's do), the last expression is its value.
    pub(super) fn block_expr(&mut self) -> PResult<Expr> {
        let block = self.block()?;
        Ok(self.split_value(block.stmts, block.span))
    }

    /// The last statement's expression as the value at `span`, the others to run first where it
    /// is evaluated; without a value, they run before the statement holding it.
    pub(super) fn split_value(&mut self, mut stmts: Vec<Stmt>, span: Span) -> Expr {
        let value = match stmts.last() {
            Some(Stmt { kind: StmtKind::Expr(_), .. }) => match stmts.pop() {
                Some(Stmt { kind: StmtKind::Expr(e), .. }) => Some(e),
                _ => None,
            },
            _ => None,
        };
        self.expansion = Some(Expansion { span, valueless: value.is_none() });
        match value {
            Some(mut e) if stmts.is_empty() => {
                e.span = span;
                e
            }
            Some(value) => Expr { kind: ExprKind::Block { stmts, value: Box::new(value) }, span },
            None => {
                self.pending.extend(stmts);
                Expr { kind: ExprKind::Int(0), span }
            }
        }
    }

    fn expand_body(
        &mut self,
        word: &str,
        m: &UserMacro,
        args: Vec<Expr>,
        span: Span,
    ) -> PResult<Expr> {
        if m.broken {
            return Err(());
        }
        if args.len() != m.params.len() {
            let msg = format!(
                "macro `{}` takes {} argument(s), {} given",
                word,
                m.params.len(),
                args.len()
            );
            self.emit(Diagnostic::error(span, msg).with_label(m.span, "defined here"));
            return Err(());
        }
        let n = self.user_macros.expansions.get() + 1;
        self.user_macros.expansions.set(n);
        let mut h =
            Hygiene { tag: format!("{}{}", word, n), vars: HashMap::new(), maps: HashMap::new() };
        let mut exprs = HashMap::new();
        for (p, a) in m.params.iter().zip(args) {
            match (p, a.kind) {
                (Param::Var(p), ExprKind::Var(v)) => {
                    h.vars.insert(p.clone(), v);
                }
                (Param::Map(p), ExprKind::Map { name, keys }) if keys.is_empty() => {
                    h.maps.insert(p.clone(), name);
                }
                (Param::Expr(p), kind) => {
                    exprs.insert(p.clone(), Expr { kind, span: a.span });
                }
                (Param::Var(p), _) | (Param::Map(p), _) => {
                    let what = if matches!(m.params[0], Param::Var(_)) { "$" } else { "" };
                    let msg = format!(
                        "macro `{}`'s parameter `{}{}` takes {}",
                        word,
                        what,
                        p,
                        if p.starts_with('@') {
                            "a map, like `@m`"
                        } else {
                            "a variable, like `$x`"
                        }
                    );
                    self.emit(Diagnostic::error(a.span, msg).with_label(m.span, "defined here"));
                    return Err(());
                }
            }
        }
        let mut sub = Parser::new(self.text);
        sub.lex.set_pos(m.body_lo);
        sub.macros = self.macros.clone();
        sub.user_macros = self.user_macros.clone();
        sub.macro_args = exprs;
        sub.hygiene = Some(h);
        sub.expanding = self.expanding.clone();
        sub.expanding.push(word.to_string());
        sub.depth = self.depth;
        let block = sub.block();
        let failed = !sub.diags.is_empty();
        for d in std::mem::take(&mut sub.diags) {
            self.emit(d);
        }
        let Ok(block) = block else { return Err(()) };
        if failed {
            return Err(());
        }
        Ok(self.split_value(block.stmts, span))
    }

    /// Wraps statement `s` with the statements of the macros it called; `Err` when it used the
    /// value of a macro that has none.
    pub(super) fn with_pending(
        &mut self,
        s: Stmt,
        outer: (Vec<Stmt>, Option<Expansion>),
    ) -> PResult<Stmt> {
        let mut stmts = std::mem::replace(&mut self.pending, outer.0);
        let expansion = std::mem::replace(&mut self.expansion, outer.1);
        // A block or macro call that is the whole statement: its statements, and its value
        // when that is a call.
        if let StmtKind::Expr(Expr { kind: ExprKind::Block { stmts: first, value }, .. }) = &s.kind
        {
            stmts.extend(first.iter().cloned());
            if matches!(value.kind, ExprKind::Call { .. }) {
                stmts.push(Stmt { kind: StmtKind::Expr((**value).clone()), span: s.span });
            }
            let block = crate::ast::Block { stmts, span: s.span };
            return Ok(Stmt { kind: StmtKind::Seq(block), span: s.span });
        }
        if stmts.is_empty() && expansion.as_ref().is_none_or(|x| !x.valueless) {
            return Ok(s);
        }
        let whole = match (&s.kind, &expansion) {
            (StmtKind::Expr(e), Some(x)) => e.span == x.span,
            _ => false,
        };
        match (&s.kind, expansion) {
            // The call was the statement: its value, if any, is dropped unless it is a call.
            (StmtKind::Expr(e), Some(x)) if whole => {
                if !x.valueless && matches!(e.kind, ExprKind::Call { .. }) {
                    stmts.push(s.clone());
                }
            }
            (_, Some(x)) if x.valueless => {
                self.emit(
                    Diagnostic::error(
                        x.span,
                        "this macro or block has no value: it ends in a statement",
                    )
                    .with_help(
                        "call it as a statement, or end its body with an expression (no `;`)",
                    ),
                );
                return Err(());
            }
            _ => stmts.push(s.clone()),
        }
        let block = crate::ast::Block { stmts, span: s.span };
        Ok(Stmt { kind: StmtKind::Seq(block), span: s.span })
    }
}
