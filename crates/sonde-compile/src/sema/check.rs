//! The checker's driver: expand probe specs into sites, decide which sites share a program, run the
//! two passes.

use super::maps::MapTable;
use super::script_types::ScriptTypes;
use crate::env::{Env, Options};
use crate::model::site::Site;
use crate::model::tir::{EventDef, MapInfo, TFunc, TProbe, TProgram};
use crate::model::types::{StackMode, Type};
use sonde_syntax::ast::Program;
use sonde_syntax::diag::Diagnostic;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// Type-check `program` against the kernel described by `env`.
pub fn check(
    program: &Program,
    env: &dyn Env,
    opts: &Options,
) -> Result<TProgram, Vec<Diagnostic>> {
    let program = &super::param_literals::write_in(program, &opts.params);
    let mut diags = Vec::new();
    let mut warnings = Vec::new();
    let config = super::config::read(&program.config, &opts.settings, &mut diags);
    let opts =
        &Options { string_size: config.max_strlen.unwrap_or(opts.string_size), ..opts.clone() };
    let program = &super::config_literals::write_in(program, &config, opts.string_size);
    let mut groups = Vec::new();
    for probe in program.probes.iter().enumerate() {
        let said = (&mut diags, &mut warnings);
        groups.extend(super::sites::programs(probe, env, opts, &config, said));
    }
    super::sites::iterator_alone(&groups, &program.probes, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }
    let shared = Shared::new(program, env, opts, config.stack_mode, &mut diags);
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
    let no_sites: Vec<Site> = Vec::new();
    for (i, f) in program.funcs.iter().enumerate() {
        shared.checker(&mut maps, true, &no_sites).fn_body(f, i);
    }
    let mut hints = Vec::new();
    for (index, sites) in &groups {
        let mut cx = shared.checker(&mut maps, true, sites);
        cx.probe(&program.probes[*index]);
        hints.push(cx.type_hints());
    }
    // Pass 2: check for real.
    let mut typed = Typed::default();
    for (i, f) in program.funcs.iter().enumerate() {
        let mut cx = shared.checker(&mut maps, false, &no_sites);
        cx.events = std::mem::take(&mut typed.events);
        let body = cx.fn_body(f, i);
        let sig = shared.funcs[i].clone();
        let vars = typed.gather(cx, &mut diags);
        let func = TFunc {
            name: f.name.clone(),
            params: f.params.len(),
            ret: sig.ret,
            body,
            vars,
            span: f.span,
        };
        typed.funcs.push(func);
    }
    for ((index, sites), type_hints) in groups.into_iter().zip(hints) {
        let probe = &program.probes[index];
        let mut cx = shared.checker(&mut maps, false, &sites);
        cx.type_hints = type_hints;
        cx.events = std::mem::take(&mut typed.events);
        let (predicate, body) = cx.probe(probe);
        let vars = typed.gather(cx, &mut diags);
        typed.probes.push(TProbe { probe: index, sites, predicate, body, vars, span: probe.span });
    }
    let maps = maps.finish(&mut diags);
    warnings.append(&mut typed.warnings);
    if diags.is_empty() {
        let mut typed = typed.program(maps, warnings);
        typed.signed_division = env.has_signed_division();
        typed.print_maps_on_exit = config.print_maps_on_exit;
        typed.str_trunc_trailer = config.str_trunc_trailer;
        typed.max_cat_bytes = config.max_cat_bytes;
        typed.max_strlen = opts.string_size;
        Ok(typed)
    } else {
        Err(diags)
    }
}

/// What every probe's checker is given.
struct Shared<'a> {
    env: &'a dyn Env,
    opts: &'a Options,
    stack_mode: StackMode,
    types: Rc<ScriptTypes>,
    funcs: Rc<Vec<super::functions::FnSig>>,
}

impl<'a> Shared<'a> {
    fn new(
        program: &Program,
        env: &'a dyn Env,
        opts: &'a Options,
        stack_mode: StackMode,
        diags: &mut Vec<Diagnostic>,
    ) -> Shared<'a> {
        // The kernel's BTF only when the script defines types (their fields may name kernel
        // types): reading it costs a program that needs none ~1 ms and 1.5 MiB.
        let btf = if program.types.is_empty() { None } else { env.btf().ok() };
        let types = Rc::new(ScriptTypes::build(&program.types, btf, diags));
        let funcs = super::functions::signatures(&program.funcs, btf, diags);
        Shared { env, opts, stack_mode, types, funcs: Rc::new(funcs) }
    }

    fn checker<'c>(
        &'c self,
        maps: &'c mut MapTable,
        discovering: bool,
        sites: &'c [Site],
    ) -> Checker<'c> {
        let mut cx = Checker::new(self.env, self.opts, maps, discovering, sites);
        cx.stack_mode = self.stack_mode;
        cx.types = self.types.clone();
        cx.funcs = self.funcs.clone();
        cx
    }
}

/// The probes checked so far, and what their checkers found for the whole program.
#[derive(Default)]
struct Typed {
    probes: Vec<TProbe>,
    funcs: Vec<crate::model::tir::TFunc>,
    events: Vec<EventDef>,
    stacks: BTreeSet<u8>,
    stack_len_frames: u8,
    cpu_ids: u32,
    options: Vec<super::builtins::getopt::GetOpt>,
    /// Said once each, though a probe is checked once per group of sites.
    warnings: Vec<Diagnostic>,
}

impl Typed {
    /// Keep what a probe's checker found; its variables' names and types.
    fn gather(&mut self, mut cx: Checker, diags: &mut Vec<Diagnostic>) -> Vec<(String, Type)> {
        self.events = std::mem::take(&mut cx.events);
        self.stacks.append(&mut cx.stacks);
        self.stack_len_frames = self.stack_len_frames.max(cx.stack_len_frames);
        self.cpu_ids = self.cpu_ids.max(cx.cpu_ids.unwrap_or(0));
        super::builtins::getopt::merge(&mut self.options, std::mem::take(&mut cx.options), diags);
        diags.append(&mut cx.diags);
        for w in cx.warnings.drain(..) {
            if !self.warnings.iter().any(|k| k.span == w.span && k.message == w.message) {
                self.warnings.push(w);
            }
        }
        cx.vars.into_iter().map(|v| (v.name, v.ty)).collect()
    }

    fn program(self, maps: Vec<MapInfo>, warnings: Vec<Diagnostic>) -> TProgram {
        TProgram {
            probes: self.probes,
            funcs: self.funcs,
            maps,
            events: self.events,
            stacks: self.stacks,
            stack_len_frames: self.stack_len_frames,
            warnings,
            options: self.options.into_iter().map(|o| (o.name, o.about)).collect(),
            cpu_ids: self.cpu_ids,
            signed_division: true,
            print_maps_on_exit: true,
            str_trunc_trailer: super::config::TRUNC_TRAILER.to_string(),
            max_cat_bytes: super::config::MAX_CAT_BYTES,
            max_strlen: crate::env::STRING_SIZE,
        }
    }
}

pub(super) struct Var {
    pub name: String,
    pub ty: crate::model::types::Type,
    /// Still in scope (a `let` variable's block has not ended).
    pub live: bool,
    /// Declared with a type (`let $v: u8`): assignments convert to it.
    pub declared: bool,
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
    /// The widest string or tuple each variable was given in pass 1.
    pub type_hints: HashMap<String, crate::model::types::Type>,
    pub events: Vec<EventDef>,
    pub diags: Vec<Diagnostic>,
    /// What the user should know of a program that compiles.
    pub warnings: Vec<Diagnostic>,
    /// The depths of the stacks the probe takes (`kstack` 127, `kstack(3)` 3): a stack map each.
    pub stacks: std::collections::BTreeSet<u8>,
    /// How stacks print where the call does not say (config `stack_mode`).
    pub stack_mode: crate::model::types::StackMode,
    /// The deepest stack `len()` measures in the probe (0: none).
    pub stack_len_frames: u8,
    /// The probe's `getopt("name", ...)` calls.
    pub options: Vec<super::builtins::getopt::GetOpt>,
    /// How many `for ($kv : @map)` bodies (BPF callbacks, without the probe's context) enclose
    /// the statement being checked.
    pub map_for: usize,
    /// The script's own `struct` and `enum` definitions.
    pub types: std::rc::Rc<super::script_types::ScriptTypes>,
    /// The program's `fn`s, and the one being checked (its body has no probe context).
    pub funcs: std::rc::Rc<Vec<super::functions::FnSig>>,
    pub in_fn: Option<usize>,
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
            type_hints: HashMap::new(),
            events: Vec::new(),
            diags: Vec::new(),
            warnings: Vec::new(),
            stacks: Default::default(),
            stack_mode: crate::model::types::StackMode::Bpftrace,
            stack_len_frames: 0,
            options: Vec::new(),
            map_for: 0,
            types: Default::default(),
            funcs: Default::default(),
            in_fn: None,
            cpu_ids: None,
        }
    }

    /// The widest string or tuple each variable name held.
    fn type_hints(&self) -> HashMap<String, crate::model::types::Type> {
        use crate::model::types::Type;
        let mut out: HashMap<String, Type> = HashMap::new();
        for v in &self.vars {
            if !matches!(v.ty, Type::Str(_) | Type::Tuple(_) | Type::Record { .. }) {
                continue;
            }
            match out.get_mut(&v.name) {
                Some(t) if t.compatible(&v.ty) => t.widen_strings(&v.ty),
                Some(_) => {}
                None => {
                    out.insert(v.name.clone(), v.ty.clone());
                }
            }
        }
        out
    }

    pub fn error(&mut self, d: Diagnostic) {
        if !self.discovering {
            self.diags.push(d);
        }
    }

    pub fn warn(&mut self, d: Diagnostic) {
        if !self.discovering {
            self.warnings.push(d);
        }
    }

    pub fn add_event(&mut self, e: EventDef) -> usize {
        self.events.push(e);
        self.events.len() - 1
    }
}
