//! `printf(fmt, ...)`, and bpftrace's `warnf`, `errorf` and `system`, printf's checks with
//! another place for the text.

use super::spec::Call;
use crate::model::tir::{EventDef, EventKind, KernelText, Sink, TExpr, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_output::printf::{self, Piece, Spec as Conversion};
use sonde_syntax::ast::{Expr, ExprKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// bpftrace's `debugf(fmt, ...)`: at most three integers or strings, formatted by the
    /// kernel's bpf_trace_printk.
    pub(in crate::sema) fn debugf(&mut self, c: &Call) -> Option<TStmtKind> {
        let Some(Expr { kind: ExprKind::Str(format), span: fspan }) = c.args.first() else {
            return self.usage_error(c);
        };
        let conversions = match printf::parse(format) {
            Ok(p) => printf::specs(&p).count(),
            Err(e) => {
                self.error(Diagnostic::error(*fspan, format!("bad printf format: {}", e)));
                return None;
            }
        };
        let args: Vec<TExpr> = c.args[1..].iter().map(|a| self.expr(a)).collect();
        if conversions != args.len() || args.len() > 3 {
            let msg = format!(
                "debugf() takes a format with at most three conversions and a value for each; this has {} conversion(s) and {} value(s)",
                conversions,
                args.len()
            );
            self.error(Diagnostic::error(c.span, msg));
            return None;
        }
        for a in &args {
            if !a.ty.is_scalar() && !a.ty.is_string() {
                let msg = format!("debugf() prints integers and strings, not a `{}`", a.ty);
                self.error(Diagnostic::error(a.span, msg));
                return None;
            }
        }
        Some(TStmtKind::KernelPrintf { to: KernelText::TracePipe, format: format.clone(), args })
    }

    pub(in crate::sema) fn printf(&mut self, c: &Call) -> Option<TStmtKind> {
        let Some(Expr { kind: ExprKind::Str(format), span: fspan }) = c.args.first() else {
            return self.usage_error(c);
        };
        let pieces = match printf::parse(format) {
            Ok(p) => p,
            Err(e) => {
                self.error(Diagnostic::error(*fspan, format!("bad printf format: {}", e)));
                return None;
            }
        };
        let specs: Vec<&Conversion> = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Conv(s) => Some(s),
                _ => None,
            })
            .collect();
        let values: Vec<TExpr> = c.args[1..].iter().map(|a| self.expr(a)).collect();
        if specs.len() != values.len() {
            self.error(Diagnostic::error(
                c.span,
                format!(
                    "the format has {} conversion(s) but {} value(s) follow it",
                    specs.len(),
                    values.len()
                ),
            ));
            return None;
        }
        if self.in_iterator() {
            return self.seq_printf(c, &pieces, values);
        }
        let mut types = Vec::new();
        for (spec, v) in specs.iter().zip(&values) {
            types.push(self.conversion(spec, v, *fspan));
        }
        let values: Vec<TExpr> =
            specs.iter().zip(values).map(|(spec, v)| int_width(spec, v)).collect();
        let types = types
            .into_iter()
            .zip(&values)
            .map(|(t, v)| if v.ty == Type::U32 && t.is_scalar() { Type::U32 } else { t })
            .collect();
        let event = self.add_event(EventDef {
            kind: EventKind::Printf { format: format.clone() },
            args: types,
        });
        Some(TStmtKind::Emit { event, args: values })
    }

    /// The type value `v` is sent as for conversion `spec`, after checking that they agree.
    fn conversion(&mut self, spec: &Conversion, v: &TExpr, fspan: sonde_syntax::ast::Span) -> Type {
        // Timestamps and kernel addresses print as text with %s and as numbers otherwise.
        let textual = matches!(
            v.ty,
            Type::Walltime
                | Type::Strftime(_)
                | Type::CgroupPath
                | Type::Strerror
                | Type::SyscallName
                | Type::Username
                | Type::Bool
                | Type::SignalName
                | Type::Enum(_)
                | Type::Sym
                | Type::USym
                | Type::Stack { .. }
        );
        let ok = if spec.wants_any() {
            true
        } else if spec.wants_string() {
            textual
                || matches!(
                    v.ty,
                    Type::Str(_) | Type::Bytes(_) | Type::Inet | Type::Buf(_) | Type::MacAddr
                )
        } else {
            v.ty.is_scalar()
        };
        if !ok {
            let want = if spec.wants_string() { "a string" } else { "an integer" };
            self.error(
                Diagnostic::error(
                    v.span,
                    format!("`%{}` needs {}, found `{}`", spec.conv, want, v.ty),
                )
                .with_label(fspan, "format here"),
            );
        }
        let as_number = textual && !spec.wants_string() && !spec.wants_any();
        if as_number && matches!(v.ty, Type::Enum(_)) {
            // Enumerators may be negative.
            Type::S64
        } else if as_number {
            Type::U64
        } else {
            v.ty.clone()
        }
    }

    /// `warnf(fmt, ...)`, `errorf(fmt, ...)`, `system(fmt, ...)` and `cat(fmt, ...)`: printf's
    /// checks, another sink.
    pub(super) fn formatted(&mut self, c: &Call) -> Option<TStmtKind> {
        let to = match c.name {
            "warnf" => Sink::Warning(c.span),
            "errorf" => Sink::Error(c.span),
            "cat" => Sink::Cat,
            _ => {
                self.needs_unsafe("system() runs a command", c.span)?;
                Sink::System
            }
        };
        let kind = self.printf(c)?;
        if let TStmtKind::Emit { event, .. } = &kind {
            if let EventKind::Printf { format, .. } = &self.events[*event].kind {
                self.events[*event].kind = EventKind::Formatted { format: format.clone(), to };
            }
        }
        Some(kind)
    }
}

/// `%x`, `%X`, `%o` and `%u` without a length modifier print an integer of 4 bytes or fewer at
/// its own width, as C prints an `int`: `(int32)-1` is `ffffffff`. Wider values print all their
/// 64 bits.
fn int_width(spec: &Conversion, v: TExpr) -> TExpr {
    let narrow = matches!(v.ty, Type::Int { bytes: 1..=4, .. });
    if !narrow || spec.length != printf::Length::None || !matches!(spec.conv, 'x' | 'X' | 'o' | 'u')
    {
        return v;
    }
    let span = v.span;
    TExpr { kind: crate::model::tir::TExprKind::Cast(Box::new(v)), ty: Type::U32, span }
}
