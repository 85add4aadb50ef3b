//! The checker's driver: expand probe specs into sites, decide which sites share a program, run the
//! two passes.

use super::maps::MapTable;
use super::tir::{EventDef, TProbe, TProgram};
use crate::env::{Env, Options};
use crate::provider::{self, Site};
use sonde_syntax::ast::{Block, Expr, ExprKind, Program, Stmt};
use sonde_syntax::diag::Diagnostic;
use std::collections::HashMap;

/// Type-check `program` against the kernel described by `env`.
pub fn check(
    program: &Program,
    env: &dyn Env,
    opts: &Options,
) -> Result<TProgram, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut warnings = Vec::new();
    let mut groups: Vec<(usize, Vec<Site>)> = Vec::new();
    let config = super::config::read(&program.config, &mut diags);
    for (index, probe) in program.probes.iter().enumerate() {
        let mut sites = Vec::new();
        for spec in &probe.specs {
            let mut notes = Vec::new();
            let definition = match super::spec_params::substitute(&spec.definition, &opts.params) {
                Ok(d) => d,
                Err(msg) => {
                    diags.push(Diagnostic::error(spec.span, msg));
                    continue;
                }
            };
            let expanded = provider::expand(&spec.provider, &definition, env, &mut notes);
            warnings.extend(notes.into_iter().map(|n| Diagnostic::warning(spec.span, n)));
            match expanded {
                Ok(s) => sites.extend(s),
                Err(msg)
                    if config.missing == super::config::MissingProbes::Skip
                        && provider::PROVIDERS.contains(&spec.provider.as_str()) =>
                {
                    let why = format!("skipped (config missing_probes): {}", msg);
                    warnings.push(Diagnostic::warning(spec.span, why));
                }
                Err(msg) => {
                    let mut d = Diagnostic::error(spec.span, msg);
                    if !provider::PROVIDERS.contains(&spec.provider.as_str())
                        && spec.definition.is_empty()
                    {
                        d = d.with_help("a probe is `provider:definition`, e.g. `tracepoint:syscalls:sys_enter_openat`");
                    } else if let Some(best) =
                        sonde_syntax::closest(&spec.provider, provider::PROVIDERS.iter().copied())
                    {
                        if best != spec.provider {
                            d = d.with_help(format!("did you mean `{}`?", best));
                        }
                    }
                    diags.push(d);
                }
            }
        }
        let per_site = |s: &Site| {
            // Before bpf_get_func_ip a return or trampoline probe's `caller` is its function's
            // address, a constant of its own program (see `Checker::func_ip`).
            // A uprobe's `func` is its function's name, a constant per site.
            let uprobe = matches!(s.point, provider::AttachPoint::Uprobe { .. });
            (uprobe || !matches!(s.point, provider::AttachPoint::Kprobe { retprobe: false, .. }))
                && names_any(&probe.body, probe.predicate.as_ref(), &["caller", "func"])
                && (uprobe || !env.has_helper(sonde_bpf::helper::GET_FUNC_IP))
        };
        let ctx = names_any(&probe.body, probe.predicate.as_ref(), &["args", "data", "probe"]);
        groups.extend(share_programs(index, sites, |s| ctx || per_site(s)));
    }
    if !diags.is_empty() {
        return Err(diags);
    }

    // The kernel's BTF only when the script defines types (their fields may name kernel
    // types): reading it costs a program that needs none ~1 ms and 1.5 MiB.
    let btf = if program.types.is_empty() { None } else { env.btf().ok() };
    let types =
        std::rc::Rc::new(super::script_types::ScriptTypes::build(&program.types, btf, &mut diags));
    let mut maps = MapTable::default();
    for d in &program.map_decls {
        if let Err(e) = maps.declare(d) {
            diags.push(e);
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    // Pass 1: learn map types from every use, ignoring errors (a map may be read before the probe that writes it).
    let mut hints = Vec::new();
    for (index, sites) in &groups {
        let mut cx = Checker::new(env, opts, &mut maps, true, sites);
        cx.stack_mode = config.stack_mode;
        cx.types = types.clone();
        cx.probe(&program.probes[*index]);
        hints.push(cx.string_sizes());
    }
    // Pass 2: check for real.
    let mut probes = Vec::new();
    let mut events: Vec<EventDef> = Vec::new();
    let mut stacks = std::collections::BTreeSet::new();
    let mut stack_len_frames = 0;
    let mut cpu_ids = 0;
    let mut options = Vec::new();
    for ((index, sites), str_hints) in groups.into_iter().zip(hints) {
        let probe = &program.probes[index];
        let mut cx = Checker::new(env, opts, &mut maps, false, &sites);
        cx.stack_mode = config.stack_mode;
        cx.types = types.clone();
        cx.str_hints = str_hints;
        cx.events = std::mem::take(&mut events);
        let (predicate, body) = cx.probe(probe);
        events = std::mem::take(&mut cx.events);
        stacks.append(&mut cx.stacks);
        stack_len_frames = stack_len_frames.max(cx.stack_len_frames);
        cpu_ids = cpu_ids.max(cx.cpu_ids.unwrap_or(0));
        super::builtins::getopt::merge(&mut options, std::mem::take(&mut cx.options), &mut diags);
        diags.append(&mut cx.diags);
        let vars = cx.vars.into_iter().map(|v| (v.name, v.ty)).collect();
        probes.push(TProbe { probe: index, sites, predicate, body, vars, span: probe.span });
    }
    let maps = maps.finish(&mut diags);
    if diags.is_empty() {
        let options = options.into_iter().map(|o| (o.name, o.about)).collect();
        Ok(TProgram { probes, maps, events, stacks, stack_len_frames, warnings, options, cpu_ids })
    } else {
        Err(diags)
    }
}

/// Sites whose programs don't read the context can share one program; those for which
/// `own_program` says so get one each.
fn share_programs(
    index: usize,
    sites: Vec<Site>,
    own_program: impl Fn(&Site) -> bool,
) -> Vec<(usize, Vec<Site>)> {
    use crate::provider::AttachPoint;
    let mut by_kind: Vec<(usize, Vec<Site>)> = Vec::new();
    let mut slot: HashMap<(std::mem::Discriminant<AttachPoint>, bool, bool), usize> =
        HashMap::new();
    for s in sites {
        // A TRACING program is loaded for one BTF id: one program per function or tracepoint.
        if own_program(&s)
            || matches!(s.point, AttachPoint::Fentry { .. } | AttachPoint::RawTracepoint { .. })
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
            ExprKind::Unary { expr: e, .. }
            | ExprKind::Cast { expr: e, .. }
            | ExprKind::Member { expr: e, .. } => sub(e),
            ExprKind::Binary { lhs, rhs, .. } => sub(lhs) || sub(rhs),
            ExprKind::Ternary { cond, then, els } => sub(cond) || sub(then) || sub(els),
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

pub(super) struct Var {
    pub name: String,
    pub ty: crate::types::Type,
    /// Still in scope (a `let` variable's block has not ended).
    pub live: bool,
}

/// State while checking one probe instance.
pub(super) struct Checker<'a> {
    pub env: &'a dyn Env,
    pub opts: &'a Options,
    pub maps: &'a mut MapTable,
    /// Pass 1: learn map types, report nothing.
    pub discovering: bool,
    pub sites: &'a [Site],
    pub vars: Vec<Var>,
    /// The `let` variables of each open block.
    pub scopes: Vec<Vec<usize>>,
    /// How many loops enclose the statement being checked.
    pub loops: usize,
    /// How many times the enclosing `unroll`s repeat the statement being checked.
    pub unrolled: i64,
    /// The longest string each variable was given in pass 1.
    pub str_hints: HashMap<String, usize>,
    pub events: Vec<EventDef>,
    pub diags: Vec<Diagnostic>,
    /// The depths of the stacks the probe takes (`kstack` 127, `kstack(3)` 3): a stack map each.
    pub stacks: std::collections::BTreeSet<u8>,
    /// How stacks print where the call does not say (config `stack_mode`).
    pub stack_mode: crate::types::StackMode,
    /// The deepest stack `len()` measures in the probe (0: none).
    pub stack_len_frames: u8,
    /// The probe's `getopt("name", ...)` calls.
    pub options: Vec<super::builtins::getopt::GetOpt>,
    /// How many `for ($kv : @map)` bodies (BPF callbacks, without the probe's context) enclose
    /// the statement being checked.
    pub map_for: usize,
    /// The script's own `struct` and `enum` definitions.
    pub types: std::rc::Rc<super::script_types::ScriptTypes>,
    /// The probe reads an aggregation (agg_read.rs): the CPUs its values are combined over.
    pub cpu_ids: Option<u32>,
}

impl<'a> Checker<'a> {
    fn new(
        env: &'a dyn Env,
        opts: &'a Options,
        maps: &'a mut MapTable,
        discovering: bool,
        sites: &'a [Site],
    ) -> Checker<'a> {
        Checker {
            env,
            opts,
            maps,
            discovering,
            sites,
            vars: Vec::new(),
            scopes: Vec::new(),
            loops: 0,
            unrolled: 1,
            str_hints: HashMap::new(),
            events: Vec::new(),
            diags: Vec::new(),
            stacks: Default::default(),
            stack_mode: crate::types::StackMode::Bpftrace,
            stack_len_frames: 0,
            options: Vec::new(),
            map_for: 0,
            types: Default::default(),
            cpu_ids: None,
        }
    }

    /// The longest string each variable name held.
    fn string_sizes(&self) -> HashMap<String, usize> {
        let mut out = HashMap::new();
        for v in &self.vars {
            if let crate::types::Type::Str(n) = v.ty {
                let e = out.entry(v.name.clone()).or_insert(0);
                *e = n.max(*e);
            }
        }
        out
    }

    pub fn error(&mut self, d: Diagnostic) {
        if !self.discovering {
            self.diags.push(d);
        }
    }

    pub fn add_event(&mut self, e: EventDef) -> usize {
        self.events.push(e);
        self.events.len() - 1
    }
}
