//! bpftrace's `join(arr[, sep])`: the strings of a NULL-ended array of string pointers (an exec's
//! `args.argv`) printed on one line with `sep` (a space by default) between them. As in
//! bpftrace, the strings are read in the kernel, at most `JOIN_ARGS` of at most `JOIN_ARG_SIZE`
//! bytes each (`lower/join.rs`), and joined by user space when the record is printed.

use super::spec::Call;
use crate::model::tir::{EventDef, EventKind, TStmtKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    pub(super) fn join(&mut self, c: &Call) -> Option<TStmtKind> {
        let (arr, sep) = match c.args {
            [arr] => (arr, b" ".to_vec()),
            [arr, Expr { kind: ExprKind::Str(sep), .. }] => (arr, sep.clone()),
            _ => return self.usage_error(c),
        };
        let a = self.expr(arr);
        let user = match &a.ty {
            // Any pointer is taken as the array's address (`const char *const * argv`).
            Type::Ptr { user, .. } => *user,
            Type::Int { bytes: 8, .. } => {
                self.sites.first().is_some_and(crate::model::site::Site::reads_user_memory)
            }
            t => {
                let msg = format!(
                    "join() needs an array of string pointers (`char **`, like `args.argv`), found `{}`",
                    t
                );
                self.error(Diagnostic::error(arr.span, msg));
                return None;
            }
        };
        let event = self.add_event(EventDef { kind: EventKind::Join { sep }, args: vec![] });
        Some(TStmtKind::Join { event, arr: a, user })
    }
}
