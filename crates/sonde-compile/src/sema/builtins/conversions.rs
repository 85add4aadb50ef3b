//! bpftrace's values printed as text that user space finds (`syscall_name`, `cgroup_path`,
//! `strerror`, `ntop`), and `bswap`.

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `syscall_name(nr)`, `cgroup_path(id)`, `strerror(n)`: the integer, printed as text as the
    /// type the registry gives it says.
    pub(super) fn printed_as(&mut self, c: &Call) -> TExpr {
        let x = self.scalar(&c.args[0], &format!("the argument of {}()", c.name));
        let ty = c.spec.fixed_type().cloned().unwrap_or(Type::U64);
        TExpr { kind: TExprKind::Cast(Box::new(x)), ty, span: c.span }
    }

    /// `bswap(x)`: the bytes of x's type in reverse order.
    pub(super) fn bswap(&mut self, c: &Call) -> TExpr {
        let x = self.scalar(&c.args[0], "the argument of bswap()");
        let bytes = x.ty.size().clamp(1, 8) as u8;
        let ty = Type::Int { bytes, signed: false };
        TExpr { kind: TExprKind::Bswap { arg: Box::new(x), bytes }, ty, span: c.span }
    }

    /// `ntop(addr)` and `ntop(family, addr)`: an integer is an IPv4 address (AF_INET), 16 bytes
    /// an IPv6 one (AF_INET6), as bpftrace decides.
    pub(super) fn ntop(&mut self, c: &Call) -> TExpr {
        const AF_INET: u64 = 2;
        const AF_INET6: u64 = 10;
        let span = c.span;
        let (family, addr) = match c.args {
            [addr] => (None, addr),
            [family, addr] => (Some(self.scalar(family, "the address family of ntop()")), addr),
            _ => return self.usage(c),
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
}
