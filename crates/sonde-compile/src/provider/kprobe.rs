//! `kprobe:SYM`, `kprobe:SYM+OFF`, `kprobe:GLOB` (short `k:`) and `kretprobe:SYM` (`kr:`).
//! Arguments are `arg0..arg5` from the registers, typed from BTF when one function is probed at
//! its entry; `retval` in kretprobes.

use super::{AttachPoint, ProgKind, Site};
use crate::btf_types::func_sig;
use crate::env::Env;
use crate::glob::{glob_match, is_glob};
use std::rc::Rc;

pub fn expand(definition: &str, retprobe: bool, env: &dyn Env) -> Result<Vec<Site>, String> {
    let (symbol, offset) = split_offset(definition)?;
    if symbol.is_empty() {
        return Err("a kprobe needs a kernel function: `kprobe:vfs_read`".into());
    }
    if retprobe && offset != 0 {
        return Err(format!("a kretprobe fires when `{}` returns: it takes no offset", symbol));
    }
    let names: Vec<String> = if is_glob(symbol) {
        if offset != 0 {
            return Err("an offset needs one function, not a pattern".into());
        }
        let mut hits: Vec<String> =
            env.kernel_functions().map_err(|e| e.to_string())?.into_iter().filter(|f| glob_match(symbol, f)).collect();
        hits.sort();
        hits.dedup();
        if hits.is_empty() {
            return Err(format!("no traceable kernel function matches `{}`", symbol));
        }
        hits
    } else {
        if let Ok(all) = env.kernel_functions() {
            if !all.iter().any(|f| f == symbol) {
                return Err(unknown(symbol, &all, env.kernel_symbol_exists(symbol)));
            }
        }
        vec![symbol.to_string()]
    };
    // One function at its entry (or return): its prototype types arg0.. and retval.
    let func = match (names.len(), offset, env.btf()) {
        (1, 0, Ok(btf)) => func_sig(btf, &names[0]).map(Rc::new),
        _ => None,
    };
    Ok(names
        .into_iter()
        .map(|symbol| Site {
            point: AttachPoint::Kprobe { symbol, offset, retprobe },
            kind: ProgKind::Kprobe,
            args: None,
            func: func.clone(),
        })
        .collect())
}

/// `vfs_read+0x10` / `vfs_read+16` -> ("vfs_read", 16).
fn split_offset(def: &str) -> Result<(&str, u64), String> {
    let Some((sym, off)) = def.split_once('+') else { return Ok((def, 0)) };
    let parsed = match off.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => off.parse::<u64>(),
    };
    parsed.map(|o| (sym, o)).map_err(|_| format!("`{}` is not an offset: expected a number such as 8 or 0x10", off))
}

fn unknown(symbol: &str, all: &[String], exists: Option<bool>) -> String {
    let mut msg = match exists {
        Some(true) => format!(
            "kprobes cannot trace `{}`: the kernel has it but marks it notrace or lists it on the kprobe blacklist",
            symbol
        ),
        Some(false) => format!("there is no kernel function `{}` (it may have been inlined or renamed)", symbol),
        None => format!(
            "`{}` is not a kernel function kprobes can trace (it may not exist, be inlined, or be marked notrace)",
            symbol
        ),
    };
    // Old syscall spellings (ply's `SyS_openat`, `sys_openat`) are `__x64_sys_openat` today, or
    // `__do_sys_getpid` for syscalls without arguments.
    let bare = symbol.trim_start_matches("SyS_").trim_start_matches("sys_");
    let modern = ["__x64_sys_", "__do_sys_"].iter().map(|p| format!("{}{}", p, bare)).find(|m| all.contains(m));
    if let (true, Some(modern)) = (bare != symbol, modern) {
        msg.push_str(&format!("; syscalls are spelled `{}` on this kernel", modern));
    } else if let Some(best) = sonde_syntax::closest(symbol, all.iter().map(String::as_str)) {
        msg.push_str(&format!(" (did you mean `{}`?)", best));
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::split_offset;

    #[test]
    fn offsets() {
        assert_eq!(split_offset("vfs_read"), Ok(("vfs_read", 0)));
        assert_eq!(split_offset("vfs_read+0x10"), Ok(("vfs_read", 16)));
        assert_eq!(split_offset("dev_hard_start_xmit+8"), Ok(("dev_hard_start_xmit", 8)));
        assert!(split_offset("f+x").is_err());
    }
}
