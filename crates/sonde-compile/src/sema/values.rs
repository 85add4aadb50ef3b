//! bpftrace's value builtins: `has_key(@m, k)`, `delete(@m, k)` as a value, `kaddr("sym")`,
//! `ppid` and kernel enum constants (`TCP_FIN_WAIT1`).

use super::check::Checker;
use super::tir::{Builtin, TExpr, TExprKind};
use crate::types::Type;
use sonde_syntax::ast::{Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A name that is none of the language's variables: `ppid`, or a kernel enum constant.
    pub fn value_ident(&mut self, name: &str, span: Span) -> Option<TExpr> {
        match name {
            "ppid" => return Some(self.curtask_path(&["real_parent", "tgid"], name, span)),
            "cgroup" | "numaid" | "rand" | "jiffies" => {
                let (b, ty) = match name {
                    "cgroup" => (Builtin::Cgroup, Type::U64),
                    "numaid" => (Builtin::NumaId, Type::U32),
                    "jiffies" => (Builtin::Jiffies, Type::U64),
                    _ => (Builtin::Rand, Type::U32),
                };
                return Some(TExpr { kind: TExprKind::Builtin(b), ty, span });
            }
            "username" => return Some(self.username(span)),
            "pcomm" => return Some(self.curtask_path(&["group_leader", "comm"], name, span)),
            "ncpus" => {
                let Some(n) = self.env.online_cpus() else {
                    self.error(Diagnostic::error(span, "`ncpus` needs the number of online CPUs, which this system does not say (/sys/devices/system/cpu/online)"));
                    return Some(self.poisoned(span));
                };
                return Some(TExpr { kind: TExprKind::Int(u64::from(n)), ty: Type::U32, span });
            }
            _ => {}
        }
        let (value, _) = self.env.btf().ok()?.enumerator(name)?;
        Some(TExpr { kind: TExprKind::Int(value as u64), ty: Type::S64, span })
    }

    /// A variable read through the current task: bpftrace's `ppid` is
    /// `curtask->real_parent->tgid`, its `pcomm` `curtask->group_leader->comm`.
    fn curtask_path(&mut self, path: &[&str], name: &str, span: Span) -> TExpr {
        let spelled = format!("curtask->{}", path.join("->"));
        if let Err(e) = self.env.btf() {
            self.error(Diagnostic::error(span, format!("`{}` reads {}, but {}", name, spelled, e)));
            return self.poisoned(span);
        }
        let mut e = Expr { kind: ExprKind::Ident("curtask".into()), span };
        for field in path {
            let kind = ExprKind::Member { expr: Box::new(e), field: (*field).into(), arrow: true };
            e = Expr { kind, span };
        }
        self.expr(&e)
    }

    /// Calls that are bpftrace's value builtins; `None` when `name` is none of them.
    pub fn value_call(&mut self, name: &str, args: &[Expr], span: Span) -> Option<TExpr> {
        match name {
            "has_key" | "delete" => Some(self.map_element_call(name, args, span)),
            "kaddr" => Some(self.kaddr(args, span)),
            "getopt" => Some(self.getopt(args, span)),
            "syscall_name" => Some(self.syscall_name(args, span)),
            "ntop" => Some(self.ntop(args, span)),
            "sizeof" => Some(self.size_of(args, span)),
            "len" => Some(self.len(args, span)),
            "kstack" | "ustack" | "stack" => Some(self.stack_call(name, args, span)),
            "buf" => Some(self.buf(args, span)),
            "offsetof" => Some(self.offset_of(args, span)),
            "bswap" => {
                let [x] = args else {
                    self.error(Diagnostic::error(span, "bswap() takes one integer"));
                    return Some(self.poisoned(span));
                };
                let x = self.scalar(x, "the argument of bswap()");
                let bytes = x.ty.size().clamp(1, 8) as u8;
                let ty = Type::Int { bytes, signed: false };
                Some(TExpr { kind: TExprKind::Bswap { arg: Box::new(x), bytes }, ty, span })
            }
            "cgroup_path" | "strerror" => {
                let (ty, example) = match name {
                    "cgroup_path" => (Type::CgroupPath, "cgroup_path(cgroup)"),
                    _ => (Type::Strerror, "strerror(-args.ret)"),
                };
                let [x] = args else {
                    let msg = format!("{}() takes one integer, like `{}`", name, example);
                    self.error(Diagnostic::error(span, msg));
                    return Some(self.poisoned(span));
                };
                let x = self.scalar(x, &format!("the argument of {}()", name));
                Some(TExpr { kind: TExprKind::Cast(Box::new(x)), ty, span })
            }
            _ => None,
        }
    }

    /// `has_key(@m, k...)`: 1 when the element is present; `delete(@m, k...)`: removes it, 1 when
    /// it was there.
    fn map_element_call(&mut self, name: &str, args: &[Expr], span: Span) -> TExpr {
        let Some((map, keys)) = self.map_and_keys(name, args, span) else {
            return self.poisoned(span);
        };
        let kind = if name == "has_key" {
            TExprKind::MapHas { map, keys }
        } else {
            TExprKind::MapDelete { map, keys }
        };
        TExpr { kind, ty: Type::S64, span }
    }

    /// The map and typed keys of `f(@m, k1, k2)`, as bpftrace spells an element in `has_key` and
    /// `delete`.
    pub fn map_and_keys(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Option<(usize, Vec<TExpr>)> {
        match args {
            [Expr { kind: ExprKind::Map { name: m, keys }, span: mspan }, rest @ ..]
                if keys.is_empty() && !rest.is_empty() =>
            {
                let map = self.maps.get_or_create(m, *mspan);
                let key_span = rest[0].span.to(rest[rest.len() - 1].span);
                Some((map, self.map_keys(map, rest, key_span)))
            }
            _ => {
                self.error(Diagnostic::error(
                    span,
                    format!("{}() takes a map and its key, like `{}(@m, pid)`", name, name),
                ));
                None
            }
        }
    }

    /// `ntop(addr)` and `ntop(family, addr)`: an integer is an IPv4 address (AF_INET), 16 bytes
    /// an IPv6 one (AF_INET6), as bpftrace decides.
    fn ntop(&mut self, args: &[Expr], span: Span) -> TExpr {
        const AF_INET: u64 = 2;
        const AF_INET6: u64 = 10;
        let (family, addr) = match args {
            [addr] => (None, addr),
            [family, addr] => (Some(self.scalar(family, "the address family of ntop()")), addr),
            _ => {
                self.error(Diagnostic::error(
                    span,
                    "ntop() takes an address and an optional family first, like `ntop(AF_INET, addr)`",
                ));
                return self.poisoned(span);
            }
        };
        let a = self.expr(addr);
        let implied = match &a.ty {
            t if t.is_scalar() => AF_INET,
            Type::Str(16) | Type::Bytes(16) => AF_INET6,
            Type::Array { elem, len } if elem.size() * len == 16 => AF_INET6,
            t => {
                self.error(Diagnostic::error(
                    addr.span,
                    format!("ntop() needs an IPv4 address (an integer) or 16 bytes of IPv6 address, found `{}`", t),
                ));
                return self.poisoned(span);
            }
        };
        let family = family.unwrap_or(TExpr { kind: TExprKind::Int(implied), ty: Type::U64, span });
        TExpr {
            kind: TExprKind::Inet { family: Box::new(family), addr: Box::new(a) },
            ty: Type::Inet,
            span,
        }
    }

    /// `len(str)`, the string's length; bpftrace's `len(@map)` is the map's element count.
    fn len(&mut self, args: &[Expr], span: Span) -> TExpr {
        let [arg] = args else {
            self.error(Diagnostic::error(
                span,
                "len() takes one string, map or stack, like `len(comm)`, `len(@m)` or `len(ustack)`",
            ));
            return self.poisoned(span);
        };
        if let ExprKind::Map { name, keys } = &arg.kind {
            if keys.is_empty() {
                return self.map_len(name, arg.span, span);
            }
        }
        // `len(kstack)`: measured where it is taken, with no stack map of its own.
        let stacks = self.stacks.clone();
        let s = self.expr(arg);
        if let (
            TExprKind::Builtin(Builtin::KStack | Builtin::UStack),
            &Type::Stack { user, frames, .. },
        ) = (&s.kind, &s.ty)
        {
            self.stacks = stacks;
            self.stack_len_frames = self.stack_len_frames.max(frames);
            return TExpr { kind: TExprKind::StackLen { user, frames }, ty: Type::U64, span };
        }
        if let Type::Stack { user, .. } = s.ty {
            let which = if user { "ustack" } else { "kstack" };
            let d = Diagnostic::error(
                arg.span,
                format!("len() measures a stack where it is taken: write `len({which})` (or `len({which}(N))`)"),
            )
            .with_help("a stored stack is an id in the kernel's stack map, which a probe cannot read");
            self.error(d);
            return self.poisoned(span);
        }
        if !s.ty.is_string() {
            let msg = format!("len() takes a string, found `{}`", s.ty);
            self.error(Diagnostic::error(arg.span, msg));
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::StrLen(Box::new(s)), ty: Type::U64, span }
    }

    /// `buf(ptr, len)`: up to the string size (64 bytes by default) of raw memory, printed by
    /// `%r` (or `%s`) with non-printable bytes as `\xNN`. Without `len`, the whole size.
    fn buf(&mut self, args: &[Expr], span: Span) -> TExpr {
        let max = self.opts.string_size;
        let (ptr, len) = match args {
            [p] => (p, None),
            [p, l] => (p, Some(l)),
            _ => {
                self.error(Diagnostic::error(
                    span,
                    "buf() takes an address and a length, like `buf(args.buf, args.count)`",
                ));
                return self.poisoned(span);
            }
        };
        let p = self.expr(ptr);
        let user = match &p.ty {
            Type::Ptr { user, .. } => *user,
            Type::Int { .. } => {
                self.sites.first().is_some_and(crate::provider::Site::reads_user_memory)
            }
            t => {
                let msg = format!("buf() needs an address, found `{}`", t);
                self.error(Diagnostic::error(ptr.span, msg));
                return self.poisoned(span);
            }
        };
        let len = match len {
            Some(l) => self.scalar(l, "the length of buf()"),
            None => TExpr { kind: TExprKind::Int(max as u64), ty: Type::U64, span },
        };
        let kind = TExprKind::ReadBuf { ptr: Box::new(p), len: Box::new(len), user };
        TExpr { kind, ty: Type::Buf(max), span }
    }

    /// `kaddr("sym")`: the kernel symbol's address from kallsyms, a constant.
    fn kaddr(&mut self, args: &[Expr], span: Span) -> TExpr {
        let [Expr { kind: ExprKind::Str(sym), .. }] = args else {
            self.error(Diagnostic::error(
                span,
                "kaddr() takes a symbol name as a string literal, like `kaddr(\"jiffies\")`",
            ));
            return self.poisoned(span);
        };
        let sym = String::from_utf8_lossy(sym).into_owned();
        match self.env.kernel_symbol_address(&sym) {
            Some(addr) => TExpr { kind: TExprKind::Int(addr), ty: Type::U64, span },
            None => {
                self.error(Diagnostic::error(
                    span,
                    format!(
                        "kaddr(): `{}` is not in /proc/kallsyms (data symbols are listed only with CONFIG_KALLSYMS_ALL)",
                        sym
                    ),
                ));
                self.poisoned(span)
            }
        }
    }
}
