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
            "ppid" => return Some(self.ppid(span)),
            "cgroup" => {
                let kind = TExprKind::Builtin(Builtin::Cgroup);
                return Some(TExpr { kind, ty: Type::U64, span });
            }
            _ => {}
        }
        let (value, _) = self.env.btf().ok()?.enumerator(name)?;
        Some(TExpr { kind: TExprKind::Int(value as u64), ty: Type::S64, span })
    }

    /// bpftrace's `ppid`: the parent's process id, `curtask->real_parent->tgid`.
    fn ppid(&mut self, span: Span) -> TExpr {
        if let Err(e) = self.env.btf() {
            self.error(Diagnostic::error(
                span,
                format!("`ppid` reads curtask->real_parent->tgid, but {}", e),
            ));
            return self.poisoned(span);
        }
        let node = |kind| Box::new(Expr { kind, span });
        let member =
            |expr, field: &str| ExprKind::Member { expr, field: field.into(), arrow: true };
        let curtask = node(ExprKind::Ident("curtask".into()));
        let parent = node(member(curtask, "real_parent"));
        self.expr(&Expr { kind: member(parent, "tgid"), span })
    }

    /// Calls that are bpftrace's value builtins; `None` when `name` is none of them.
    pub fn value_call(&mut self, name: &str, args: &[Expr], span: Span) -> Option<TExpr> {
        match name {
            "has_key" | "delete" => Some(self.map_element_call(name, args, span)),
            "kaddr" => Some(self.kaddr(args, span)),
            "ntop" => Some(self.ntop(args, span)),
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
            "cgroup_path" => {
                let [id] = args else {
                    self.error(Diagnostic::error(
                        span,
                        "cgroup_path() takes one cgroup id, like `cgroup_path(cgroup)`",
                    ));
                    return Some(self.poisoned(span));
                };
                let id = self.scalar(id, "the cgroup id of cgroup_path()");
                Some(TExpr { kind: TExprKind::Cast(Box::new(id)), ty: Type::CgroupPath, span })
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
