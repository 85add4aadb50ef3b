//! `iter:NAME` (`iter:task`, `iter:task_file`, `iter:task_vma`, ...): a BPF iterator. The
//! program runs once for each object the kernel's `bpf_iter_NAME` target visits, when sonde
//! reads the iterator, with `ctx` the `struct bpf_iter__NAME *` from BTF (`ctx.task.comm`);
//! `printf` writes into the iterator's output (bpf_seq_printf), which sonde prints. The run
//! ends when the iteration does, so an iter probe is the program's only probe besides
//! BEGIN and END.

use super::context::{Answer, ContextName, Cx};
use crate::btf_types::named;
use crate::env::Env;
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::{Builtin, TExprKind};
use crate::model::types::Type;
use sonde_btf::{Btf, NamedKind};

/// The kernel's iterator targets are `bpf_iter_NAME` functions...
const FUNC_PREFIX: &str = "bpf_iter_";
/// ...whose programs see a `struct bpf_iter__NAME`.
const CONTEXT_PREFIX: &str = "bpf_iter__";

pub fn expand(definition: &str, env: &dyn Env) -> Result<Vec<Site>, String> {
    if definition.is_empty() || definition.contains([':', '*', '?', '[']) {
        return Err(format!(
            "`iter:{}` is not an iterator: write `iter:NAME` with one name, e.g. `iter:task` \
             (list them with `sonde -l 'iter:*'`)",
            definition
        ));
    }
    let btf = env.btf().map_err(|e| format!("{}; iter: needs it", e))?;
    let func = btf
        .find_func(&format!("{}{}", FUNC_PREFIX, definition))
        .filter(|_| btf.find_named(NamedKind::Struct, &context_struct(definition)).is_some())
        .ok_or_else(|| {
            let mut msg = format!("this kernel has no `{}` iterator", definition);
            let names = targets(btf);
            if let Some(best) = sonde_syntax::closest(definition, names.iter().map(String::as_str))
            {
                msg.push_str(&format!(" (did you mean `iter:{}`?)", best));
            }
            msg
        })?;
    let point = AttachPoint::Iter { name: definition.to_string(), btf_id: func.id.0 };
    Ok(vec![Site::new(point, ProgKind::Iter)])
}

fn context_struct(name: &str) -> String {
    format!("{}{}", CONTEXT_PREFIX, name)
}

/// The iterators this kernel's BTF declares (`task`, `task_file`, ...), sorted.
pub fn targets(btf: &Btf) -> Vec<String> {
    let mut names: Vec<String> = btf
        .funcs()
        .filter_map(|(f, _)| f.strip_prefix(FUNC_PREFIX))
        .filter(|n| btf.find_named(NamedKind::Struct, &context_struct(n)).is_some())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `ctx`: the iterator's context record, typed from BTF.
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::Iter { name: target, .. } = &site.point else { return None };
    let ContextName::Ctx = name else { return None };
    let record =
        cx.env.btf().ok().and_then(|b| named(b, &format!("struct {}", context_struct(target))));
    let ty = match record {
        Some(t) => Type::Ptr { to: Box::new(t), user: false },
        None => Type::U64,
    };
    Some(Ok(cx.expr(TExprKind::Builtin(Builtin::Ctx), ty)))
}
