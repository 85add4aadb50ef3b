//! Blocks and statements.

use super::{compare_help, PResult, Parser};
use crate::ast::{BinOp, Block, Expr, ExprKind, Span, Stmt, StmtKind};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind};

impl Parser<'_> {
    /// `{ stmt; stmt; ... }`. `;` is optional after a statement ending in `}` and before the
    /// closing `}`; empty statements are allowed.
    pub(super) fn block(&mut self) -> PResult<Block> {
        let open = self.expect(TokenKind::LBrace, "`{`")?;
        // Nesting is counted in `stmt`, which every recursion through a block passes through.
        let mut stmts = Vec::new();
        loop {
            match self.peek_kind() {
                TokenKind::RBrace => {
                    let close = self.bump();
                    return Ok(Block { stmts, span: open.span.to(close.span) });
                }
                TokenKind::Eof => {
                    let t = self.peek().clone();
                    let note = "this block is not closed";
                    self.expected_with("`}` to close the block", &t, |d| {
                        d.with_label(open.span, note)
                    });
                    return Ok(Block { stmts, span: self.span_from(open.span) });
                }
                TokenKind::Semi => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            match self.stmt() {
                Ok((s, ends_in_block)) => {
                    stmts.push(s);
                    self.terminator(ends_in_block);
                }
                Err(()) => self.recover_stmt(),
            }
        }
    }

    /// A probe body that is one statement, as ply allows: `;` ends it unless it ends in a
    /// block (or the program ends). A statement followed by `{` was a broken probe header
    /// (`BEGIN x { ... }`), and is reported as one.
    pub(super) fn statement_body(&mut self) -> Option<Block> {
        let first = self.peek().clone();
        let (s, ends_in_block) = match self.stmt() {
            Ok(s) => s,
            Err(()) => {
                self.recover_stmt();
                return None;
            }
        };
        let span = match self.peek_kind() {
            TokenKind::Semi => s.span.to(self.bump().span),
            TokenKind::Eof => s.span,
            _ if ends_in_block => s.span,
            TokenKind::LBrace => {
                self.expected("`{` after probe spec", &first);
                self.recover_probe();
                return None;
            }
            _ => {
                let t = self.peek().clone();
                self.expected("`;` after the probe's statement", &t);
                self.recover_stmt();
                return None;
            }
        };
        Some(Block { stmts: vec![s], span })
    }

    /// Checks what follows a statement; on a missing `;` either carries on (when the next token
    /// starts a new line, as if the `;` were there) or skips the rest of the statement.
    fn terminator(&mut self, ends_in_block: bool) {
        match self.peek_kind() {
            TokenKind::Semi => {
                self.bump();
            }
            TokenKind::RBrace | TokenKind::Eof => {}
            _ if ends_in_block => {}
            _ => {
                let t = self.peek().clone();
                let prev = self.prev_hi;
                let new_line =
                    self.text.get(prev..t.span.lo as usize).is_some_and(|gap| gap.contains('\n'));
                self.expected_with("`;` after statement", &t, |d| {
                    if new_line {
                        d.with_label(Span::new(prev, prev), "add `;` here")
                    } else {
                        d
                    }
                });
                if !new_line {
                    self.recover_stmt();
                }
            }
        }
    }

    /// Skips the rest of a broken statement: past its `;`, or past the block it ends with (a
    /// broken `if (...) { ... }`), or up to the `}` closing the enclosing block.
    pub(super) fn recover_stmt(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.peek_kind() {
                TokenKind::Eof => return,
                TokenKind::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::RBrace if depth == 0 => return,
                TokenKind::RBrace if depth == 1 => {
                    self.bump();
                    return;
                }
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => depth -= 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// One statement without its `;`, and whether it ended with a block (so needs no `;`).
    pub(super) fn stmt(&mut self) -> PResult<(Stmt, bool)> {
        let outer = (std::mem::take(&mut self.pending), self.expansion.take());
        let r = self.stmt_inner();
        match r {
            Ok((s, b)) => Ok((self.with_pending(s, outer)?, b)),
            Err(()) => {
                self.pending = outer.0;
                self.expansion = outer.1;
                Err(())
            }
        }
    }

    fn stmt_inner(&mut self) -> PResult<(Stmt, bool)> {
        self.nested(|p| {
            if p.peek().kind == TokenKind::LBrace {
                let b = p.block()?;
                return Ok((Stmt { span: b.span, kind: StmtKind::Block(b) }, true));
            }
            if p.at_word("if") {
                return p.if_stmt();
            }
            if p.at_word("return") {
                return p.return_stmt();
            }
            if p.at_word("delete") {
                return p.delete_stmt();
            }
            if let Some(r) = p.flow_stmt() {
                return r;
            }
            if p.at_word("else") {
                let t = p.bump();
                p.emit(Diagnostic::error(t.span, "`else` without a matching `if`"));
                return Err(());
            }
            p.simple_stmt()
        })
    }

    /// `return;`, and bpftrace's `return EXPR;` in a probe, whose value no probe's caller reads:
    /// the value is computed and dropped (as `_ = EXPR`), then the probe returns.
    fn return_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let t = self.bump();
        let ret = Stmt { kind: StmtKind::Return, span: t.span };
        if matches!(self.peek().kind, TokenKind::Semi | TokenKind::RBrace) {
            return Ok((ret, false));
        }
        let value = self.expr()?;
        let span = t.span.to(value.span);
        if self.in_fn {
            return Ok((Stmt { kind: StmtKind::ReturnValue(value), span }, false));
        }
        let drop = StmtKind::Let { name: DISCARDED.to_string(), ty: None, value: Some(value) };
        let stmts = vec![Stmt { kind: drop, span }, ret];
        Ok((Stmt { kind: StmtKind::Seq(Block { stmts, span }), span }, false))
    }

    /// `if (cond) stmt-or-block [else stmt-or-block]`, including `else if`.
    fn if_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        if self.peek().kind != TokenKind::LParen {
            return self.bare_if(kw);
        }
        let open = self.expect(TokenKind::LParen, "`(` after `if`")?;
        let cond = self.inner_expr()?;
        if self.eat(TokenKind::RParen).is_none() {
            let t = self.peek().clone();
            let help = compare_help(&t);
            let unclosed = matches!(t.kind, TokenKind::Semi | TokenKind::RBrace | TokenKind::Eof);
            self.expected_with("`)` after the `if` condition", &t, |d| {
                let d = help(d);
                if unclosed {
                    d.with_label(open.span, "this `(` is not closed")
                } else {
                    d
                }
            });
            return Err(());
        }
        let (then, ends_in_block) = self.branch()?;
        self.if_rest(kw, cond, then, ends_in_block)
    }

    /// bpftrace's `if cond { ... }`: without parentheses the body must be a block.
    fn bare_if(&mut self, kw: Token) -> PResult<(Stmt, bool)> {
        let cond = self.inner_expr()?;
        if self.peek().kind != TokenKind::LBrace {
            let t = self.peek().clone();
            let help = compare_help(&t);
            self.expected_with("`{` after the `if` condition", &t, |d| {
                help(d).with_help(
                    "without `(...)` around the condition, the body must be a `{ }` block",
                )
            });
            return Err(());
        }
        let then = self.block()?;
        self.if_rest(kw, cond, then, true)
    }

    /// An `if`'s optional `else` part, after its first branch.
    fn if_rest(
        &mut self,
        kw: Token,
        cond: Expr,
        then: Block,
        mut ends_in_block: bool,
    ) -> PResult<(Stmt, bool)> {
        let mut els = None;
        if self.at_word("else") {
            self.bump();
            let (b, e) = if self.at_word("if") {
                let (s, e) = self.stmt()?;
                (Block { span: s.span, stmts: vec![s] }, e)
            } else {
                self.branch()?
            };
            els = Some(b);
            ends_in_block = e;
        }
        let span = self.span_from(kw.span);
        Ok((Stmt { kind: StmtKind::If { cond, then, els }, span }, ends_in_block))
    }

    /// The body of an `if` or `else`: a block, or one statement with its `;` (if any).
    fn branch(&mut self) -> PResult<(Block, bool)> {
        match self.peek_kind() {
            TokenKind::LBrace => Ok((self.block()?, true)),
            TokenKind::Semi => {
                let t = self.bump();
                Ok((Block { stmts: Vec::new(), span: t.span }, true))
            }
            _ => {
                let (s, mut ends_in_block) = self.stmt()?;
                if self.eat(TokenKind::Semi).is_some() {
                    ends_in_block = true;
                }
                Ok((Block { span: s.span, stmts: vec![s] }, ends_in_block))
            }
        }
    }

    /// `delete m[k]`, and bpftrace's `delete(@m[k])` and `delete(@m, k)`.
    fn delete_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let kw = self.bump();
        let target = match self.eat(TokenKind::LParen) {
            Some(open) => {
                let mut m = self.inner_expr()?;
                if self.eat(TokenKind::Comma).is_some() {
                    let key = self.inner_expr()?;
                    m = match m.kind {
                        ExprKind::Map { name, keys } if keys.is_empty() => Expr {
                            span: m.span.to(key.span),
                            kind: ExprKind::Map { name, keys: vec![key] },
                        },
                        _ => {
                            self.emit(Diagnostic::error(
                                m.span,
                                "expected a map name before `,` in `delete(@map, key)`",
                            ));
                            return Err(());
                        }
                    };
                }
                self.close(TokenKind::RParen, "`)` to close `delete(`", &open)?;
                m
            }
            None => self.postfix()?,
        };
        if !matches!(target.kind, ExprKind::Map { .. }) {
            self.emit(Diagnostic::error(
                target.span,
                "`delete` needs a map element, like `delete @m[key]`",
            ));
            return Err(());
        }
        Ok((Stmt { kind: StmtKind::Delete(target), span: self.span_from(kw.span) }, false))
    }

    /// An expression, assignment, `op=` or `++`/`--`.
    fn simple_stmt(&mut self) -> PResult<(Stmt, bool)> {
        let e = self.expr()?;
        let lo = e.span;
        // `$a++;` alone is `$a += 1;` (on an aggregation, a count).
        if let ExprKind::Step { target, op, post } = e.kind {
            // The implicit 1 points at the operator.
            let (from, to) =
                if post { (e.span.hi - 2, e.span.hi) } else { (e.span.lo, e.span.lo + 2) };
            let span = crate::ast::Span { lo: from, hi: to };
            let value = Expr { kind: ExprKind::Int(1), span };
            let kind = StmtKind::AssignOp { target: *target, op, value };
            return Ok((Stmt { kind, span: self.span_from(lo) }, false));
        }
        let kind = self.peek_kind();
        let kind = match kind {
            // bpftrace's `_ = expr`: the value is computed and dropped, without the warning an
            // unused value gets. It is held by a variable no program can name.
            TokenKind::Eq if matches!(&e.kind, ExprKind::Ident(n) if n == "_") => {
                self.bump();
                let value = self.expr()?;
                StmtKind::Let { name: DISCARDED.to_string(), ty: None, value: Some(value) }
            }
            TokenKind::Eq => {
                self.bump();
                self.check_target(&e)?;
                let value = self.expr()?;
                StmtKind::Assign { target: e, value }
            }
            TokenKind::PlusPlus | TokenKind::MinusMinus => {
                let t = self.bump();
                self.check_target(&e)?;
                let op = if kind == TokenKind::PlusPlus { BinOp::Add } else { BinOp::Sub };
                StmtKind::AssignOp {
                    target: e,
                    op,
                    value: Expr { kind: ExprKind::Int(1), span: t.span },
                }
            }
            k => match compound_op(&k) {
                Some(op) => {
                    self.bump();
                    self.check_target(&e)?;
                    let value = self.expr()?;
                    StmtKind::AssignOp { target: e, op, value }
                }
                None => branches_as_if(e),
            },
        };
        Ok((Stmt { kind, span: self.span_from(lo) }, false))
    }

    fn check_target(&mut self, e: &Expr) -> PResult<()> {
        let d = match &e.kind {
            ExprKind::Var(v)
                if v == "#" || (!v.is_empty() && v.bytes().all(|c| c.is_ascii_digit())) =>
            {
                Diagnostic::error(
                    e.span,
                    format!("cannot assign to the positional parameter `${}`", v),
                )
                .with_help("positional parameters are the program's arguments, read only")
            }
            ExprKind::Map { .. } | ExprKind::Var(_) => return Ok(()),
            ExprKind::Ident(name) => {
                Diagnostic::error(e.span, format!("cannot assign to `{}`", name))
                    .with_help(format!("write `@{}` for a map or `${}` for a variable", name, name))
            }
            _ => Diagnostic::error(e.span, "cannot assign to this expression")
                .with_help("only maps (`@m[key]`, `@m`) and variables (`$v`) can be assigned"),
        };
        self.emit(d);
        Err(())
    }
}

fn compound_op(k: &TokenKind) -> Option<BinOp> {
    use TokenKind::*;
    Some(match k {
        PlusEq => BinOp::Add,
        MinusEq => BinOp::Sub,
        StarEq => BinOp::Mul,
        SlashEq => BinOp::Div,
        PercentEq => BinOp::Mod,
        AmpEq => BinOp::BitAnd,
        PipeEq => BinOp::BitOr,
        CaretEq => BinOp::BitXor,
        ShlEq => BinOp::Shl,
        ShrEq => BinOp::Shr,
        _ => return None,
    })
}

/// The variable `_ = expr` assigns: a name that `$` cannot spell.
const DISCARDED: &str = "_ (discarded)";

/// bpftrace's `cond ? printf("a") : printf("b");`: a conditional whose arms are calls, as a
/// statement, is `if (cond) { ... } else { ... }`; any other expression statement stays one.
fn branches_as_if(e: Expr) -> StmtKind {
    match e.kind {
        ExprKind::Ternary { cond, then, els }
            if matches!(then.kind, ExprKind::Call { .. })
                && matches!(els.kind, ExprKind::Call { .. }) =>
        {
            let arm = |x: Expr| Block {
                span: x.span,
                stmts: vec![Stmt { span: x.span, kind: StmtKind::Expr(x) }],
            };
            StmtKind::If { cond: *cond, then: arm(*then), els: Some(arm(*els)) }
        }
        kind => StmtKind::Expr(Expr { kind, span: e.span }),
    }
}
