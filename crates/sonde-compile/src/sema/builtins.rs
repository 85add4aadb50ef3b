//! bpftrace's `syscall_name(nr)` and `username` (names found in user space when printed),
//! `warnf`/`errorf` (printf to stderr with the call's location), `system(fmt, ...)` and
//! `override(rc)` (both change the traced system: `--unsafe`, as bpftrace wants).

use super::check::Checker;
use super::tir::{Builtin, EventKind, Sink, TExpr, TExprKind, TStmtKind};
use crate::provider::AttachPoint;
use crate::types::Type;
use sonde_syntax::ast::{Expr, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `syscall_name(nr)`: the number, printed as the syscall's name ("read").
    pub(super) fn syscall_name(&mut self, args: &[Expr], span: Span) -> TExpr {
        let [nr] = args else {
            self.error(Diagnostic::error(
                span,
                "syscall_name() takes a syscall number, like `syscall_name(args.id)`",
            ));
            return self.poisoned(span);
        };
        let nr = self.scalar(nr, "the argument of syscall_name()");
        TExpr { kind: TExprKind::Cast(Box::new(nr)), ty: Type::SyscallName, span }
    }

    /// `username`: the current uid, printed as its name in /etc/passwd.
    pub(super) fn username(&mut self, span: Span) -> TExpr {
        TExpr { kind: TExprKind::Builtin(Builtin::Uid), ty: Type::Username, span }
    }

    /// `warnf(fmt, ...)`, `errorf(fmt, ...)` and `system(fmt, ...)`: printf's checks, another sink.
    pub(super) fn formatted(&mut self, name: &str, args: &[Expr], span: Span) -> Option<TStmtKind> {
        let to = match name {
            "warnf" => Sink::Warning(span),
            "errorf" => Sink::Error(span),
            _ => {
                self.needs_unsafe("system() runs a command", span)?;
                Sink::System
            }
        };
        let kind = self.printf(args, span)?;
        if let TStmtKind::Emit { event, .. } = &kind {
            if let EventKind::Printf { format } = &self.events[*event].kind {
                self.events[*event].kind = EventKind::Formatted { format: format.clone(), to };
            }
        }
        Some(kind)
    }

    /// `override(rc)`: the probed kernel function returns `rc` without running (kprobes only;
    /// the kernel allows it for functions marked for error injection, with
    /// CONFIG_BPF_KPROBE_OVERRIDE).
    pub(super) fn override_return(&mut self, args: &[Expr], span: Span) -> Option<TStmtKind> {
        let [rc] = args else {
            self.error(Diagnostic::error(
                span,
                "override() takes the return value, like `override(-12)`",
            ));
            return None;
        };
        let rc = self.scalar(rc, "the return value of override()");
        let in_kprobe = !self.sites.is_empty()
            && self
                .sites
                .iter()
                .all(|s| matches!(s.point, AttachPoint::Kprobe { retprobe: false, offset: 0, .. }));
        if !in_kprobe {
            let what = self.sites.first().map(|s| s.point.describe()).unwrap_or_default();
            self.error(Diagnostic::error(
                span,
                format!(
                    "override() makes a kernel function return early, so it works only in a kprobe at a function's entry, not in `{}`: probe the function with `kprobe:FUNC`",
                    what
                ),
            ));
            return None;
        }
        self.needs_unsafe("override() changes what a kernel function returns", span)?;
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

impl Checker<'_> {
    /// `len(@m)`: the number of elements, counted as elements come and go (see `lower/len.rs`).
    pub(super) fn map_len(&mut self, name: &str, map_span: Span, span: Span) -> TExpr {
        let map = self.maps.get_or_create(name, map_span);
        self.maps.count(map);
        let refuse = if self.maps.is_lru(map) {
            Some("the kernel evicts an LRU map's elements without telling the program, so sonde cannot count them: declare it `hash(N)`")
        } else if self.maps.has_keys(map) == Some(false) {
            Some("bpftrace's len() takes a map with keys (`@m[k] = v`); a map without keys has one element")
        } else if matches!(self.maps.value(map), Some(super::tir::MapValue::Agg { func, .. }) if func.has_bucket())
        {
            Some("a histogram's elements are its buckets here: count the keys in a map of their own, `@keys[k] = 1`, and take len() of that")
        } else {
            None
        };
        if let Some(why) = refuse {
            self.error(Diagnostic::error(span, format!("len({}): {}", name, why)));
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::MapLen { map }, ty: Type::S64, span }
    }
}
