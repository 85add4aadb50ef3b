//! bpftrace's `signal(SIG)`: the current process gets a signal. It changes the traced system, so
//! as bpftrace wants `--unsafe`, sonde does too.

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::ExprKind;
use sonde_syntax::diag::Diagnostic;

/// Linux's signal numbers (x86-64), by name without `SIG`.
const SIGNALS: &[(&str, u64)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ILL", 4),
    ("TRAP", 5),
    ("ABRT", 6),
    ("BUS", 7),
    ("FPE", 8),
    ("KILL", 9),
    ("USR1", 10),
    ("SEGV", 11),
    ("USR2", 12),
    ("PIPE", 13),
    ("ALRM", 14),
    ("TERM", 15),
    ("STKFLT", 16),
    ("CHLD", 17),
    ("CONT", 18),
    ("STOP", 19),
    ("TSTP", 20),
    ("TTIN", 21),
    ("TTOU", 22),
    ("URG", 23),
    ("XCPU", 24),
    ("XFSZ", 25),
    ("VTALRM", 26),
    ("PROF", 27),
    ("WINCH", 28),
    ("IO", 29),
    ("PWR", 30),
    ("SYS", 31),
];

impl Checker<'_> {
    /// `signal("SIGKILL")`, `signal("KILL")`, `signal(9)` or any integer expression.
    pub(super) fn signal(&mut self, c: &Call) -> Option<TStmtKind> {
        let span = c.span;
        let arg = &c.args[0];
        let sig = match &arg.kind {
            ExprKind::Str(name) => {
                let name = String::from_utf8_lossy(name);
                let bare = name.strip_prefix("SIG").unwrap_or(&name);
                let Some(&(_, n)) = SIGNALS.iter().find(|(s, _)| *s == bare) else {
                    let mut d = Diagnostic::error(arg.span, format!("unknown signal `{}`", name));
                    let names = SIGNALS.iter().map(|(s, _)| *s);
                    if let Some(best) = sonde_syntax::closest(bare, names) {
                        d = d.with_help(format!("did you mean `SIG{}`?", best));
                    }
                    self.error(d);
                    return None;
                };
                TExpr { kind: TExprKind::Int(n), ty: Type::U32, span: arg.span }
            }
            _ => self.scalar(arg, "the signal of signal()"),
        };
        self.needs_unsafe("signal() changes the traced system", span)?;
        Some(TStmtKind::Signal(sig))
    }
}
