//! Expanding `#define`d names: the body is parsed as an expression where the name appears, and a
//! function-like macro's parameters stand for the argument expressions.

use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, Span};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind};

impl Parser<'_> {
    /// Is identifier `name` a macro or a macro parameter (cheap test before expanding)?
    pub(super) fn macro_use(&self, name: &Token) -> bool {
        let w = self.text_of(name.span);
        (self.macro_args.contains_key(w) || self.macros.contains_key(w))
            && !self.expanding.iter().any(|m| m == w)
    }

    /// With identifier `name` just consumed: its expansion if it is a macro or a macro parameter.
    pub(super) fn expand(&mut self, name: &Token) -> Option<PResult<Expr>> {
        let word = self.text_of(name.span);
        if let Some(arg) = self.macro_args.get(word) {
            return Some(Ok(arg.clone()));
        }
        if self.expanding.iter().any(|m| m == word) {
            return None;
        }
        let m = self.macros.get(word)?.clone();
        let word = word.to_string();
        let mut args = std::collections::HashMap::new();
        let mut span = name.span;
        if let Some(params) = &m.params {
            // A function-like macro without `(` is just a name, as in C.
            if self.peek().kind != TokenKind::LParen {
                return None;
            }
            let open = self.bump();
            let (values, close) = if self.peek().kind == TokenKind::RParen {
                (Vec::new(), self.bump())
            } else {
                match self.list(&open, TokenKind::RParen, "`,` or `)` after macro argument") {
                    Ok(x) => x,
                    Err(()) => return Some(Err(())),
                }
            };
            span = span.to(close.span);
            if values.len() != params.len() {
                let msg = format!(
                    "macro `{}` takes {} argument(s), {} given",
                    word,
                    params.len(),
                    values.len()
                );
                self.emit(Diagnostic::error(span, msg).with_label(m.span, "defined here"));
                return Some(Err(()));
            }
            args = params.iter().cloned().zip(values).collect();
        }
        let mut sub = Parser::new(&m.body);
        sub.macros = self.macros.clone();
        sub.user_macros = self.user_macros.clone();
        sub.macro_args = args;
        sub.expanding = self.expanding.clone();
        sub.expanding.push(word.clone());
        sub.depth = self.depth;
        let e = sub.expr();
        let trailing = sub.peek().kind != TokenKind::Eof;
        if e.is_err() || trailing || !sub.diags.is_empty() {
            let d = Diagnostic::error(
                span,
                format!("macro `{}` does not expand to one expression: `{}`", word, m.body),
            )
            .with_label(m.span, "defined here");
            self.emit(d);
            return Some(Err(()));
        }
        e.ok().map(|mut e| {
            respan(&mut e, span);
            Ok(e)
        })
    }
}

/// Points every node of an expansion at the macro's use: its body has no place in the program.
fn respan(e: &mut Expr, span: Span) {
    e.span = span;
    match &mut e.kind {
        ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Ident(_) | ExprKind::Var(_) => {}
        ExprKind::TypeArg(ty) => ty.span = span,
        ExprKind::Map { keys: es, .. } | ExprKind::Call { args: es, .. } | ExprKind::Tuple(es) => {
            es.iter_mut().for_each(|e| respan(e, span))
        }
        ExprKind::Record(fs) => fs.iter_mut().for_each(|(_, e)| respan(e, span)),
        ExprKind::Unary { expr, .. }
        | ExprKind::Member { expr, .. }
        | ExprKind::Step { target: expr, .. }
        | ExprKind::Block { value: expr, .. } => respan(expr, span),
        ExprKind::Cast { ty, expr } => {
            ty.span = span;
            respan(expr, span)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            respan(lhs, span);
            respan(rhs, span)
        }
        ExprKind::Index { expr, index } => {
            respan(expr, span);
            respan(index, span)
        }
        ExprKind::Ternary { cond, then, els } => {
            respan(cond, span);
            respan(then, span);
            respan(els, span)
        }
    }
}
