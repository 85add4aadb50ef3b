//! `uprobe:BINARY:SYMBOL[+OFF]` (short `u:`) and `uretprobe:BINARY:SYMBOL` (`ur:`). BINARY is a
//! path or, as in surftrace, a name found on PATH or in the loader's library directories
//! (`bash:readline`, `libc:fopen`). Arguments are `arg0..arg5`; pointers are user memory.

use super::{AttachPoint, ProgKind, Site};
use crate::env::Env;

pub fn expand(definition: &str, retprobe: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let Some((binary, symbol)) = definition.rsplit_once(':') else {
        return Err(format!("`{}` is not a uprobe: expected BINARY:SYMBOL, e.g. `uprobe:/bin/bash:readline`", definition));
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
