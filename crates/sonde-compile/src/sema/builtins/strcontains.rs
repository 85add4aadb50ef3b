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
        let hay = self.expr(&c.args[0]);
        let needle = self.expr(&c.args[1]);
        for x in [&hay, &needle] {
            if !x.ty.is_string() {
                let msg = format!("strcontains() searches strings, found `{}`", x.ty);
                self.error(Diagnostic::error(x.span, msg));
                return self.poisoned(c.span);
            }
        }
        if hay.ty.size() * needle.ty.size() > MAX_PAIRS {
            let msg = format!(
                "strcontains() of strings of {} and {} bytes is too large to unroll: read them shorter, like `str(p, 64)`",
                hay.ty.size(),
                needle.ty.size()
            );
            self.error(Diagnostic::error(c.span, msg));
            return self.poisoned(c.span);
        }
        let kind = TExprKind::StrContains(Box::new(hay), Box::new(needle));
        TExpr { kind, ty: Type::Bool, span: c.span }
    }
}
