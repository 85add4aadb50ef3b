//! bpftrace's `strcontains(haystack, needle)`.

use super::spec::Call;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::diag::Diagnostic;

/// Byte pairs the unrolled search may compare at most (two 64-byte strings), which keeps the
/// program's jumps within BPF's 16-bit offsets.
const MAX_PAIRS: usize = 64 * 64;

impl Checker<'_> {
    /// `strcontains(a, b)`: both strings; their sizes bound the unrolled search.
    pub(super) fn str_contains(&mut self, c: &Call) -> TExpr {
        let Some((hay, needle)) = self.string_pair(c, "searches", MAX_PAIRS) else {
            return self.poisoned(c.span);
        };
        let kind = TExprKind::StrContains(Box::new(hay), Box::new(needle));
        TExpr { kind, ty: Type::Bool, span: c.span }
    }

    /// The two string arguments of a call unrolled over both (`what` it does to strings, in
    /// the error), when their sizes multiplied are at most `max_pairs`.
    pub(super) fn string_pair(
        &mut self,
        c: &Call,
        what: &str,
        max_pairs: usize,
    ) -> Option<(TExpr, TExpr)> {
        let a = self.expr(&c.args[0]);
        let b = self.expr(&c.args[1]);
        for x in [&a, &b] {
            if !x.ty.is_string() {
                let msg = format!("{}() {} strings, found `{}`", c.name, what, x.ty);
                self.error(Diagnostic::error(x.span, msg));
                return None;
            }
        }
        if a.ty.size() * b.ty.size() > max_pairs {
            let msg = format!(
                "{}() of strings of {} and {} bytes is too large to unroll: read them shorter, like `str(p, 64)`",
                c.name,
                a.ty.size(),
                b.ty.size()
            );
            self.error(Diagnostic::error(c.span, msg));
            return None;
        }
        Some((a, b))
    }
}
