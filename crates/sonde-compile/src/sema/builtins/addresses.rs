//! Addresses: ply's `uptr(p)` and bpftrace's `kptr(p)` (which memory a pointer is in), `ksym`
//! and `usym` (printed as symbols), bpftrace's `reg("ip")`, `kaddr("sym")`, `uaddr("sym")` and
//! `buf(p, len)`.

use super::spec::Call;
use crate::model::site::Site;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// ply's `uptr(p)`: `p` points into the process's memory, so every read through it (`str`,
    /// `mem`, `->`) uses the user-memory helpers; bpftrace's `kptr(p)` says kernel memory. The
    /// value is unchanged; an integer becomes an untyped pointer.
    pub(super) fn address_space(&mut self, c: &Call) -> TExpr {
        let user = c.name == "uptr";
        let a = self.expr(&c.args[0]);
        let to = match &a.ty {
            Type::Ptr { to, .. } => to.clone(),
            Type::Int { .. } => Box::new(Type::Void),
            t => {
                let msg = format!("{}() needs a pointer or an address, found `{}`", c.name, t);
                self.error(Diagnostic::error(c.args[0].span, msg));
                return self.poisoned(c.span);
            }
        };
        TExpr { ty: Type::Ptr { to, user }, span: c.span, ..a }
    }

    /// `ksym(addr)`, `usym(addr)`: the address, printed as a kernel or user symbol.
    pub(super) fn symbol(&mut self, c: &Call) -> TExpr {
        let a = self.scalar(&c.args[0], &format!("the argument of {}()", c.name));
        let ty = if c.name == "ksym" { Type::Sym } else { Type::USym };
        TExpr { kind: TExprKind::Cast(Box::new(a)), ty, span: c.span }
    }

    /// bpftrace's `reg("ip")`: the named register of a kprobe's or uprobe's registers, at its
    /// fixed offset in `struct pt_regs` (no BTF needed).
    pub(super) fn register(&mut self, c: &Call) -> TExpr {
        use crate::arch::x86_64::REGISTERS;
        let [Expr { kind: ExprKind::Str(reg), span: at }] = c.args else {
            return self.usage(c);
        };
        let reg = String::from_utf8_lossy(reg);
        let Some(&(_, offset)) = REGISTERS.iter().find(|(n, _)| *n == reg) else {
            let names: Vec<&str> = REGISTERS.iter().map(|(n, _)| *n).collect();
            let d = Diagnostic::error(*at, format!("x86-64 has no register `{}`", reg))
                .with_help(format!("the registers are {}", names.join(", ")));
            self.error(d);
            return self.poisoned(c.span);
        };
        // Only where the context is the registers: `regs` says so where it is not.
        let regs = Expr { kind: ExprKind::Ident("regs".into()), span: c.span };
        if self.expr_or_poison(&regs).is_none() {
            return self.poisoned(c.span);
        }
        TExpr { kind: TExprKind::CtxLoad { offset }, ty: Type::U64, span: c.span }
    }

    /// `kaddr("sym")`: the kernel symbol's address from kallsyms, a constant.
    pub(super) fn kaddr(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Str(sym), .. }] = c.args else {
            return self.usage(c);
        };
        let sym = String::from_utf8_lossy(sym).into_owned();
        let Some(addr) = self.env.kernel_symbol_address(&sym) else {
            let msg = format!(
                "kaddr(): `{}` is not in /proc/kallsyms (data symbols are listed only with CONFIG_KALLSYMS_ALL)",
                sym
            );
            self.error(Diagnostic::error(c.span, msg));
            return self.poisoned(c.span);
        };
        TExpr { kind: TExprKind::Int(addr), ty: Type::U64, span: c.span }
    }

    /// `percpu_kaddr("sym"[, cpu])`: a per-CPU kernel variable's address on CPU `cpu` (the
    /// current one without), typed as a kernel pointer to the variable's type. The variable is
    /// found in the kernel's BTF; the verifier finds its address (a `ksym`).
    pub(super) fn percpu_kaddr(&mut self, c: &Call) -> TExpr {
        let Some(Expr { kind: ExprKind::Str(sym), .. }) = c.args.first() else {
            return self.usage(c);
        };
        let sym = String::from_utf8_lossy(sym).into_owned();
        let found = match self.env.btf() {
            Ok(btf) => btf.find_var(&sym).map(|(var, ty)| {
                let to = crate::btf_types::convert(btf, ty);
                (var, btf.is_percpu_var(var), Type::Ptr { to: Box::new(to), user: false })
            }),
            Err(e) => {
                self.error(Diagnostic::error(c.span, format!("percpu_kaddr(): {}", e)));
                return self.poisoned(c.span);
            }
        };
        let (var, ty) = match found {
            Some((var, true, ty)) => (var, ty),
            Some(_) => {
                let msg = format!(
                    "percpu_kaddr(): `{}` is a kernel variable, but not a per-CPU one",
                    sym
                );
                self.error(Diagnostic::error(c.span, msg).with_help("kaddr() gives its address"));
                return self.poisoned(c.span);
            }
            None => {
                let msg = format!("percpu_kaddr(): the kernel's BTF has no variable `{}`", sym);
                self.error(Diagnostic::error(c.span, msg));
                return self.poisoned(c.span);
            }
        };
        // The verifier looks the address up in kallsyms, which lists data only with
        // CONFIG_KALLSYMS_ALL.
        if self.env.kernel_symbol_exists(&sym) == Some(false) {
            let msg = format!(
                "percpu_kaddr(): `{}` is not in /proc/kallsyms, where the verifier finds a kernel variable's address (this kernel lists variables only with CONFIG_KALLSYMS_ALL)",
                sym
            );
            self.error(Diagnostic::error(c.span, msg));
            return self.poisoned(c.span);
        }
        let cpu = c.args.get(1).map(|a| Box::new(self.scalar(a, "the CPU of percpu_kaddr()")));
        TExpr { kind: TExprKind::PercpuAddr { var: var.0, cpu }, ty, span: c.span }
    }

    /// `uaddr("sym")`: the address of a symbol of the uprobe's executable, a constant pointer
    /// to user memory typed by the symbol's size (an unsigned integer of 1, 2, 4 or 8 bytes;
    /// a byte otherwise).
    pub(super) fn uaddr(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Str(sym), .. }] = c.args else {
            return self.usage(c);
        };
        let sym = String::from_utf8_lossy(sym).into_owned();
        let Some(binary) = self.user_binary() else {
            let msg = "uaddr() reads a symbol of the probed executable: use it in uprobes of one executable";
            self.error(Diagnostic::error(c.span, msg));
            return self.poisoned(c.span);
        };
        let (addr, size) = match self.env.user_symbol_address(&binary, &sym) {
            Ok(found) => found,
            Err(e) => {
                self.error(Diagnostic::error(c.span, format!("uaddr(\"{}\"): {}", sym, e)));
                return self.poisoned(c.span);
            }
        };
        let bytes = if matches!(size, 1 | 2 | 4 | 8) { size as u8 } else { 1 };
        let to = Box::new(Type::Int { bytes, signed: false });
        TExpr { kind: TExprKind::Int(addr), ty: Type::Ptr { to, user: true }, span: c.span }
    }

    /// `buf(ptr, len)`: up to a string's slot (64 bytes by default) of raw memory, printed by
    /// `%r` (or `%s`) with non-printable bytes as `\xNN`. Without `len`, the whole size.
    pub(super) fn buf(&mut self, c: &Call) -> TExpr {
        let max = self.opts.string_size + 1;
        let p = self.expr(&c.args[0]);
        if let TExprKind::Str(text) = &p.kind {
            return self.literal_buf(c, text.clone());
        }
        // An array member read through a pointer (`buf($s.arr)`): its bytes where they are,
        // all of them unless a length is given.
        let (p, whole) = match (p.kind, p.ty) {
            (TExprKind::Read { ptr, offset, user }, t @ (Type::Str(_) | Type::Array { .. })) => {
                let span = ptr.span;
                let at = TExpr::const_s64(offset, span);
                let to = Box::new(Type::U8);
                let addr = TExprKind::Binary { op: BinOp::Add, lhs: ptr, rhs: Box::new(at) };
                (TExpr { kind: addr, ty: Type::Ptr { to, user }, span }, Some(t.size()))
            }
            (kind, ty) => (TExpr { kind, ty, span: p.span }, None),
        };
        let max = whole.map_or(max, |n| n.max(max));
        let user = match &p.ty {
            Type::Ptr { user, .. } => *user,
            Type::Int { .. } => self.sites.first().is_some_and(Site::reads_user_memory),
            t => {
                let msg = format!("buf() needs an address, found `{}`", t);
                self.error(Diagnostic::error(c.args[0].span, msg));
                return self.poisoned(c.span);
            }
        };
        let len = match c.args.get(1) {
            Some(l) => self.scalar(l, "the length of buf()"),
            None => {
                let n = whole.unwrap_or(max) as u64;
                TExpr { kind: TExprKind::Int(n), ty: Type::U64, span: c.span }
            }
        };
        let kind = TExprKind::ReadBuf { ptr: Box::new(p), len: Box::new(len), user };
        TExpr { kind, ty: Type::Buf(max), span: c.span }
    }
}
