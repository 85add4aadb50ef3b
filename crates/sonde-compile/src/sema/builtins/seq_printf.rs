//! `printf` in an iter probe: the kernel formats it (bpf_seq_printf) into the iterator's
//! output, so the format is rewritten in the kernel's dialect: integers as 64-bit `%lld`,
//! `%llu`, `%llx`, strings as `%s`, flags `-0+ ` and a width, at most twelve values, and
//! printable text only.

use super::spec::Call;
use crate::model::site::AttachPoint;
use crate::model::tir::{KernelText, TExpr, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_output::printf::{Piece, Spec};
use sonde_syntax::diag::Diagnostic;

/// bpf_seq_printf's limit (MAX_SEQ_PRINTF_VARARGS).
const MAX_VALUES: usize = 12;

impl Checker<'_> {
    /// Whether the probe being checked is an iterator's.
    pub(super) fn in_iterator(&self) -> bool {
        self.sites.iter().any(|s| matches!(s.point, AttachPoint::Iter { .. }))
    }

    pub(super) fn seq_printf(
        &mut self,
        c: &Call,
        pieces: &[Piece],
        values: Vec<TExpr>,
    ) -> Option<TStmtKind> {
        if values.len() > MAX_VALUES {
            let msg = format!(
                "printf in an iter probe takes at most {} values (the kernel's bpf_seq_printf); this has {}",
                MAX_VALUES,
                values.len()
            );
            self.error(Diagnostic::error(c.span, msg));
            return None;
        }
        match kernel_format(pieces, &values) {
            Ok(format) => {
                Some(TStmtKind::KernelPrintf { to: KernelText::Iterator, format, args: values })
            }
            Err((span, msg)) => {
                self.error(Diagnostic::error(span.unwrap_or(c.span), msg));
                None
            }
        }
    }
}

type Refusal = (Option<sonde_syntax::ast::Span>, String);

/// The format in bpf_seq_printf's dialect, or what it cannot print.
fn kernel_format(pieces: &[Piece], values: &[TExpr]) -> Result<Vec<u8>, Refusal> {
    let mut out = Vec::new();
    let mut values = values.iter();
    for piece in pieces {
        match piece {
            Piece::Literal(text) => {
                for &b in text {
                    if !(b.is_ascii_graphic() || b.is_ascii_whitespace()) {
                        let msg = format!(
                            "printf in an iter probe prints printable ASCII only (the kernel's bpf_seq_printf), not byte {:#04x}",
                            b
                        );
                        return Err((None, msg));
                    }
                    out.extend_from_slice(if b == b'%' { b"%%" } else { std::slice::from_ref(&b) });
                }
            }
            Piece::Conv(spec) => {
                let v = values.next().expect("sema counted one value a conversion");
                conversion(spec, v, &mut out).map_err(|msg| (Some(v.span), msg))?;
            }
        }
    }
    Ok(out)
}

fn conversion(spec: &Spec, v: &TExpr, out: &mut Vec<u8>) -> Result<(), String> {
    let refuse = || {
        format!(
            "printf in an iter probe is formatted by the kernel's bpf_seq_printf, which prints integers with %d %i %u %x %X and strings with %s; `%{}` of a `{}` is not among them",
            spec.conv, v.ty
        )
    };
    let integer = matches!(spec.conv, 'd' | 'i' | 'u' | 'x' | 'X') && v.ty.is_scalar();
    let string = spec.conv == 's' && matches!(v.ty, Type::Str(_));
    if !(integer || string) || spec.precision.is_some() || spec.flags.hash {
        return Err(refuse());
    }
    out.push(b'%');
    for (on, flag) in [
        (spec.flags.minus, b'-'),
        (spec.flags.zero, b'0'),
        (spec.flags.plus, b'+'),
        (spec.flags.space, b' '),
    ] {
        if on {
            out.push(flag);
        }
    }
    if let Some(w) = spec.width {
        out.extend_from_slice(w.to_string().as_bytes());
    }
    if integer {
        out.extend_from_slice(b"ll");
    }
    out.push(spec.conv as u8);
    Ok(())
}
