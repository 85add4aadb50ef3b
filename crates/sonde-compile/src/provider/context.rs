//! What the names that mean something only in some probes (`argN`, `retval`, `caller`/`func`,
//! `regs`, `args->FIELD`) mean in each provider's probes. The checker asks [`resolve`]; the
//! provider of the site answers (`kprobe::context`, `uprobe::context`, ...), and a name its
//! probes lack gets the one sentence below that says where it does exist.

use crate::env::{Env, Options};
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::{Field, Type};
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;

/// A name whose meaning depends on the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextName<'a> {
    /// `argN`
    Arg(usize),
    Retval,
    /// `caller` or `func`: the probed function's address.
    Caller,
    Regs,
    /// `ctx`: the program's context, typed where the provider knows its type.
    Ctx,
    /// `args->FIELD` (or `data->FIELD`).
    Field {
        base: &'a str,
        field: &'a str,
    },
}

/// What a provider hook is handed besides the site and the name.
pub struct Cx<'a> {
    pub env: &'a dyn Env,
    pub opts: &'a Options,
    pub span: Span,
}

impl Cx<'_> {
    pub fn expr(&self, kind: TExprKind, ty: Type) -> TExpr {
        TExpr { kind, ty, span: self.span }
    }
}

/// A provider's answer: `None` when the name means nothing in its probes.
pub type Answer = Option<Result<TExpr, Diagnostic>>;

/// The meaning of `name` in probes on `site`, or the error to report.
pub fn resolve(site: Option<&Site>, name: ContextName, cx: &Cx) -> Result<TExpr, Diagnostic> {
    let answer = site.and_then(|site| match &site.point {
        AttachPoint::Kprobe { .. } => super::kprobe::context(site, name, cx),
        AttachPoint::Uprobe { .. } => super::uprobe::context(site, name, cx),
        AttachPoint::Fentry { .. } => super::fentry::context(site, name, cx),
        AttachPoint::RawTracepoint { .. } => super::rawtracepoint::context(site, name, cx),
        AttachPoint::Tracepoint { .. } => super::tracepoint::context(site, name, cx),
        AttachPoint::Iter { .. } => super::iter::context(site, name, cx),
        _ => None,
    });
    let answer = answer.or_else(|| raw_ctx(site?, name, cx));
    answer.unwrap_or_else(|| Err(not_here(site, name, cx.span)))
}

/// The fields `args` as a whole holds, in order: a uprobe's parameters (from debug info), the
/// record of a tracepoint or fentry/fexit probe; `None` where `args` means nothing. A
/// tracepoint's `common_*` header is left out: the kernel lets its programs read only past it.
pub fn record_names(site: &Site, cx: &Cx) -> Option<Result<Vec<String>, Diagnostic>> {
    if let AttachPoint::Uprobe { .. } = site.point {
        return super::uprobe::param_names(site, cx);
    }
    let args = site.args.as_ref()?;
    let header = |f: &&Field| {
        matches!(site.point, AttachPoint::Tracepoint { .. }) && f.name.starts_with("common_")
    };
    Some(Ok(args.fields.iter().filter(|f| !header(f)).map(|f| f.name.clone()).collect()))
}

/// `ctx` where the provider gives it no type: the context's address, a kernel `void *` to cast
/// (`((struct x *)ctx).x`, as bpftrace allows); BEGIN and END have none.
fn raw_ctx(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    if name != ContextName::Ctx || matches!(site.point, AttachPoint::Begin | AttachPoint::End) {
        return None;
    }
    let ty = Type::Ptr { to: Box::new(Type::Void), user: false };
    Some(Ok(cx.expr(TExprKind::Builtin(crate::model::tir::Builtin::Ctx), ty)))
}

/// Where a name does exist, for probes whose provider does not have it.
fn not_here(site: Option<&Site>, name: ContextName, span: Span) -> Diagnostic {
    match name {
        ContextName::Arg(n) => {
            let msg =
                format!("`arg{}` exists in kprobe, uprobe, fentry and rawtracepoint probes", n);
            Diagnostic::error(span, msg)
        }
        ContextName::Retval => {
            Diagnostic::error(span, "`retval` exists in kretprobe, uretprobe and fexit probes")
        }
        ContextName::Caller => Diagnostic::error(
            span,
            "`caller`/`func` exist in kprobe, kretprobe, fentry and uprobe probes",
        ),
        ContextName::Regs => Diagnostic::error(span, "`regs` exists in kprobe and uprobe probes"),
        ContextName::Ctx => {
            Diagnostic::error(span, "`ctx` exists in every probe but BEGIN and END")
        }
        ContextName::Field { base, .. } => {
            let msg =
                format!("`{}` exists in tracepoint, rawtracepoint and fentry/fexit probes", base);
            let d = Diagnostic::error(span, msg);
            match site.map(|s| s.kind) {
                Some(ProgKind::Kprobe) => {
                    d.with_help("kprobes and uprobes read their arguments as arg0..arg5")
                }
                _ => d,
            }
        }
    }
}

/// `field` of the site's record (`args`), or the error naming the fields there are.
pub fn record_field<'s>(
    site: &'s Site,
    field: &str,
    span: Span,
) -> Option<Result<&'s Field, Diagnostic>> {
    let args = site.args.as_ref()?;
    Some(args.fields.iter().find(|f| f.name == field).ok_or_else(|| {
        let names: Vec<&str> = args.fields.iter().map(|f| f.name.as_str()).collect();
        let msg = format!("{} has no field `{}`", site.point.describe(), field);
        let d = Diagnostic::error(span, msg);
        let all = names.join(", ");
        match sonde_syntax::closest(field, names.iter().copied()) {
            Some(best) => d.with_help(format!("did you mean `{}`? its fields are: {}", best, all)),
            None => d.with_help(format!("its fields are: {}", all)),
        }
    }))
}

/// A field read from the record the program's context points at (tracepoints, fentry/fexit).
pub fn read_field(site: &Site, f: &Field, cx: &Cx) -> TExpr {
    if f.data_loc {
        return cx.expr(TExprKind::CtxDataLoc { offset: f.offset }, Type::Str(cx.opts.string_size));
    }
    let symbols = site.args.as_ref().and_then(|r| r.enum_of(&f.name)).cloned();
    match &f.ty {
        t if t.is_scalar() => {
            cx.expr(TExprKind::CtxLoad { offset: f.offset }, t.clone()).symbolized(symbols)
        }
        t => cx.expr(TExprKind::CtxBuf { offset: f.offset, len: t.size() }, t.clone()),
    }
}

/// An argument's type: the prototype's when it is a scalar, else a plain u64.
pub fn scalar_or_u64(t: Option<&Type>) -> Type {
    match t {
        Some(t) if t.is_scalar() => t.clone(),
        _ => Type::U64,
    }
}

/// `regs`: the program's context, a `struct pt_regs *` (typed from BTF when there is some).
pub fn regs(cx: &Cx) -> TExpr {
    let ty = match cx.env.btf().ok().and_then(|b| crate::btf_types::named(b, "struct pt_regs")) {
        Some(t) => Type::Ptr { to: Box::new(t), user: false },
        None => Type::U64,
    };
    cx.expr(TExprKind::Builtin(crate::model::tir::Builtin::Ctx), ty)
}

/// `caller`/`func` in a kprobe, kretprobe, fentry or fexit: the probed function's address.
/// `bpf_get_func_ip` (5.15) where the kernel has it. Before, a kprobe reads it from the registers
/// (which also serves a glob's shared program), and a kretprobe, fentry or fexit gets its
/// function's kallsyms address as a constant: `sema::check` gives each such site a program of
/// its own.
pub fn caller(site: &Site, cx: &Cx) -> Result<TExpr, Diagnostic> {
    use crate::arch::x86_64::{IP_REG, KPROBE_IP_PAST};
    use crate::model::tir::Builtin;
    if cx.env.has_helper(sonde_bpf::helper::GET_FUNC_IP) {
        return Ok(cx.expr(TExprKind::Builtin(Builtin::FuncIp), Type::Sym));
    }
    let symbol = match &site.point {
        AttachPoint::Kprobe { retprobe: false, .. } => {
            let ip = Box::new(cx.expr(TExprKind::CtxLoad { offset: IP_REG }, Type::U64));
            let past = Box::new(cx.expr(TExprKind::Int(KPROBE_IP_PAST), Type::U64));
            let op = sonde_syntax::ast::BinOp::Sub;
            return Ok(cx.expr(TExprKind::Binary { op, lhs: ip, rhs: past }, Type::Sym));
        }
        AttachPoint::Kprobe { symbol, .. } => symbol,
        AttachPoint::Fentry { func, .. } => func,
        _ => return Err(not_here(Some(site), ContextName::Caller, cx.span)),
    };
    match cx.env.kernel_symbol_address(symbol) {
        Some(addr) => Ok(cx.expr(TExprKind::Int(addr), Type::Sym)),
        None => {
            let what =
                if site.kind == ProgKind::Kprobe { "a kretprobe" } else { "fentry and fexit" };
            let msg = format!(
                "`caller` in {what} needs bpf_get_func_ip (Linux 5.15) or the address of `{symbol}` in /proc/kallsyms, and this kernel gives neither"
            );
            Err(Diagnostic::error(cx.span, msg))
        }
    }
}

/// `argN` where the context is the arguments as u64 slots (fentry, fexit, rawtracepoint), typed
/// from the prototype on the site; `what` names the thing that takes them.
pub fn slot_arg(site: &Site, n: usize, what: &str, cx: &Cx) -> Result<TExpr, Diagnostic> {
    let params = site.func.as_ref().map(|f| f.params.len()).unwrap_or(0);
    if n >= params {
        let msg = format!("{} takes {} argument(s): there is no `arg{}`", what, params, n);
        return Err(Diagnostic::error(cx.span, msg));
    }
    let ty = scalar_or_u64(site.func.as_ref().and_then(|f| f.params.get(n)).map(|p| &p.1));
    Ok(cx.expr(TExprKind::CtxLoad { offset: 8 * n }, ty))
}

/// `argN` at a kretprobe or uretprobe: gone.
pub fn arg_at_return(n: usize, ret: &str, entry: &str, span: Span) -> Diagnostic {
    let msg = format!(
        "`arg{}` does not exist in a {}: the arguments are gone when the function returns",
        n, ret
    );
    Diagnostic::error(span, msg).with_help(format!(
        "use `retval`, or save the argument in a map keyed by `tid` at the {} and read it here",
        entry
    ))
}

/// The register holding `argN` in a kprobe or uprobe, or the error for a stack argument.
pub fn arg_register(n: usize, span: Span) -> Result<usize, Diagnostic> {
    crate::arch::x86_64::ARG_REGS.get(n).copied().ok_or_else(|| {
        let msg = format!(
            "`arg{}` is passed on the stack: sonde reads the register arguments arg0..arg5",
            n
        );
        Diagnostic::error(span, msg)
    })
}
