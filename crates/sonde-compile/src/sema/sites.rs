//! Probe specs expanded into sites, and the sites grouped into programs: those whose program
//! does not read what differs between them share one.

use super::config::{Config, MissingProbes};
use crate::env::{Env, Options};
use crate::provider::{self, AttachPoint, Site};
use sonde_syntax::ast::{Block, Expr, ExprKind, Probe, ProbeSpec, Stmt};
use sonde_syntax::diag::Diagnostic;
use std::collections::HashMap;

/// The programs of one probe (its index, their sites); errors and warnings go to `diags` and
/// `warnings`.
pub(super) fn programs(
    (index, probe): (usize, &Probe),
    env: &dyn Env,
    opts: &Options,
    config: &Config,
    (diags, warnings): (&mut Vec<Diagnostic>, &mut Vec<Diagnostic>),
) -> Vec<(usize, Vec<Site>)> {
    let mut sites = Vec::new();
    let mut hinted = false;
    let mut unmatched = Vec::new();
    for spec in &probe.specs {
        let definition = match super::spec_params::substitute(&spec.definition, &opts.params) {
            Ok(d) => d,
            Err(msg) => {
                diags.push(Diagnostic::error(spec.span, msg));
                continue;
            }
        };
        match expand(spec, &definition, env, warnings) {
            Ok(s) if !opts.allow_unsafe && s.iter().any(provider::on_address) => {
                let msg = "probing a kernel address needs --unsafe: the kernel takes any address in its text";
                diags.push(Diagnostic::error(spec.span, msg));
            }
            Ok(s) => sites.extend(s),
            Err(msg) if config.missing == MissingProbes::Skip && is_provider(spec) => {
                let why = format!("skipped (config missing_probes): {}", msg);
                warnings.push(Diagnostic::warning(spec.span, why));
            }
            // As bpftrace: a wildcard in a list that matches nothing here is skipped (dcsnoop's
            // `lookup_fast.constprop.*` beside `lookup_fast`), as long as the list names something.
            Err(msg) if probe.specs.len() > 1 && matched_nothing(&msg) => {
                unmatched.push((spec, msg))
            }
            Err(msg) => {
                let d = unexpanded(spec, msg);
                // A list of alternatives (a tool's probes for several library versions) can skip
                // the ones this machine lacks, as bpftrace's own setting does.
                if probe.specs.len() > 1 && is_provider(spec) && d.help.is_none() && !hinted {
                    hinted = true;
                    diags.push(d.with_help(
                        "`config = { missing_probes = \"warn\" }` before the probes skips, with a \
                         warning, the ones this machine lacks",
                    ));
                } else {
                    diags.push(d);
                }
            }
        }
    }
    for (spec, msg) in unmatched {
        match sites.is_empty() {
            true => diags.push(unexpanded(spec, msg)),
            false => warnings.push(Diagnostic::warning(spec.span, format!("skipped: {}", msg))),
        }
    }
    let per_site = |s: &Site| {
        // Before bpf_get_func_ip a return or trampoline probe's `caller` is its function's
        // address, a constant of its own program (see `Checker::func_ip`).
        // A uprobe's `func` is its function's name, a constant per site.
        let uprobe = matches!(s.point, AttachPoint::Uprobe { .. });
        (uprobe || !matches!(s.point, AttachPoint::Kprobe { retprobe: false, .. }))
            && names_any(&probe.body, probe.predicate.as_ref(), &["caller", "func"])
            && (uprobe || !env.has_helper(sonde_bpf::helper::GET_FUNC_IP))
    };
    let ctx = names_any(
        &probe.body,
        probe.predicate.as_ref(),
        &["args", "data", "probe", "probetype", "__builtin_probe", "__builtin_probetype"],
    );
    share_programs(index, sites, |s| ctx || per_site(s))
}

/// One spec's sites (its `definition` with the positional parameters filled in); a sentence
/// when there are none.
fn expand(
    spec: &ProbeSpec,
    definition: &str,
    env: &dyn Env,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Vec<Site>, String> {
    let mut notes = Vec::new();
    let mut expanded = provider::expand(&spec.provider, definition, env, &mut notes);
    warnings.extend(notes.into_iter().map(|n| Diagnostic::warning(spec.span, n)));
    // Where sonde respells a spec that names one site, `probe` is the spec as written, with
    // the provider's full name (as bpftrace's `i:ms:300` is `interval:ms:300`).
    if let Ok([site]) = expanded.as_deref_mut() {
        let provider = match site.point {
            AttachPoint::Interval { .. } => "interval",
            AttachPoint::Profile { .. } => "profile",
            AttachPoint::Software { .. } => "software",
            AttachPoint::Hardware { .. } => "hardware",
            AttachPoint::Watchpoint { .. } => "watchpoint",
            // `begin` or `BEGIN`, as written (bpftrace's current spelling is lower case).
            AttachPoint::Begin | AttachPoint::End => {
                site.written = Some(spec.provider.as_str().into());
                return expanded;
            }
            _ => return expanded,
        };
        site.written = Some(format!("{}:{}", provider, definition).into());
    }
    expanded
}

/// bpftrace's rule: an iter probe is the program's only probe besides BEGIN and END, since its
/// run is one pass over what it iterates.
pub(super) fn iterator_alone(
    groups: &[(usize, Vec<Site>)],
    probes: &[Probe],
    diags: &mut Vec<Diagnostic>,
) {
    let is_iter = |s: &Site| matches!(s.point, AttachPoint::Iter { .. });
    let Some(&(index, _)) = groups.iter().find(|(_, sites)| sites.iter().any(is_iter)) else {
        return;
    };
    let others = groups
        .iter()
        .flat_map(|(_, sites)| sites)
        .filter(|s| !matches!(s.point, AttachPoint::Begin | AttachPoint::End))
        .count();
    if others > 1 {
        let msg = "an iter probe must be the program's only probe besides BEGIN and END: its run \
                   is one pass over what it iterates";
        diags.push(Diagnostic::error(probes[index].span, msg));
    }
}

fn is_provider(spec: &ProbeSpec) -> bool {
    provider::PROVIDERS.contains(&spec.provider.as_str())
}

/// The error for a spec that names nothing, with how a spec is written or the nearest provider.
/// A wildcard's "no ... matches `...`": the machine lacks every name it could match.
fn matched_nothing(msg: &str) -> bool {
    msg.starts_with("no ") && msg.contains(" matches `")
}

fn unexpanded(spec: &ProbeSpec, msg: String) -> Diagnostic {
    let d = Diagnostic::error(spec.span, msg);
    if !is_provider(spec) && spec.definition.is_empty() {
        return d.with_help(
            "a probe is `provider:definition`, e.g. `tracepoint:syscalls:sys_enter_openat`",
        );
    }
    match sonde_syntax::closest(&spec.provider, provider::PROVIDERS.iter().copied()) {
        Some(best) if best != spec.provider => d.with_help(format!("did you mean `{}`?", best)),
        _ => d,
    }
}

/// Sites whose programs don't read the context can share one program; those for which
/// `own_program` says so get one each.
fn share_programs(
    index: usize,
    sites: Vec<Site>,
    own_program: impl Fn(&Site) -> bool,
) -> Vec<(usize, Vec<Site>)> {
    let mut by_kind: Vec<(usize, Vec<Site>)> = Vec::new();
    let mut slot: HashMap<(std::mem::Discriminant<AttachPoint>, bool, bool), usize> =
        HashMap::new();
    for s in sites {
        // A TRACING program is loaded for one BTF id: one program per function or tracepoint.
        if own_program(&s)
            || matches!(
                s.point,
                AttachPoint::Fentry { .. }
                    | AttachPoint::RawTracepoint { .. }
                    | AttachPoint::Iter { .. }
            )
        {
            by_kind.push((index, vec![s]));
            continue;
        }
        // Entries and returns attach differently (one kprobe_multi link is one or the other).
        let ret = matches!(
            s.point,
            AttachPoint::Kprobe { retprobe: true, .. } | AttachPoint::Uprobe { retprobe: true, .. }
        );
        // A syscall wrapper's arguments are read differently from another function's.
        let key = (std::mem::discriminant(&s.point), ret, s.syscall_wrapper);
        match slot.get(&key) {
            Some(&i) => by_kind[i].1.push(s),
            None => {
                slot.insert(key, by_kind.len());
                by_kind.push((index, vec![s]));
            }
        }
    }
    by_kind
}

/// Does the probe name one of `names`? `args`/`data` (whose layout differs between
/// tracepoints) and `probe` (a constant that differs between sites) need a program per site.
fn names_any(body: &Block, pred: Option<&Expr>, names: &[&str]) -> bool {
    fn expr(e: &Expr, names: &[&str]) -> bool {
        let sub = |e: &Expr| expr(e, names);
        match &e.kind {
            ExprKind::Ident(n) => names.contains(&n.as_str()),
            ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Var(_) | ExprKind::TypeArg(_) => false,
            ExprKind::Map { keys, .. } => keys.iter().any(sub),
            ExprKind::Call { args, .. } | ExprKind::Tuple(args) => args.iter().any(sub),
            ExprKind::Record(fields) => fields.iter().any(|(_, e)| sub(e)),
            ExprKind::Unary { expr: e, .. }
            | ExprKind::Cast { expr: e, .. }
            | ExprKind::Step { target: e, .. }
            | ExprKind::Member { expr: e, .. } => sub(e),
            ExprKind::Binary { lhs, rhs, .. } => sub(lhs) || sub(rhs),
            ExprKind::Ternary { cond, then, els } => sub(cond) || sub(then) || sub(els),
            ExprKind::Block { stmts, value } => stmts.iter().any(|s| stmt(s, names)) || sub(value),
            ExprKind::Index { expr: e, index } => sub(e) || sub(index),
        }
    }
    fn stmt(s: &Stmt, names: &[&str]) -> bool {
        let (es, bs) = s.parts();
        es.into_iter().any(|e| expr(e, names)) || bs.into_iter().any(|b| block(b, names))
    }
    fn block(b: &Block, names: &[&str]) -> bool {
        b.stmts.iter().any(|s| stmt(s, names))
    }
    block(body, names) || pred.is_some_and(|e| expr(e, names))
}
