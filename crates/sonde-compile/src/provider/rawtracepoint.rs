//! `rawtracepoint:NAME` (short `rt:`; bpftrace's spelling, `rawtracepoint:vmlinux:NAME` too): a
//! kernel tracepoint's C arguments, typed from BTF, through a BTF-typed raw tracepoint (tp_btf).
//! Cheaper than `tracepoint:` where both exist: no perf event and no record copied per event,
//! and its BPF link attaches and detaches in a few ms where a perf-event tracepoint takes ~70 ms
//! (field notes). The arguments are the tracepoint's `TP_PROTO`, not its tracefs record:
//! `rawtracepoint:sched_switch { @[args->next->comm] = count(); }`.

use super::context::{read_field, record_field, slot_arg, Answer, ContextName, Cx};
use crate::btf_types::{convert, func_sig};
use crate::env::Env;
use crate::model::site::FuncSig;
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::types::Type;
use sonde_btf::{Btf, Kind, NamedKind};
use sonde_glob::{glob_match, is_glob};
use std::rc::Rc;

/// The typedef the kernel's tp_btf attach goes by: `btf_trace_NAME`.
const TYPEDEF_PREFIX: &str = "btf_trace_";

pub fn expand(definition: &str, env: &dyn Env) -> Result<Vec<Site>, String> {
    // bpftrace writes `rawtracepoint:vmlinux:NAME` or `rawtracepoint:MODULE:NAME`; the module
    // part only says where BTF has it (sonde reads vmlinux's), but it must name one.
    let name = match definition.split_once(':') {
        None => definition,
        Some((_, name)) if name.contains(':') => {
            return Err("a raw tracepoint is `rawtracepoint:[MODULE:]NAME`".into());
        }
        Some((module, name)) => {
            check_module(module, env)?;
            name
        }
    };
    if name.is_empty() {
        return Err("a raw tracepoint needs a name: `rawtracepoint:sched_switch`".into());
    }
    let btf = env
        .btf()
        .map_err(|e| format!("{}; rawtracepoint: needs it: use tracepoint: instead", e))?;
    if !is_glob(name) {
        return Ok(vec![site(btf, name)?]);
    }
    let all = Catalog::new(btf);
    let hits: Vec<Site> = all
        .entries()
        .filter(|(n, _)| glob_match(name, n))
        .map(|(n, typedef)| site_of(n, all.signature(n, typedef)))
        .collect();
    if hits.is_empty() {
        return Err(format!("no raw tracepoint in the kernel's BTF matches `{}`", name));
    }
    Ok(hits)
}

/// Every raw tracepoint BTF types, read in one pass over its types: for globs and listings,
/// where a lookup by name each would scan BTF's strings once per tracepoint (1600 of them).
pub struct Catalog<'a> {
    btf: &'a Btf,
    /// Names without the prefix, sorted, with their typedef's id.
    typedefs: Vec<(String, u32)>,
    /// The stubs that name the arguments (see [`prototype`]), by tracepoint name.
    stubs: std::collections::HashMap<&'a str, sonde_btf::TypeId>,
}

impl<'a> Catalog<'a> {
    pub fn new(btf: &'a Btf) -> Catalog<'a> {
        let mut typedefs: Vec<(String, u32)> = btf
            .typedefs_with_prefix(TYPEDEF_PREFIX)
            .into_iter()
            .map(|(n, id)| (n[TYPEDEF_PREFIX.len()..].to_string(), id.0))
            .collect();
        typedefs.sort();
        typedefs.dedup_by(|a, b| a.0 == b.0);
        let mut stubs = std::collections::HashMap::new();
        // `__probestub_` wins over `__bpf_trace_`, as in `prototype`.
        for prefix in ["__bpf_trace_", "__probestub_"] {
            for (f, id) in btf.funcs() {
                if let Some(name) = f.strip_prefix(prefix) {
                    stubs.insert(name, id);
                }
            }
        }
        Catalog { btf, typedefs, stubs }
    }

    /// (name, typedef id) of each, by name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, u32)> + '_ {
        self.typedefs.iter().map(|(n, id)| (n.as_str(), *id))
    }

    /// The arguments of `name` (whose typedef is `typedef`), as [`signature`] gives them.
    pub fn signature(&self, name: &str, typedef: u32) -> FuncSig {
        let named =
            self.stubs.get(name).and_then(|&id| self.btf.func(id)).map(|f| {
                f.params.iter().map(|p| (p.name.clone(), convert(self.btf, p.ty))).collect()
            });
        with_params(name, typedef, named.unwrap_or_else(|| unnamed_params(self.btf, typedef)))
    }
}

/// `vmlinux`, or a kernel module that is loaded (when the kernel says which are).
fn check_module(module: &str, env: &dyn Env) -> Result<(), String> {
    if module == "vmlinux" || module.contains(['*', '?', '[']) {
        return Ok(());
    }
    match env.kernel_module_loaded(module) {
        Some(false) => Err(format!(
            "`{}` is neither `vmlinux` nor a loaded kernel module: `rawtracepoint:vmlinux:NAME` or `rawtracepoint:NAME`",
            module
        )),
        _ => Ok(()),
    }
}

/// Every tracepoint BTF has a `btf_trace_` typedef for.
pub fn names(btf: &Btf) -> impl Iterator<Item = String> + '_ {
    btf.names_with_prefix(TYPEDEF_PREFIX)
        .into_iter()
        .filter_map(|n| n.strip_prefix(TYPEDEF_PREFIX).map(String::from))
}

/// The tracepoint's arguments (names and types), if BTF has the tracepoint: for `-lv`.
pub fn signature(btf: &Btf, name: &str) -> Option<FuncSig> {
    let typedef = btf.find_named(NamedKind::Typedef, &format!("{TYPEDEF_PREFIX}{name}"))?;
    Some(prototype(btf, name, typedef.0))
}

fn site(btf: &Btf, name: &str) -> Result<Site, String> {
    let Some(typedef) = btf.find_named(NamedKind::Typedef, &format!("{TYPEDEF_PREFIX}{name}"))
    else {
        let mut msg = format!(
            "the kernel has no raw tracepoint `{}` (no `btf_trace_{}` in its BTF)",
            name, name
        );
        if let Some(best) =
            sonde_syntax::closest(name, names(btf).collect::<Vec<_>>().iter().map(String::as_str))
        {
            msg.push_str(&format!(" (did you mean `{}`?)", best));
        }
        return Err(msg);
    };
    Ok(site_of(name, prototype(btf, name, typedef.0)))
}

fn site_of(name: &str, sig: FuncSig) -> Site {
    Site {
        point: AttachPoint::RawTracepoint { name: name.to_string(), btf_id: sig.btf_id },
        kind: ProgKind::TpBtf,
        args: Some(Rc::new(sig.argument_record(false))),
        func: Some(Rc::new(sig)),
        syscall_wrapper: false,
        written: None,
    }
}

/// The tracepoint's arguments, less the `void *__data` every probe function takes first. Names
/// come from the kernel's stub of the same prototype (`__probestub_NAME`, 6.4+; or
/// `__bpf_trace_NAME` for an event that is its own class); otherwise (5.10's BTF has neither:
/// they are notrace, and its pahole left such functions out) the typedef's function prototype
/// gives the types and the names are `arg0`, `arg1`...
fn prototype(btf: &Btf, name: &str, typedef: u32) -> FuncSig {
    let named = ["__probestub_", "__bpf_trace_"]
        .iter()
        .find_map(|p| func_sig(btf, &format!("{p}{name}")))
        .map(|s| s.params);
    with_params(name, typedef, named.unwrap_or_else(|| unnamed_params(btf, typedef)))
}

/// The signature from the probe function's parameters (the first, `void *__data`, dropped).
fn with_params(name: &str, typedef: u32, params: Vec<(String, Type)>) -> FuncSig {
    FuncSig {
        name: name.to_string(),
        btf_id: typedef,
        params: params.into_iter().skip(1).collect(),
        ret: Type::Void,
    }
}

/// typedef -> pointer -> function prototype: its parameter types, unnamed.
fn unnamed_params(btf: &Btf, typedef: u32) -> Vec<(String, Type)> {
    let Kind::Ptr(proto) = btf.kind(btf.strip(sonde_btf::TypeId(typedef))) else {
        return Vec::new();
    };
    match btf.kind(proto) {
        Kind::FuncProto { params, .. } => {
            params.iter().map(|p| (String::new(), convert(btf, p.ty))).collect()
        }
        _ => Vec::new(),
    }
}

/// `argN` and `args->NAME`: the arguments as u64 slots, as fentry's.
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::RawTracepoint { .. } = site.point else { return None };
    Some(match name {
        ContextName::Arg(n) => slot_arg(site, n, "the tracepoint", cx),
        ContextName::Field { field, .. } => {
            record_field(site, field, cx.span)?.map(|f| read_field(site, f, cx))
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::EnvError;

    /// A kernel with module ext4 loaded and no BTF.
    struct Modules;
    impl Env for Modules {
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
            Err(EnvError::NotFound("none".into()))
        }
        fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
            Ok(Vec::new())
        }
        fn kernel_module_loaded(&self, name: &str) -> Option<bool> {
            Some(name == "ext4")
        }
    }

    #[test]
    fn the_module_part_names_vmlinux_or_a_loaded_module() {
        let err = |d: &str| expand(d, &Modules).unwrap_err();
        assert!(
            err("nonsense:sys_exit").contains("`nonsense` is neither"),
            "{}",
            err("nonsense:sys_exit")
        );
        assert!(err("a:b:sys_exit").contains("rawtracepoint:[MODULE:]NAME"));
        // These get past the module and stop at the missing BTF.
        for ok in ["vmlinux:sys_exit", "ext4:ext4_sync_fs", "sys_exit"] {
            assert!(err(ok).contains("BTF"), "{}: {}", ok, err(ok));
        }
    }
}
