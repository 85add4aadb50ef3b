//! bpftrace's builtins that change the traced system, allowed only with `--unsafe` as bpftrace
//! wants: `override(rc)` here, `signal()` and `system()` beside their kin.

use super::spec::Call;
use crate::model::site::AttachPoint;
use crate::model::tir::TStmtKind;
use crate::sema::check::Checker;
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `override(rc)`: the probed kernel function returns `rc` without running (kprobes only;
    /// the kernel allows it for functions marked for error injection, with
    /// CONFIG_BPF_KPROBE_OVERRIDE).
    pub(super) fn override_return(&mut self, c: &Call) -> Option<TStmtKind> {
        let rc = self.scalar(&c.args[0], "the return value of override()");
        let in_kprobe = !self.sites.is_empty()
            && self
                .sites
                .iter()
                .all(|s| matches!(s.point, AttachPoint::Kprobe { retprobe: false, offset: 0, .. }));
        if !in_kprobe {
            let what = self.sites.first().map(|s| s.point.describe()).unwrap_or_default();
            self.error(Diagnostic::error(
                c.span,
                format!(
                    "override() makes a kernel function return early, so it works only in a kprobe at a function's entry, not in `{}`: probe the function with `kprobe:FUNC`",
                    what
                ),
            ));
            return None;
        }
        self.needs_unsafe("override() changes what a kernel function returns", c.span)?;
        Some(TStmtKind::Override(rc))
    }

    pub(super) fn needs_unsafe(&mut self, what: &str, span: Span) -> Option<()> {
        if self.opts.allow_unsafe {
            return Some(());
        }
        self.error(
            Diagnostic::error(span, format!("{}: it is allowed only with --unsafe", what))
                .with_help("run `sonde --unsafe ...`, as bpftrace wants `bpftrace --unsafe`"),
        );
        None
    }
}
