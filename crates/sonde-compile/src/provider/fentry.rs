//! `fentry:FUNC` / `fexit:FUNC` (also `kfunc:`/`kretfunc:`): BPF trampolines on kernel functions,
//! with the arguments by name (`args->filename`) and, in fexit, `retval`, all typed from BTF.

use super::context::{caller, read_field, record_field, slot_arg, Answer, ContextName, Cx};
use super::kernel_functions;
use crate::btf_types::func_sig;
use crate::env::Env;
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::TExprKind;
use crate::model::types::Type;
use sonde_glob::is_glob;
use std::rc::Rc;

pub fn expand(definition: &str, exit: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let btf = env.btf().map_err(|e| format!("{}; fentry/fexit need it: use kprobe: instead", e))?;
    // (the name probed, the name BTF types it under): the same unless the name is an alias
    // kallsyms gives a BTF function's address (`__x64_sys_getpid` is `__do_sys_getpid`).
    let names: Vec<(String, String)> = if is_glob(definition) {
        let hits = kernel_functions::matching_in_btf(env, btf, definition);
        if hits.is_empty() {
            return Err(format!("no kernel function in BTF matches `{}`", definition));
        }
        hits
    } else {
        let typed_as = match btf.find_func(definition) {
            Some(_) => None,
            None => kernel_functions::twin_of(env, definition),
        };
        vec![(definition.to_string(), typed_as.unwrap_or_else(|| definition.to_string()))]
    };
    names
        .iter()
        .map(|(name, typed_as)| {
            let sig = func_sig(btf, typed_as).ok_or_else(|| {
                let mut msg = format!(
                    "kernel function `{}` is not in BTF, so fentry cannot attach to it",
                    name
                );
                if let Some(best) = sonde_syntax::closest(name, btf.funcs().map(|(n, _)| n)) {
                    msg.push_str(&format!(" (did you mean `{}`?)", best));
                }
                msg
            })?;
            Ok(Site {
                point: AttachPoint::Fentry { func: name.clone(), btf_id: sig.btf_id, exit },
                kind: if exit { ProgKind::Fexit } else { ProgKind::Fentry },
                args: Some(Rc::new(sig.argument_record(exit))),
                func: Some(Rc::new(sig)),
                syscall_wrapper: false,
                written: None,
            })
        })
        .collect()
}

/// What `argN`, `args->NAME`, `caller` and, in fexit, `retval` mean: the trampoline's context
/// is the arguments as u64 slots, then the return value.
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::Fentry { exit, .. } = site.point else { return None };
    let params = site.func.as_ref().map(|f| f.params.len()).unwrap_or(0);
    Some(match name {
        ContextName::Arg(n) => slot_arg(site, n, "the function", cx),
        ContextName::Retval if exit => {
            let ret = site.func.as_ref().map(|f| f.ret.clone()).filter(Type::is_scalar);
            Ok(cx.expr(TExprKind::CtxLoad { offset: 8 * params }, ret.unwrap_or(Type::S64)))
        }
        ContextName::Caller => caller(site, cx),
        ContextName::Field { field, .. } => {
            record_field(site, field, cx.span)?.map(|f| read_field(site, f, cx))
        }
        _ => return None,
    })
}
