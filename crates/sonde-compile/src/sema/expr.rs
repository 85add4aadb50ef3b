//! Typing expressions.

use super::check::Checker;
use super::tir::{Builtin, MapValue, TExpr, TExprKind};
use crate::provider::context::{ContextName, Cx};
use crate::provider::{self, Site};
use crate::types::Type;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span, UnOp};
use sonde_syntax::diag::Diagnostic;

/// Built-in variables, for hints.
pub const VARIABLES: &[&str] = &[
    "comm", "execname", "pid", "kpid", "tid", "uid", "gid", "cpu", "time", "nsecs", "walltime",
    "elapsed", "cpid", "args", "data", "ppid", "cgroup", "pcomm", "ncpus", "numaid", "rand",
    "username", "jiffies",
];
/// Functions usable in expressions, for hints.
pub const FUNCTIONS: &[&str] = &[
    "str",
    "mem",
    "dyn",
    "strcmp",
    "strncmp",
    "reg",
    "ksym",
    "usym",
    "uptr",
    "kptr",
    "strftime",
    "printf",
    "print",
    "exit",
    "clear",
    "zero",
    "delete",
    "has_key",
    "kaddr",
    "ntop",
    "cgroup_path",
    "strerror",
    "sizeof",
    "len",
    "buf",
    "cat",
    "signal",
    "offsetof",
    "bswap",
    "count",
    "sum",
    "min",
    "max",
    "avg",
    "stats",
    "quantize",
    "hist",
    "lhist",
    "join",
    "getopt",
    "syscall_name",
    "warnf",
    "errorf",
    "system",
    "override",
];

impl Checker<'_> {
    /// A placeholder after an error so checking can go on without cascading.
    pub fn poisoned(&self, span: Span) -> TExpr {
        TExpr { kind: TExprKind::Int(0), ty: Type::S64, span }
    }

    /// `e` typed, or `None` when typing it reported an error: the caller then stays silent
    /// instead of adding a second error about the placeholder's made-up type.
    fn expr_or_poison(&mut self, e: &Expr) -> Option<TExpr> {
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

    fn ident(&mut self, name: &str, span: Span) -> TExpr {
        let b = |b, ty| TExpr { kind: TExprKind::Builtin(b), ty, span };
        match name {
            "pid" => b(Builtin::Pid, Type::U32),
            "kpid" | "tid" => b(Builtin::Tid, Type::U32),
            "uid" => b(Builtin::Uid, Type::U32),
            "gid" => b(Builtin::Gid, Type::U32),
            "cpu" => b(Builtin::Cpu, Type::U32),
            "time" | "nsecs" => b(Builtin::Nsecs, Type::U64),
            "walltime" => b(Builtin::Nsecs, Type::Walltime),
            "elapsed" => b(Builtin::Elapsed, Type::U64),
            "comm" | "execname" => b(Builtin::Comm, Type::Str(16)),
            "cpid" => self.child_pid(span),
            "retval" => self.context(ContextName::Retval, span),
            "regs" => self.context(ContextName::Regs, span),
            "stack" | "kstack" | "ustack" if self.refused_in_map_for(span) => self.poisoned(span),
            "stack" | "kstack" | "ustack" => {
                let user = name == "ustack";
                self.stack(user, self.stack_mode, crate::lower::STACK_DEPTH as u8, span)
            }
            "caller" | "func" => self.context(ContextName::Caller, span),
            "curtask" => {
                let ty = match self
                    .env
                    .btf()
                    .ok()
                    .and_then(|b| crate::btf_types::named(b, "struct task_struct"))
                {
                    Some(t) => Type::Ptr { to: Box::new(t), user: false },
                    None => Type::U64,
                };
                b(Builtin::CurTask, ty)
            }
            n if n.len() > 3
                && n.starts_with("arg")
                && n[3..].bytes().all(|c| c.is_ascii_digit()) =>
            {
                self.context(ContextName::Arg(n[3..].parse().unwrap_or(usize::MAX)), span)
            }
            // Probes that name `probe` get a program per site (see `names_any` in check.rs), so it is a constant.
            "probe" => {
                let name =
                    self.sites.first().map(|s| s.point.describe()).unwrap_or_default().into_bytes();
                TExpr::const_str(name, span)
            }
            "args" | "data" => {
                self.error(
                    Diagnostic::error(
                        span,
                        format!("`{}` is the tracepoint's record: use one of its fields", name),
                    )
                    .with_help(format!(
                        "for example `{}->{}`",
                        name,
                        self.first_field().unwrap_or("common_pid".into())
                    )),
                );
                self.poisoned(span)
            }
            _ => {
                if let Some(map) = self.maps.lookup(name) {
                    return self.map_value(map, Vec::new(), span);
                }
                if let Some(v) = self.script_enum(name, span) {
                    return v;
                }
                if let Some(v) = self.value_ident(name, span) {
                    return v;
                }
                let mut d = Diagnostic::error(span, format!("unknown variable `{}`", name));
                if let Some(best) = sonde_syntax::closest(name, VARIABLES.iter().copied()) {
                    d = d.with_help(format!("did you mean `{}`?", best));
                }
                self.error(d);
                self.poisoned(span)
            }
        }
    }

    fn child_pid(&mut self, span: Span) -> TExpr {
        match self.opts.child_pid {
            Some(p) => TExpr { kind: TExprKind::Int(p as u64), ty: Type::U32, span },
            None => {
                self.error(Diagnostic::error(
                    span,
                    "`cpid`/`$target` needs a command to trace: run with `-c COMMAND`",
                ));
                self.poisoned(span)
            }
        }
    }

    fn first_field(&self) -> Option<String> {
        let args = self.sites.first()?.args.as_ref()?;
        args.fields.iter().find(|f| !f.name.starts_with("common_")).map(|f| f.name.clone())
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
    fn context(&mut self, name: ContextName, span: Span) -> TExpr {
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

    /// ply's `uptr(p)`: `p` points into the process's memory, so every read through it (`str`,
    /// `mem`, `->`) uses the user-memory helpers; bpftrace's `kptr(p)` says kernel memory. The
    /// value is unchanged; an integer becomes an untyped pointer.
    fn address_space(&mut self, name: &str, args: &[Expr], span: Span) -> TExpr {
        let [arg] = args else {
            self.error(Diagnostic::error(span, format!("{}() takes one address", name)));
            return self.poisoned(span);
        };
        let user = name == "uptr";
        let a = self.expr(arg);
        let to = match &a.ty {
            Type::Ptr { to, .. } => to.clone(),
            Type::Int { .. } => Box::new(Type::Void),
            t => {
                let d = Diagnostic::error(
                    arg.span,
                    format!("{}() needs a pointer or an address, found `{}`", name, t),
                );
                self.error(d);
                return self.poisoned(span);
            }
        };
        TExpr { ty: Type::Ptr { to, user }, span, ..a }
    }

    fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> TExpr {
        if let Some(v) = self.value_call(name, args, span) {
            return v;
        }
        let mk = |kind, ty| TExpr { kind, ty, span };
        match name {
            "str" if args.len() == 1 && super::spec_params::is_param_plus_const(&args[0]) => {
                self.positional_str_offset(&args[0], span)
            }
            "str" if args.len() == 1 && self.positional_str(&args[0], span).is_some() => {
                self.positional_str(&args[0], span).unwrap_or_else(|| self.poisoned(span))
            }
            "str" | "dyn" | "mem" => {
                if args.is_empty() || args.len() > 2 {
                    self.error(Diagnostic::error(
                        span,
                        format!("{}() takes an address and an optional size", name),
                    ));
                    return self.poisoned(span);
                }
                let size = match args.get(1) {
                    None => self.opts.string_size,
                    Some(Expr { kind: ExprKind::Int(n), .. }) if *n > 0 && *n <= 256 => *n as usize,
                    Some(e) => {
                        self.error(Diagnostic::error(
                            e.span,
                            "the size must be a constant between 1 and 256",
                        ));
                        return self.poisoned(span);
                    }
                };
                let a = self.expr(&args[0]);
                match (&a.ty, &a.kind) {
                    // Already a string (a char array field, a __data_loc field, comm): keep it, resized.
                    (Type::Str(_), _) if name != "mem" => {
                        TExpr { ty: Type::Str(size.min(a.ty.size().max(1))), ..a }
                    }
                    (Type::Str(_), TExprKind::CtxDataLoc { .. }) => {
                        TExpr { ty: Type::Bytes(size), ..a }
                    }
                    (Type::Ptr { user, .. }, _) => {
                        let user = *user;
                        if name == "mem" {
                            mk(TExprKind::ReadMem { ptr: Box::new(a), user }, Type::Bytes(size))
                        } else {
                            mk(TExprKind::ReadStr { ptr: Box::new(a), user }, Type::Str(size))
                        }
                    }
                    (Type::Int { .. }, _) => {
                        // An integer address: the process's memory in uprobes; elsewhere (a
                        // kprobe argument) kernel or user, as the address says.
                        let user = self.sites.first().is_some_and(Site::reads_user_memory);
                        let ptr = TExpr { ty: Type::Ptr { to: Box::new(Type::Void), user }, ..a };
                        if name == "mem" {
                            mk(TExprKind::ReadMem { ptr: Box::new(ptr), user }, Type::Bytes(size))
                        } else {
                            mk(TExprKind::ReadStr { ptr: Box::new(ptr), user }, Type::Str(size))
                        }
                    }
                    (t, _) => {
                        self.error(Diagnostic::error(
                            args[0].span,
                            format!("{}() needs an address, found `{}`", name, t),
                        ));
                        self.poisoned(span)
                    }
                }
            }
            "uptr" | "kptr" => self.address_space(name, args, span),
            "strftime" => {
                let [Expr { kind: ExprKind::Str(format), .. }, ns] = args else {
                    self.error(Diagnostic::error(
                        span,
                        "strftime() takes a format string literal and a timestamp, like `strftime(\"%H:%M:%S\", nsecs)`",
                    ));
                    return self.poisoned(span);
                };
                let a = self.scalar(ns, "the timestamp of strftime()");
                let ty = Type::Strftime(format.as_slice().into());
                TExpr { kind: TExprKind::Cast(Box::new(a)), ty, span }
            }
            "ksym" | "usym" => {
                let [arg] = args else {
                    self.error(Diagnostic::error(span, format!("{}() takes one address", name)));
                    return self.poisoned(span);
                };
                let a = self.scalar(arg, &format!("the argument of {}()", name));
                let ty = if name == "ksym" { Type::Sym } else { Type::USym };
                TExpr { kind: TExprKind::Cast(Box::new(a)), ty, span }
            }
            "strcmp" | "strncmp" => {
                let n = if name == "strncmp" { 3 } else { 2 };
                if args.len() != n {
                    let what = if n == 3 { "two strings and a length" } else { "two strings" };
                    self.error(Diagnostic::error(span, format!("{}() takes {}", name, what)));
                    return self.poisoned(span);
                }
                let a = self.expr(&args[0]);
                let b = self.expr(&args[1]);
                for x in [&a, &b] {
                    if !x.ty.is_string() {
                        self.error(Diagnostic::error(
                            x.span,
                            format!("{}() compares strings, found `{}`", name, x.ty),
                        ));
                        return self.poisoned(span);
                    }
                }
                let (a, b) = (Box::new(a), Box::new(b));
                if n == 2 {
                    return mk(TExprKind::Strcmp(a, b), Type::S64);
                }
                match super::stmt::constant(&args[2]) {
                    Some(len) if len >= 0 => mk(TExprKind::Strncmp(a, b, len as usize), Type::S64),
                    _ => {
                        let msg = "strncmp()'s length must be a constant, 0 or more";
                        self.error(Diagnostic::error(args[2].span, msg));
                        self.poisoned(span)
                    }
                }
            }
            // bpftrace's `reg("ip")`: the named register of a kprobe's or uprobe's registers,
            // at its fixed offset in `struct pt_regs` (no BTF needed).
            "reg" => {
                use crate::arch::x86_64::REGISTERS;
                let [Expr { kind: ExprKind::Str(reg), span: at }] = args else {
                    self.error(Diagnostic::error(
                        span,
                        "reg() takes a register's name, like `reg(\"ip\")`",
                    ));
                    return self.poisoned(span);
                };
                let reg = String::from_utf8_lossy(reg);
                let Some(&(_, offset)) = REGISTERS.iter().find(|(n, _)| *n == reg) else {
                    let names: Vec<&str> = REGISTERS.iter().map(|(n, _)| *n).collect();
                    let d = Diagnostic::error(*at, format!("x86-64 has no register `{}`", reg))
                        .with_help(format!("the registers are {}", names.join(", ")));
                    self.error(d);
                    return self.poisoned(span);
                };
                // Only where the context is the registers: `regs` says so where it is not.
                if self
                    .expr_or_poison(&Expr { kind: ExprKind::Ident("regs".into()), span })
                    .is_none()
                {
                    return self.poisoned(span);
                }
                mk(TExprKind::CtxLoad { offset }, Type::U64)
            }
            // bpftrace spells its variables as calls too: `ppid()`, `comm()`, `jiffies()`.
            _ if args.is_empty()
                && VARIABLES.contains(&name)
                && !matches!(name, "args" | "data") =>
            {
                self.ident(name, span)
            }
            "count" | "sum" | "min" | "max" | "avg" | "stats" | "quantize" | "hist" | "lhist" => {
                self.error(
                    Diagnostic::error(
                        span,
                        format!("{}() is an aggregation: assign it to a map", name),
                    )
                    .with_help(format!("for example `@name[key] = {}(...)`", name)),
                );
                self.poisoned(span)
            }
            "printf" | "print" | "exit" | "clear" | "zero" => {
                self.error(Diagnostic::error(
                    span,
                    format!("{}() returns nothing; call it as a statement", name),
                ));
                self.poisoned(span)
            }
            _ => {
                let mut d = Diagnostic::error(span, format!("unknown function `{}`", name));
                if let Some(best) = sonde_syntax::closest(name, FUNCTIONS.iter().copied()) {
                    d = d.with_help(format!("did you mean `{}`?", best));
                }
                self.error(d);
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
