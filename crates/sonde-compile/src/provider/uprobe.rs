//! `uprobe:BINARY:SYMBOL[+OFF]` (short `u:`) and `uretprobe:BINARY:SYMBOL` (`ur:`). BINARY is a
//! path or, as in surftrace, a name found on PATH or in the loader's library directories
//! (`bash:readline`, `libc:fopen`). Arguments are `arg0..arg5`; pointers are user memory.

use super::context::{arg_at_return, arg_register, regs, Answer, ContextName, Cx};
use crate::arch::x86_64::RET_REG;
use crate::env::Env;
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::TExprKind;
use crate::model::types::Type;

pub fn expand(definition: &str, retprobe: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let Some((binary, symbol)) = definition.rsplit_once(':') else {
        return Err(format!(
            "`{}` is not a uprobe: expected BINARY:SYMBOL, e.g. `uprobe:/bin/bash:readline`",
            definition
        ));
    };
    if binary.is_empty() || symbol.is_empty() {
        return Err(format!("`{}` is not a uprobe: expected BINARY:SYMBOL", definition));
    }
    if retprobe && symbol.contains('+') {
        return Err(format!("a uretprobe fires when `{}` returns: it takes no offset", symbol));
    }
    let (path, offset) = env.user_symbol(binary, symbol).map_err(|e| e.to_string())?;
    Ok(vec![Site::new(
        AttachPoint::Uprobe { path, symbol: symbol.to_string(), offset, retprobe },
        ProgKind::Kprobe,
    )])
}

/// What `argN`, `retval` and `regs` mean in a uprobe or uretprobe: registers, untyped (user
/// binaries bring no BTF).
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::Uprobe { retprobe, ref symbol, .. } = site.point else { return None };
    Some(match name {
        ContextName::Arg(n) if retprobe => Err(arg_at_return(n, "uretprobe", "uprobe", cx.span)),
        ContextName::Arg(n) => {
            arg_register(n, cx.span).map(|offset| cx.expr(TExprKind::CtxLoad { offset }, Type::U64))
        }
        ContextName::Retval if retprobe => {
            Ok(cx.expr(TExprKind::CtxLoad { offset: RET_REG }, Type::S64))
        }
        ContextName::Regs => Ok(regs(cx)),
        // bpftrace's `func` in a uprobe: the function's name, a constant of the site's own
        // program (`sema::check` gives each uprobe naming it one).
        ContextName::Caller => {
            let name = symbol.clone().into_bytes();
            Ok(cx.expr(TExprKind::Str(name.clone()), Type::Str(name.len() + 1)))
        }
        _ => return None,
    })
}
