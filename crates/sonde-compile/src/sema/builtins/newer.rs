//! bpftrace 0.22–0.24's smaller builtins: `nsecs(clock)`, `pid(ns)`/`tid(ns)`, `strlen(s)`,
//! `pton(text)` and `signal_name(n)`.

use super::spec::Call;
use crate::model::site::ProgKind;
use crate::model::tir::{Builtin, TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `nsecs()`, `nsecs(monotonic)` (as `nsecs`), `nsecs(boot)` and `nsecs(tai)`.
    pub(super) fn nsecs_of(&mut self, c: &Call) -> TExpr {
        let clock = match c.args {
            [] => "monotonic",
            [Expr { kind: ExprKind::Ident(name), .. }] => name.as_str(),
            _ => return self.usage(c),
        };
        let (builtin, helper) = match clock {
            "monotonic" => (Builtin::Nsecs, sonde_bpf::helper::KTIME_GET_NS),
            "boot" => (Builtin::NsecsBoot, sonde_bpf::helper::KTIME_GET_BOOT_NS),
            "tai" => (Builtin::NsecsTai, sonde_bpf::helper::KTIME_GET_TAI_NS),
            other => {
                let msg = format!(
                    "nsecs() reads the clock `monotonic`, `boot` or `tai`, not `{}`",
                    other
                );
                self.error(Diagnostic::error(c.args[0].span, msg));
                return self.poisoned(c.span);
            }
        };
        if !self.env.has_helper(helper) {
            let msg = format!(
                "nsecs({}) needs a newer kernel (boot: Linux 5.8, tai: 6.1): this one lacks the helper",
                clock
            );
            self.error(Diagnostic::error(c.span, msg));
            return self.poisoned(c.span);
        }
        TExpr { kind: TExprKind::Builtin(builtin), ty: Type::U64, span: c.span }
    }

    /// `pid(curr_ns)` (as `pid`), `pid(init)`, and `tid(...)` likewise.
    pub(super) fn task_id_of(&mut self, c: &Call, thread: bool) -> TExpr {
        let ns = match c.args {
            [] => "curr_ns",
            [Expr { kind: ExprKind::Ident(name), .. }] => name.as_str(),
            _ => return self.usage(c),
        };
        let init = match ns {
            "curr_ns" => false,
            "init" => true,
            other => {
                let msg = format!(
                    "{}() sees ids from the pid namespace `curr_ns` (sonde's) or `init`, not `{}`",
                    c.name, other
                );
                self.error(Diagnostic::error(c.args[0].span, msg));
                return self.poisoned(c.span);
            }
        };
        self.task_id(thread, init, c.span)
    }

    /// The current process's (or with `thread`, thread's) id, from sonde's own pid namespace
    /// unless `init`: bpf_get_ns_current_pid_tgid where sonde runs in a namespace of its own.
    pub(in crate::sema) fn task_id(&mut self, thread: bool, init: bool, span: Span) -> TExpr {
        let own = self.opts.pid_namespace.is_some() && !init;
        let b = match (own, thread) {
            (true, false) => Builtin::NsPid,
            (true, true) => Builtin::NsTid,
            (false, false) => Builtin::Pid,
            (false, true) => Builtin::Tid,
        };
        if own && !self.env.has_helper(sonde_bpf::helper::GET_NS_CURRENT_PID_TGID) {
            let msg = "sonde runs in a pid namespace of its own: ids as seen from it need the kernel's bpf_get_ns_current_pid_tgid (Linux 5.7), which this kernel lacks";
            let help = "write `pid(init)` or `tid(init)` for the ids of the initial namespace";
            self.error(Diagnostic::error(span, msg).with_help(help));
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::Builtin(b), ty: Type::U32, span }
    }

    /// `strlen(s)`: `len()` of a string.
    pub(super) fn strlen(&mut self, c: &Call) -> TExpr {
        let s = self.expr(&c.args[0]);
        if !s.ty.is_string() {
            let msg = format!("strlen() measures a string, found `{}`", s.ty);
            self.error(Diagnostic::error(s.span, msg));
            return self.poisoned(c.span);
        }
        TExpr { kind: TExprKind::StrLen(Box::new(s)), ty: Type::U64, span: c.span }
    }

    /// `pton("127.0.0.1")`: an IPv4 address as the integer whose bytes in memory are the
    /// address (what `ntop()` takes), an IPv6 address as its 16 bytes.
    pub(super) fn pton(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Str(text), span }] = c.args else {
            return self.usage(c);
        };
        let text = String::from_utf8_lossy(text);
        match text.parse::<std::net::IpAddr>() {
            Ok(std::net::IpAddr::V4(a)) => {
                let v = u32::from_le_bytes(a.octets()) as u64;
                TExpr { kind: TExprKind::Int(v), ty: Type::U32, span: c.span }
            }
            Ok(std::net::IpAddr::V6(a)) => {
                let kind = TExprKind::Str(a.octets().to_vec());
                TExpr { kind, ty: Type::Bytes(16), span: c.span }
            }
            Err(_) => {
                let msg = format!("pton(): `{}` is not an IPv4 or IPv6 address", text);
                self.error(Diagnostic::error(*span, msg));
                self.poisoned(c.span)
            }
        }
    }

    /// `macaddr(a)`: the first 6 bytes of a string, bytes or byte array (`char mac[6]`).
    pub(super) fn macaddr(&mut self, c: &Call) -> TExpr {
        let a = self.expr(&c.args[0]);
        let bytes = match &a.ty {
            Type::Str(n) | Type::Bytes(n) => *n,
            Type::Array { elem, len } if elem.size() == 1 => *len,
            _ => 0,
        };
        if bytes < 6 {
            let msg = format!("macaddr() needs 6 bytes (like `char mac[6]`), found `{}`", a.ty);
            self.error(Diagnostic::error(a.span, msg));
            return self.poisoned(c.span);
        }
        TExpr { ty: Type::MacAddr, span: c.span, ..a }
    }

    /// bpftrace's `usermode`: 1 when the probe fired in user mode. BEGIN and END run in
    /// sonde's own process; kprobes, uprobes and perf events read the privilege level of the
    /// code segment they stopped (`regs->cs & 3`, x86-64); the others fire in the kernel.
    pub(in crate::sema) fn usermode(&mut self, span: Span) -> TExpr {
        const CS: usize = 136;
        let bin = |op, lhs: TExpr, rhs: u64| TExpr {
            kind: TExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(TExpr::const_s64(rhs as i64, span)),
            },
            ty: Type::U64,
            span,
        };
        match self.sites.first().map(|s| s.kind) {
            Some(ProgKind::RawTracepoint) => TExpr { ty: Type::U8, ..TExpr::const_s64(1, span) },
            Some(ProgKind::Kprobe | ProgKind::PerfEvent) => {
                let cs = TExpr { kind: TExprKind::CtxLoad { offset: CS }, ty: Type::U64, span };
                let ring = bin(BinOp::BitAnd, cs, 3);
                TExpr { ty: Type::U8, ..bin(BinOp::Eq, ring, 3) }
            }
            _ => TExpr { ty: Type::U8, ..TExpr::const_s64(0, span) },
        }
    }

    /// `buf("text", n)`: the literal's first `n` bytes (a constant `n`, its length by default),
    /// laid out as `buf()` reads memory: the length, then the bytes.
    pub(super) fn literal_buf(&mut self, c: &Call, text: Vec<u8>) -> TExpr {
        let n = match c.args.get(1) {
            None => text.len(),
            Some(l) => match crate::sema::stmt::constant(l) {
                Some(n) if n >= 0 && n as usize <= text.len() + 1 => n as usize,
                _ => {
                    let msg = format!(
                        "buf() of a string literal takes a constant length, 0 to {}",
                        text.len() + 1
                    );
                    self.error(Diagnostic::error(l.span, msg));
                    return self.poisoned(c.span);
                }
            },
        };
        let mut bytes = (n as u64).to_le_bytes().to_vec();
        bytes.extend(text.iter().copied().chain(std::iter::once(0)).take(n));
        TExpr { kind: TExprKind::Str(bytes), ty: Type::Buf(n), span: c.span }
    }

    /// bpftrace's `probetype`: the provider of the probe's site (a program per site names it),
    /// `special` for BEGIN and END.
    pub(in crate::sema) fn probe_type(&mut self, span: Span) -> TExpr {
        use crate::model::site::AttachPoint as P;
        let name = match self.sites.first().map(|s| &s.point) {
            Some(P::Begin | P::End) | None => "special",
            Some(P::Signal { .. }) => "signal",
            Some(P::Bench { .. }) => "benchmark",
            Some(P::Tracepoint { .. }) => "tracepoint",
            Some(P::Interval { .. }) => "interval",
            Some(P::Kprobe { retprobe: false, .. }) => "kprobe",
            Some(P::Kprobe { retprobe: true, .. }) => "kretprobe",
            Some(P::Uprobe { retprobe: false, .. }) => "uprobe",
            Some(P::Uprobe { retprobe: true, .. }) => "uretprobe",
            Some(P::Fentry { exit: false, .. }) => "fentry",
            Some(P::Fentry { exit: true, .. }) => "fexit",
            Some(P::RawTracepoint { .. }) => "rawtracepoint",
            Some(P::Profile { .. }) => "profile",
            Some(P::Software { .. }) => "software",
            Some(P::Hardware { .. }) => "hardware",
            Some(P::Watchpoint { .. }) => "watchpoint",
            Some(P::Iter { .. }) => "iter",
        };
        TExpr::const_str(name.as_bytes().to_vec(), span)
    }

    /// `signal_name(n)`: the number, printed as strsignal(3)'s text.
    pub(super) fn signal_name(&mut self, c: &Call) -> TExpr {
        let n = self.scalar(&c.args[0], "the signal number of signal_name()");
        TExpr { kind: TExprKind::Cast(Box::new(n)), ty: Type::SignalName, span: c.span }
    }
}
