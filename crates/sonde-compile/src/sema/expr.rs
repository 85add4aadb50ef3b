//! Typing expressions.

use super::check::Checker;
use super::tir::{MapValue, TExpr, TExprKind};
use crate::provider;
use crate::provider::context::{ContextName, Cx};
use crate::types::Type;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span, UnOp};
use sonde_syntax::diag::Diagnostic;

impl Checker<'_> {
    /// A placeholder after an error so checking can go on without cascading.
    pub fn poisoned(&self, span: Span) -> TExpr {
        TExpr { kind: TExprKind::Int(0), ty: Type::S64, span }
    }

    /// `e` typed, or `None` when typing it reported an error: the caller then stays silent
    /// instead of adding a second error about the placeholder's made-up type.
    pub(in crate::sema) fn expr_or_poison(&mut self, e: &Expr) -> Option<TExpr> {
        let before = self.diags.len();
        let t = self.expr(e);
        (self.diags.len() == before).then_some(t)
    }

    pub fn expr(&mut self, e: &Expr) -> TExpr {
        let span = e.span;
        let mk = |kind, ty| TExpr { kind, ty, span };
        match &e.kind {
            ExprKind::Int(v) => {
                let ty = if *v > i64::MAX as u64 { Type::U64 } else { Type::S64 };
                mk(TExprKind::Int(*v), ty)
            }
            ExprKind::Str(s) => mk(TExprKind::Str(s.clone()), Type::Str(s.len() + 1)),
            ExprKind::Ident(name) => self.ident(name, span),
            ExprKind::Var(name) => self.var_read(name, span),
            ExprKind::Map { name, keys } => self.map_read(name, keys, span),
            ExprKind::Call { name, args } => self.call_expr(name, args, span),
            ExprKind::Unary { op, expr } => self.unary(*op, expr, span),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span),
            ExprKind::Ternary { cond, then, els } => {
                let cond = self.scalar(cond, "a condition");
                let then = self.expr(then);
                let els = self.expr(els);
                let ty = match (&then.ty, &els.ty) {
                    (a, b) if a.is_scalar() && b.is_scalar() => arith_type(a, b),
                    (Type::Str(a), Type::Str(b)) => Type::Str(*a.max(b)),
                    (a, b) => {
                        self.error(
                            Diagnostic::error(
                                span,
                                format!(
                                    "the branches of `?:` have different types: `{}` and `{}`",
                                    a, b
                                ),
                            )
                            .with_label(then.span, format!("`{}`", a))
                            .with_label(els.span, format!("`{}`", b)),
                        );
                        return self.poisoned(span);
                    }
                };
                mk(
                    TExprKind::Ternary {
                        cond: Box::new(cond),
                        then: Box::new(then),
                        els: Box::new(els),
                    },
                    ty,
                )
            }
            ExprKind::Cast { ty, expr } => {
                let Some(inner) = self.expr_or_poison(expr) else { return self.poisoned(span) };
                let target = match self.resolve_type(ty) {
                    Ok(t) => t,
                    Err(msg) => {
                        self.error(Diagnostic::error(ty.span, msg));
                        return self.poisoned(span);
                    }
                };
                if !inner.ty.is_scalar() {
                    self.error(Diagnostic::error(
                        expr.span,
                        format!("cannot cast a `{}` to `{}`", inner.ty, target),
                    ));
                    return self.poisoned(span);
                }
                if !target.is_scalar() {
                    self.error(
                        Diagnostic::error(
                            ty.span,
                            format!("cannot cast to `{}`: casts make integers or pointers", target),
                        )
                        .with_help(format!("cast to a pointer, e.g. `({} *)`", target)),
                    );
                    return self.poisoned(span);
                }
                // A cast keeps track of user memory: `(char *)args->buf` still points into the process.
                let target = match (target, &inner.ty) {
                    (Type::Ptr { to, .. }, Type::Ptr { user, .. }) => Type::Ptr { to, user: *user },
                    (t, _) => t,
                };
                mk(TExprKind::Cast(Box::new(inner)), target)
            }
            ExprKind::Member { expr, field, .. } => self.member(expr, field, span),
            ExprKind::Index { expr, index } => self.index(expr, index, span),
            ExprKind::Tuple(items) => self.tuple(items, span),
            ExprKind::TypeArg(ty) => {
                let msg =
                    format!("the type `{}` is an argument of sizeof() and offsetof() only", ty);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
        }
    }

    /// An expression that must be an integer or pointer.
    pub fn scalar(&mut self, e: &Expr, what: &str) -> TExpr {
        let t = self.expr(e);
        if !t.ty.is_scalar() {
            self.error(Diagnostic::error(
                e.span,
                format!("{} must be an integer, found `{}`", what, t.ty),
            ));
            return self.poisoned(e.span);
        }
        t
    }

    /// A bare name: a builtin variable, a map (ply's `m` for `@m`), an enum constant of the
    /// script's or the kernel's.
    fn ident(&mut self, name: &str, span: Span) -> TExpr {
        if let Some(v) = self.builtin_variable(name, span, false) {
            return v;
        }
        if let Some(map) = self.maps.lookup(name) {
            return self.map_value(map, Vec::new(), span);
        }
        if let Some(v) = self.script_enum(name, span) {
            return v;
        }
        if let Some(v) = self.builtin_variable(name, span, true) {
            return v;
        }
        if let Some(v) = self.kernel_enum(name, span) {
            return v;
        }
        self.unknown_variable(name, span)
    }

    /// A kernel enum constant by name, from BTF (`TCP_FIN_WAIT1`).
    fn kernel_enum(&mut self, name: &str, span: Span) -> Option<TExpr> {
        let (value, _) = self.env.btf().ok()?.enumerator(name)?;
        Some(TExpr { kind: TExprKind::Int(value as u64), ty: Type::S64, span })
    }

    fn var_read(&mut self, name: &str, span: Span) -> TExpr {
        if let Some(p) = self.positional(name, span) {
            return p;
        }
        if name == "target" && !self.vars.iter().any(|v| v.name == "target") {
            return self.child_pid(span);
        }
        match self.var_index(name) {
            Some(i) if self.vars[i].ty != Type::Void => {
                TExpr { kind: TExprKind::Var(i), ty: self.vars[i].ty.clone(), span }
            }
            _ => {
                self.error(Diagnostic::error(
                    span,
                    format!("variable `${}` is used before it is assigned", name),
                ));
                self.poisoned(span)
            }
        }
    }

    /// Check key expressions against the map's key types, returning them typed.
    pub fn map_keys(&mut self, map: usize, keys: &[Expr], span: Span) -> Vec<TExpr> {
        let typed: Vec<TExpr> = keys.iter().map(|k| self.expr(k)).collect();
        let typed = self.spread_tuple_key(typed);
        for k in &typed {
            if matches!(k.ty, Type::Struct(_) | Type::Btf { .. } | Type::Void | Type::Array { .. })
            {
                self.error(Diagnostic::error(k.span, format!("a `{}` cannot be a map key", k.ty)));
            }
        }
        let tys: Vec<Type> = typed.iter().map(|k| k.ty.clone()).collect();
        let key_span =
            if keys.is_empty() { span } else { keys[0].span.to(keys[keys.len() - 1].span) };
        if let Err(d) = self.maps.use_keys(map, &tys, key_span) {
            self.error(d);
        }
        typed
    }

    fn map_read(&mut self, name: &str, keys: &[Expr], span: Span) -> TExpr {
        let map = self.maps.get_or_create(name, span);
        let keys = self.map_keys(map, keys, span);
        self.map_value(map, keys, span)
    }

    fn map_value(&mut self, map: usize, keys: Vec<TExpr>, span: Span) -> TExpr {
        let ty = match self.maps.value(map) {
            Some(MapValue::Plain(t)) => t.clone(),
            Some(MapValue::Agg { func, signed }) => {
                let (func, signed) = (*func, *signed);
                match self.agg_read_type(map, func, signed, span) {
                    Some(t) => t,
                    None => return self.poisoned(span),
                }
            }
            // Not known yet: pass 1 will learn it; pass 2 reports maps that are never assigned.
            None => Type::S64,
        };
        TExpr { kind: TExprKind::MapGet { map, keys }, ty, span }
    }

    fn unary(&mut self, op: UnOp, e: &Expr, span: Span) -> TExpr {
        let mk = |kind, ty| TExpr { kind, ty, span };
        match op {
            UnOp::Neg => {
                let t = self.scalar(e, "the operand of `-`");
                let ty = Type::Int { bytes: 8, signed: true };
                mk(TExprKind::Neg(Box::new(t)), ty)
            }
            UnOp::Not => {
                let t = self.scalar(e, "the operand of `!`");
                mk(TExprKind::Not(Box::new(t)), Type::S64)
            }
            UnOp::BitNot => {
                let t = self.scalar(e, "the operand of `~`");
                let ty = arith_type(&t.ty, &t.ty);
                mk(TExprKind::BitNot(Box::new(t)), ty)
            }
            UnOp::Deref => {
                let t = self.scalar(e, "the operand of `*`");
                self.deref(t, 0, span)
            }
            UnOp::AddrOf => {
                self.error(Diagnostic::error(
                    span,
                    "taking the address of a value (`&`) is not supported",
                ));
                self.poisoned(span)
            }
        }
    }

    /// `*(ptr + offset)` typed by the pointee.
    fn deref(&mut self, ptr: TExpr, offset: i64, span: Span) -> TExpr {
        let (to, user) = match &ptr.ty {
            Type::Ptr { to, user } => ((**to).clone(), *user),
            other => {
                self.error(Diagnostic::error(
                    ptr.span,
                    format!("cannot dereference a `{}`: it is not a pointer", other),
                ));
                return self.poisoned(span);
            }
        };
        if to == Type::Void {
            self.error(
                Diagnostic::error(ptr.span, "cannot dereference a `void *`")
                    .with_help("cast it to a pointer type first, e.g. `*(u64 *)ptr`"),
            );
            return self.poisoned(span);
        }
        TExpr { kind: TExprKind::Read { ptr: Box::new(ptr), offset, user }, ty: to, span }
    }

    fn binary(&mut self, op: BinOp, lhs: &Expr, rhs: &Expr, span: Span) -> TExpr {
        let l = self.expr(lhs);
        let r = self.expr(rhs);
        let mk = |ty, l, r| TExpr {
            kind: TExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) },
            ty,
            span,
        };
        if l.ty.is_string() || r.ty.is_string() {
            if l.ty.is_string() && r.ty.is_string() && matches!(op, BinOp::Eq | BinOp::Ne) {
                return mk(Type::S64, l, r);
            }
            let msg = if matches!(op, BinOp::Eq | BinOp::Ne) {
                format!("cannot compare `{}` with `{}`", l.ty, r.ty)
            } else {
                format!("`{}` does not apply to strings", op.symbol())
            };
            let d = Diagnostic::error(span, msg)
                .with_label(l.span, format!("`{}`", l.ty))
                .with_label(r.span, format!("`{}`", r.ty));
            let d = if matches!(op, BinOp::Lt | BinOp::Gt | BinOp::Le | BinOp::Ge) {
                d.with_help("use strcmp(a, b) to order strings")
            } else {
                d
            };
            self.error(d);
            return self.poisoned(span);
        }
        for side in [&l, &r] {
            if !side.ty.is_scalar() {
                self.error(Diagnostic::error(
                    side.span,
                    format!("`{}` needs integers, found `{}`", op.symbol(), side.ty),
                ));
                return self.poisoned(span);
            }
        }
        if matches!(op, BinOp::Div | BinOp::Mod) && matches!(r.kind, TExprKind::Int(0)) {
            let what = if op == BinOp::Div { "division" } else { "remainder" };
            self.error(
                Diagnostic::error(r.span, format!("{} by zero: the divisor is the constant 0", what))
                    .with_help("at run time a zero divisor gives `x / 0 == 0` and `x % 0 == x`, the kernel's rule for BPF"),
            );
            return self.poisoned(span);
        }
        let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
            Type::S64
        } else {
            arith_type(&l.ty, &r.ty)
        };
        mk(ty, l, r)
    }

    fn member(&mut self, base: &Expr, field: &str, span: Span) -> TExpr {
        if let ExprKind::Ident(name) = &base.kind {
            if name == "args" || name == "data" {
                return self.context(ContextName::Field { base: name, field }, span);
            }
        }
        let Some(b) = self.expr_or_poison(base) else { return self.poisoned(span) };
        if matches!(b.ty, Type::Tuple(_)) || field.starts_with(|c: char| c.is_ascii_digit()) {
            return self.tuple_field(b, field, span);
        }
        match b.ty.clone() {
            // `p->field` (or `p.field`, as ply allows) on a pointer to a kernel struct.
            Type::Ptr { to, user } => match *to {
                Type::Btf { id, name, .. } => self.btf_member(b, 0, user, id, &name, field, span),
                Type::Struct(s) => self.script_member(b, 0, user, &s, field, span),
                other => {
                    self.error(Diagnostic::error(
                        span,
                        format!("`{}` has no members: it points to a `{}`", field, other),
                    ));
                    self.poisoned(span)
                }
            },
            // `s.field` on a struct that is itself a member read through a pointer.
            Type::Btf { id, name, .. } => match b.kind {
                TExprKind::Read { ptr, offset, user } => {
                    self.btf_member(*ptr, offset, user, id, &name, field, span)
                }
                _ => {
                    self.error(Diagnostic::error(
                        span,
                        format!("cannot read members of this `{}` value", name),
                    ));
                    self.poisoned(span)
                }
            },
            // `s.field` on a script-defined struct read through a pointer.
            Type::Struct(s) => match b.kind {
                TExprKind::Read { ptr, offset, user } => {
                    self.script_member(*ptr, offset, user, &s, field, span)
                }
                _ => {
                    self.error(Diagnostic::error(
                        span,
                        format!("cannot read members of this `struct {}` value", s.name),
                    ));
                    self.poisoned(span)
                }
            },
            ref t if t.is_scalar() => {
                let help = match self.env.btf() {
                    Err(e) => format!("{}, so arguments are plain integers and kernel structs cannot be read", e),
                    Ok(_) => "cast it to a kernel pointer type first, e.g. `((struct task_struct *)arg0)->pid`".into(),
                };
                self.error(
                    Diagnostic::error(
                        span,
                        format!("cannot read member `{}` of a `{}`", field, b.ty),
                    )
                    .with_help(help),
                );
                self.poisoned(span)
            }
            other => {
                self.error(Diagnostic::error(
                    span,
                    format!("cannot read member `{}` of a `{}`", field, other),
                ));
                self.poisoned(span)
            }
        }
    }

    /// Member `field` of the kernel struct (BTF `id`) at `ptr + base`.
    #[allow(clippy::too_many_arguments)]
    fn btf_member(
        &mut self,
        ptr: TExpr,
        base: i64,
        user: bool,
        id: u32,
        name: &str,
        field: &str,
        span: Span,
    ) -> TExpr {
        let btf = match self.env.btf() {
            Ok(b) => b,
            Err(e) => {
                self.error(Diagnostic::error(span, e.to_string()));
                return self.poisoned(span);
            }
        };
        let m = match crate::btf_types::member(btf, id, field) {
            Ok(m) => m,
            Err(names) => {
                let mut d =
                    Diagnostic::error(span, format!("`{}` has no member `{}`", name, field));
                let near = near_names(field, &names);
                if !near.is_empty() {
                    d = d.with_help(format!("members with close names: {}", near.join(", ")));
                }
                self.error(d);
                return self.poisoned(span);
            }
        };
        let offset = base + m.offset as i64;
        let ptr = Box::new(ptr);
        let Some((shift, bits)) = m.bitfield else {
            return TExpr { kind: TExprKind::Read { ptr, offset, user }, ty: m.ty, span };
        };
        // A bitfield: read the bytes that hold it, shift it down, mask it.
        let bytes = match (shift + bits).div_ceil(8) {
            0 | 1 => 1,
            2 => 2,
            3 | 4 => 4,
            _ => 8,
        };
        let raw = TExpr {
            kind: TExprKind::Read { ptr, offset, user },
            ty: Type::Int { bytes, signed: false },
            span,
        };
        let int = |v: u64| TExpr { kind: TExprKind::Int(v), ty: Type::U64, span };
        let shifted = TExpr {
            kind: TExprKind::Binary {
                op: BinOp::Shr,
                lhs: Box::new(raw),
                rhs: Box::new(int(shift as u64)),
            },
            ty: Type::U64,
            span,
        };
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        TExpr {
            kind: TExprKind::Binary {
                op: BinOp::BitAnd,
                lhs: Box::new(shifted),
                rhs: Box::new(int(mask)),
            },
            ty: Type::U64,
            span,
        }
    }

    /// A name that means something only in some probes: the site's provider says what.
    pub(in crate::sema) fn context(&mut self, name: ContextName, span: Span) -> TExpr {
        // No site: its spec failed to expand and was reported already.
        if self.sites.is_empty() && matches!(name, ContextName::Arg(_) | ContextName::Retval) {
            return self.poisoned(span);
        }
        if self.refused_in_map_for(span) {
            return self.poisoned(span);
        }
        let cx = Cx { env: self.env, opts: self.opts, span };
        match provider::context::resolve(self.sites.first(), name, &cx) {
            Ok(e) => e,
            Err(d) => {
                self.error(d);
                self.poisoned(span)
            }
        }
    }

    fn index(&mut self, base: &Expr, index: &Expr, span: Span) -> TExpr {
        let Some(b) = self.expr_or_poison(base) else { return self.poisoned(span) };
        let i = match &index.kind {
            ExprKind::Int(i) => *i as i64,
            _ => {
                self.error(Diagnostic::error(index.span, "an index must be a constant integer"));
                return self.poisoned(span);
            }
        };
        match (&b.ty, &b.kind) {
            (Type::Array { elem, len }, TExprKind::CtxBuf { offset, .. }) => {
                if i < 0 || i as usize >= *len {
                    self.error(Diagnostic::error(
                        index.span,
                        format!("index {} is outside the array of {} elements", i, len),
                    ));
                    return self.poisoned(span);
                }
                let offset = offset + i as usize * elem.size();
                TExpr { kind: TExprKind::CtxLoad { offset }, ty: (**elem).clone(), span }
            }
            // An array member of a kernel struct, read through a pointer: `p->numbers[0].nr`. A
            // flexible array (`struct upid numbers[]`, 0 elements in BTF) takes any index.
            (Type::Array { elem, len }, TExprKind::Read { ptr, offset, user }) => {
                if i < 0 || (*len > 0 && i as usize >= *len) {
                    self.error(Diagnostic::error(
                        index.span,
                        format!("index {} is outside the array of {} elements", i, len),
                    ));
                    return self.poisoned(span);
                }
                let offset = offset + i * elem.size() as i64;
                TExpr {
                    kind: TExprKind::Read { ptr: ptr.clone(), offset, user: *user },
                    ty: (**elem).clone(),
                    span,
                }
            }
            // One char of a char array member: `p->comm[0]`.
            (Type::Str(len), TExprKind::Read { ptr, offset, user }) => {
                if i < 0 || (*len > 0 && i as usize >= *len) {
                    self.error(Diagnostic::error(
                        index.span,
                        format!("index {} is outside the array of {} chars", i, len),
                    ));
                    return self.poisoned(span);
                }
                let ty = Type::Int { bytes: 1, signed: true };
                TExpr {
                    kind: TExprKind::Read { ptr: ptr.clone(), offset: offset + i, user: *user },
                    ty,
                    span,
                }
            }
            // One char of a string value (a variable, `comm`, `str()`): bpftrace's `$s[0]`.
            (Type::Str(len), _) => {
                if i < 0 || i as usize >= *len {
                    self.error(Diagnostic::error(
                        index.span,
                        format!("index {} is outside the string of {} bytes", i, len),
                    ));
                    return self.poisoned(span);
                }
                let ty = Type::Int { bytes: 1, signed: true };
                TExpr { kind: TExprKind::Field { base: Box::new(b), offset: i as usize }, ty, span }
            }
            (Type::Ptr { to, .. }, _) => {
                let size = to.size().max(1) as i64;
                self.deref(b.clone(), i * size, span)
            }
            (t, _) => {
                self.error(Diagnostic::error(base.span, format!("cannot index a `{}`", t)));
                self.poisoned(span)
            }
        }
    }
}

/// C's usual arithmetic conversions, simplified to 64 bits: unsigned if either side is a u64 or pointer.
pub fn arith_type(a: &Type, b: &Type) -> Type {
    let unsigned64 = |t: &Type| {
        matches!(
            t,
            Type::Int { bytes: 8, signed: false }
                | Type::Ptr { .. }
                | Type::Sym
                | Type::Walltime
                | Type::Strftime(_)
        )
    };
    if unsigned64(a) || unsigned64(b) {
        Type::U64
    } else {
        Type::S64
    }
}

/// Up to eight names closest to `want` (by edit distance), for a hint.
fn near_names(want: &str, names: &[String]) -> Vec<String> {
    sonde_syntax::nearest(want, names.iter().map(String::as_str), 8)
}
