//! Strings and bytes from memory (`str`, ply's `dyn`, `mem`), comparisons (`strcmp`, bpftrace's
//! `strncmp`) and bpftrace's `strftime`.

use super::spec::Call;
use crate::model::site::Site;
use crate::model::tir::{StrRead, TExpr, TExprKind};
use crate::model::types::Type;
use crate::sema::check::Checker;
use sonde_syntax::ast::{Expr, ExprKind};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// `str(addr[, size])`, `dyn(...)`, `mem(addr[, size])`; `str($N)` is a parameter's text.
    pub(super) fn read_string(&mut self, c: &Call) -> TExpr {
        let span = c.span;
        if let ("str", [arg]) = (c.name, c.args) {
            if crate::sema::spec_params::is_param_plus_const(arg) {
                return self.positional_str_offset(arg, span);
            }
            if let Some(text) = self.positional_str(arg, span) {
                return text;
            }
        }
        let max = self.opts.string_size;
        let (size, len) = match (c.name, c.args.get(1)) {
            (_, None) => (max, StrRead::Whole),
            // bpftrace reads at most max_strlen + 1 bytes, whatever size is asked.
            ("str", Some(Expr { kind: ExprKind::Int(n), .. })) if *n > 0 => match *n as usize {
                n if n <= max => (n, StrRead::Exact),
                _ => (max, StrRead::Whole),
            },
            (_, Some(Expr { kind: ExprKind::Int(n), .. })) if *n > 0 && *n <= 256 => {
                (*n as usize, StrRead::Exact)
            }
            ("str", Some(e)) if crate::sema::stmt::constant(e).is_none() => {
                let n = self.scalar(e, "the size of str()");
                (max, StrRead::Bounded(Box::new(n)))
            }
            (_, Some(e)) => {
                let msg = "the size must be a constant between 1 and 256";
                self.error(Diagnostic::error(e.span, msg));
                return self.poisoned(span);
            }
        };
        let a = self.expr(&c.args[0]);
        self.read_from(c, a, size, len)
    }

    /// What `str`/`mem` make of their address `a`.
    fn read_from(&mut self, c: &Call, a: TExpr, size: usize, len: StrRead) -> TExpr {
        let bytes = c.name == "mem";
        let user = match (&a.ty, &a.kind) {
            // Already a string (a char array field, a __data_loc field, comm): keep it, resized.
            (Type::Str(_), _) if !bytes => {
                return TExpr { ty: Type::Str(size.min(a.ty.size().max(1))), ..a };
            }
            (Type::Str(_), TExprKind::CtxDataLoc { .. }) => {
                return TExpr { ty: Type::Bytes(size), ..a };
            }
            (Type::Ptr { user, .. }, _) => *user,
            // An integer address: the process's memory in uprobes; elsewhere (a kprobe
            // argument) kernel or user, as the address says.
            (Type::Int { .. }, _) => self.sites.first().is_some_and(Site::reads_user_memory),
            (t, _) => {
                let msg = format!("{}() needs an address, found `{}`", c.name, t);
                self.error(Diagnostic::error(c.args[0].span, msg));
                return self.poisoned(c.span);
            }
        };
        let ptr = match a.ty {
            Type::Ptr { .. } => a,
            _ => TExpr { ty: Type::Ptr { to: Box::new(Type::Void), user }, ..a },
        };
        let ptr = Box::new(ptr);
        let (kind, ty) = if bytes {
            (TExprKind::ReadMem { ptr, user }, Type::Bytes(size))
        } else {
            (TExprKind::ReadStr { ptr, user, len }, Type::Str(size))
        };
        TExpr { kind, ty, span: c.span }
    }

    /// `strcmp(a, b)`, and `strncmp(a, b, n)` with a constant `n`.
    pub(super) fn compare_strings(&mut self, c: &Call) -> TExpr {
        let a = self.expr(&c.args[0]);
        let b = self.expr(&c.args[1]);
        for x in [&a, &b] {
            if !x.ty.is_string() {
                let msg = format!("{}() compares strings, found `{}`", c.name, x.ty);
                self.error(Diagnostic::error(x.span, msg));
                return self.poisoned(c.span);
            }
        }
        let (a, b) = (Box::new(a), Box::new(b));
        let kind = match c.args.get(2) {
            None => TExprKind::Strcmp(a, b),
            Some(n) => match crate::sema::stmt::constant(n) {
                Some(len) if len >= 0 => TExprKind::Strncmp(a, b, len as usize),
                _ => {
                    let msg = "strncmp()'s length must be a constant, 0 or more";
                    self.error(Diagnostic::error(n.span, msg));
                    return self.poisoned(c.span);
                }
            },
        };
        TExpr { kind, ty: Type::S64, span: c.span }
    }

    /// `strftime(fmt, ns)`: the timestamp, formatted in user space when printed.
    pub(super) fn strftime(&mut self, c: &Call) -> TExpr {
        let [Expr { kind: ExprKind::Str(format), .. }, ns] = c.args else {
            return self.usage(c);
        };
        let a = self.scalar(ns, "the timestamp of strftime()");
        let ty = Type::Strftime(format.as_slice().into());
        TExpr { kind: TExprKind::Cast(Box::new(a)), ty, span: c.span }
    }
}
