//! The statements that print or stop: `print`, `exit`, `clear`/`zero` of a map, bpftrace's
//! `cat("FILE")` and `time(fmt)`.

use super::spec::Call;
use crate::model::tir::{EventDef, EventKind, TExpr, TExprKind, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `print(a, b)`; `print(@m)`, and bpftrace's `print(@m, N)`: the N largest entries, and
    /// `print(@m, N, D)`: with each value divided by D.
    pub(super) fn print(&mut self, c: &Call) -> Option<TStmtKind> {
        let whole_map = match c.args {
            [one] => Some((one, 0, 1)),
            [one, Expr { kind: ExprKind::Int(n), .. }] if is_map_name(one) => {
                Some((one, *n as usize, 1))
            }
            [one, Expr { kind: ExprKind::Int(n), .. }, Expr { kind: ExprKind::Int(d), .. }]
                if is_map_name(one) && *d > 0 =>
            {
                Some((one, *n as usize, *d))
            }
            [one, _, _] if is_map_name(one) => {
                self.error(Diagnostic::error(c.span, "print(@map, top, div) takes constant integers, the divisor 1 or more: `print(@map, 10, 1000)`"));
                return None;
            }
            _ => None,
        };
        if let Some((one, top, div)) = whole_map {
            if let Some(map) = self.map_operand(one) {
                let kind = EventKind::PrintMap { map, top, div };
                let event = self.add_event(EventDef { kind, args: vec![] });
                return Some(TStmtKind::Emit { event, args: vec![] });
            }
        }
        let values: Vec<TExpr> = c.args.iter().map(|a| self.expr(a)).collect();
        let types = values.iter().map(|v| v.ty.clone()).collect();
        let event = self.add_event(EventDef { kind: EventKind::Print, args: types });
        Some(TStmtKind::Emit { event, args: values })
    }

    /// `exit([code])`.
    pub(super) fn exit(&mut self, c: &Call) -> Option<TStmtKind> {
        let code = match c.args.first() {
            None => TExpr { kind: TExprKind::Int(0), ty: Type::S64, span: c.span },
            Some(code) => self.scalar(code, "the exit code"),
        };
        let event = self.add_event(EventDef { kind: EventKind::Exit, args: vec![Type::S64] });
        Some(TStmtKind::Exit { event, code })
    }

    /// `clear(@m)`, and bpftrace's `zero(@m)` (`keep_keys`).
    pub(super) fn clear(&mut self, c: &Call, keep_keys: bool) -> Option<TStmtKind> {
        let Some(map) = self.map_operand(&c.args[0]) else {
            return self.usage_error(c);
        };
        let kind = EventKind::ClearMap { map, keep_keys };
        let event = self.add_event(EventDef { kind, args: vec![] });
        Some(TStmtKind::Emit { event, args: vec![] })
    }

    /// bpftrace's `time(fmt)` (default `"%H:%M:%S\n"`) is `printf("%s", strftime(fmt, nsecs))`.
    pub(super) fn time(&mut self, c: &Call) -> Option<TStmtKind> {
        let args = time_as_printf(c.args, c.span);
        let kind = self.printf(&Call { args: &args, ..*c })?;
        if let TStmtKind::Emit { event, .. } = &kind {
            if let EventKind::Printf { format } = &self.events[*event].kind {
                self.events[*event].kind = EventKind::Time { format: format.clone() };
            }
        }
        Some(kind)
    }

    /// A map named as a whole (`@m`, ply's `m`) in print/clear.
    fn map_operand(&mut self, e: &Expr) -> Option<usize> {
        match &e.kind {
            ExprKind::Map { name, keys } if keys.is_empty() => {
                self.maps.lookup(name).or_else(|| {
                    if self.discovering {
                        Some(self.maps.get_or_create(name, e.span))
                    } else {
                        self.error(Diagnostic::error(
                            e.span,
                            format!("map `{}` is never assigned", name),
                        ));
                        None
                    }
                })
            }
            ExprKind::Ident(name) => self.maps.lookup(name),
            _ => None,
        }
    }
}

/// `@m` (a map named without keys), as `print(@m, N)` takes it.
fn is_map_name(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Map { keys, .. } if keys.is_empty())
}

/// `printf("%s", strftime(fmt, nsecs))` for `time(fmt)`.
fn time_as_printf(args: &[Expr], span: Span) -> Vec<Expr> {
    let e = |kind| Expr { kind, span };
    let format = match args.first() {
        Some(f) => f.clone(),
        None => e(ExprKind::Str(b"%H:%M:%S\n".to_vec())),
    };
    let strftime = vec![format, e(ExprKind::Ident("nsecs".into()))];
    let call = e(ExprKind::Call { name: "strftime".into(), args: strftime });
    vec![e(ExprKind::Str(b"%s".to_vec())), call]
}
