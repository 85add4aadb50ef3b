//! `fentry:FUNC` / `fexit:FUNC` (also `kfunc:`/`kretfunc:`): BPF trampolines on kernel functions,
//! with the arguments by name (`args->filename`) and, in fexit, `retval`, all typed from BTF.

use super::{AttachPoint, ProgKind, Site};
use crate::btf_types::func_sig;
use crate::env::Env;
use sonde_glob::{glob_match, is_glob};
use std::rc::Rc;

pub fn expand(definition: &str, exit: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let btf = env.btf().map_err(|e| format!("{}; fentry/fexit need it: use kprobe: instead", e))?;
    let names: Vec<String> = if is_glob(definition) {
        let mut hits: Vec<String> =
            btf.funcs().map(|(n, _)| n).filter(|n| glob_match(definition, n)).map(String::from).collect();
        hits.sort();
        hits.dedup();
        if hits.is_empty() {
            return Err(format!("no kernel function in BTF matches `{}`", definition));
        }
        hits
    } else {
        vec![definition.to_string()]
    };
    names
        .iter()
        .map(|name| {
            let sig = func_sig(btf, name).ok_or_else(|| {
                let mut msg = format!("kernel function `{}` is not in BTF, so fentry cannot attach to it", name);
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
            })
        })
        .collect()
}
