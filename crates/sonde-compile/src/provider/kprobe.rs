//! `kprobe:SYM`, `kprobe:SYM+OFF`, `kprobe:GLOB` (short `k:`) and `kretprobe:SYM` (`kr:`).
//! Arguments are `arg0..arg5` from the registers, typed from BTF when one function is probed at
//! its entry; `retval` in kretprobes.
//!
//! Syscall wrappers (`__x64_sys_openat`, what ply's `SyS_openat` is called today) take one
//! argument, the `struct pt_regs` of the user's registers; their `argN` (and `args->NAME`) are
//! the syscall's own arguments, read from those registers and typed from the syscall's
//! `sys_enter_NAME` tracepoint format, so the manual's `kprobe:SyS_openat { print(str(arg1)); }`
//! still prints file names.

use super::context::{arg_at_return, arg_register, record_field, regs, scalar_or_u64};
use super::context::{caller, Answer, ContextName, Cx};
use super::kernel_functions;
use super::tracepoint_types::parse_typed;
use crate::arch::x86_64::{ARG_REGS, RET_REG, SYSCALL_ARG_REGS};
use crate::btf_types::func_sig;
use crate::env::Env;
use crate::model::site::FuncSig;
use crate::model::site::{AttachPoint, ProgKind, Site};
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_glob::is_glob;
use sonde_syntax::diag::Diagnostic;
use std::rc::Rc;

/// The prefix of x86-64 syscall wrappers (kernels since 4.17 have no other syscall entry symbols).
pub const SYSCALL_WRAPPER_PREFIX: &str = "__x64_sys_";

pub fn expand(
    definition: &str,
    retprobe: bool,
    env: &dyn Env,
    notes: &mut Vec<String>,
) -> Result<Vec<Site>, String> {
    let definition = strip_module(definition, env)?;
    if let Some(address) = address(definition) {
        return Ok(vec![at_address(address, retprobe)]);
    }
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
        let hits = kernel_functions::matching(env, symbol).map_err(|e| e.to_string())?;
        if hits.is_empty() {
            return Err(format!("no traceable kernel function matches `{}`", symbol));
        }
        hits
    } else {
        match env.kernel_functions() {
            // Another name of a listed address (`__x64_sys_getpid`): the kernel takes it.
            Ok(all) if !all.iter().any(|f| f == symbol) && !is_alias(env, symbol) => {
                let copies = compiler_copies(symbol, all);
                if copies.is_empty() {
                    return Err(unknown(symbol, all, env.kernel_symbol_exists(symbol)));
                }
                notes.push(format!(
                    "the kernel has no `{}` of its own, only the compiler's specialized {} {}: probing {}; \
                     its arguments may differ from the source's, so they are not typed",
                    symbol,
                    if copies.len() == 1 { "copy" } else { "copies" },
                    copies.iter().map(|c| format!("`{}`", c)).collect::<Vec<_>>().join(", "),
                    if copies.len() == 1 { "it" } else { "them" },
                ));
                copies
            }
            _ => vec![symbol.to_string()],
        }
    };
    // One function at its entry (or return): its prototype types arg0.. and retval. A compiler
    // copy has no prototype of its own in BTF (and `signature` finds none).
    let func = match (names.len(), offset) {
        (1, 0) => signature(&names[0], env).map(Rc::new),
        _ => None,
    };
    // A wrapper's `args->NAME` are its syscall's arguments (fentry's layout: one u64 each).
    let args = func
        .as_ref()
        .filter(|_| is_syscall_wrapper(&names[0]))
        .map(|f| Rc::new(f.argument_record(false)));
    Ok(names
        .into_iter()
        .map(|symbol| Site {
            syscall_wrapper: offset == 0 && is_syscall_wrapper(&symbol),
            written: None,
            point: AttachPoint::Kprobe { symbol, offset, retprobe },
            kind: ProgKind::Kprobe,
            args: args.clone(),
            func: func.clone(),
        })
        .collect())
}

/// bpftrace's `kprobe:0xffffffff81234560` (or the address in decimal): an absolute kernel
/// address, which the kernel checks when the probe is attached.
pub(super) fn address(definition: &str) -> Option<u64> {
    match definition.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if definition.bytes().all(|b| b.is_ascii_digit()) => definition.parse().ok(),
        None => None,
    }
}

/// The site of a probe on an address: no symbol, the address in `offset` (as the kprobe PMU
/// takes it), no prototype to type its arguments.
fn at_address(address: u64, retprobe: bool) -> Site {
    Site {
        syscall_wrapper: false,
        written: None,
        point: AttachPoint::Kprobe { symbol: String::new(), offset: address, retprobe },
        kind: ProgKind::Kprobe,
        args: None,
        func: None,
    }
}

/// Is this site a probe on an absolute address (`kprobe:0xffffffff81234560`)?
pub fn on_address(site: &Site) -> bool {
    matches!(&site.point, AttachPoint::Kprobe { symbol, .. } if symbol.is_empty())
}

/// The whole-function copies GCC made of `symbol` (`NAME.constprop.0`, `NAME.isra.0`), which the
/// kernel's symbol table has in its place when every call goes to a copy. `.part.N` (a piece
/// split out of the function) and `.cold` (its unlikely paths) do not run on every call: left out.
fn compiler_copies(symbol: &str, all: &[String]) -> Vec<String> {
    let mut copies: Vec<String> = all
        .iter()
        .filter(|f| {
            let Some(rest) = f.strip_prefix(symbol).and_then(|r| r.strip_prefix('.')) else {
                return false;
            };
            let mut parts = rest.split('.');
            matches!(parts.next(), Some("constprop" | "isra"))
                && parts.all(|p| {
                    !p.is_empty()
                        && (p.bytes().all(|b| b.is_ascii_digit())
                            || p == "constprop"
                            || p == "isra")
                })
        })
        .cloned()
        .collect();
    copies.sort();
    copies.dedup();
    copies
}

fn is_alias(env: &dyn Env, symbol: &str) -> bool {
    kernel_functions::twin_of(env, symbol).is_some()
}

pub fn is_syscall_wrapper(symbol: &str) -> bool {
    symbol.len() > SYSCALL_WRAPPER_PREFIX.len() && symbol.starts_with(SYSCALL_WRAPPER_PREFIX)
}

/// The prototype `arg0..` and `retval` are typed from: BTF's, or for a syscall wrapper the
/// syscall's arguments from its `syscalls:sys_enter_NAME` format and the wrapper's return type.
pub fn signature(symbol: &str, env: &dyn Env) -> Option<FuncSig> {
    let btf_sig = env.btf().ok().and_then(|btf| func_sig(btf, symbol));
    if !is_syscall_wrapper(symbol) {
        return btf_sig;
    }
    let syscall = &symbol[SYSCALL_WRAPPER_PREFIX.len()..];
    let ret = btf_sig.as_ref().map(|s| s.ret.clone()).unwrap_or(Type::S64);
    let params = env
        .tracepoint_format("syscalls", &format!("sys_enter_{}", syscall))
        .ok()
        .and_then(|text| parse_typed("syscalls", syscall, &text, env).ok())
        .map(|record| {
            record
                .fields
                .into_iter()
                .filter(|f| !f.name.starts_with("common_") && f.name != "__syscall_nr")
                .map(|f| (f.name, f.ty))
                .collect()
        })?;
    Some(FuncSig { name: syscall.to_string(), btf_id: 0, params, ret })
}

/// `vfs_read+0x10` / `vfs_read+16` -> ("vfs_read", 16).
fn split_offset(def: &str) -> Result<(&str, u64), String> {
    let Some((sym, off)) = def.split_once('+') else { return Ok((def, 0)) };
    let parsed = match off.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => off.parse::<u64>(),
    };
    parsed
        .map(|o| (sym, o))
        .map_err(|_| format!("`{}` is not an offset: expected a number such as 8 or 0x10", off))
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
    let modern = [SYSCALL_WRAPPER_PREFIX, "__do_sys_"]
        .iter()
        .map(|p| format!("{}{}", p, bare))
        .find(|m| all.contains(m));
    if let (true, Some(modern)) = (bare != symbol, modern) {
        msg.push_str(&format!("; syscalls are spelled `{}` on this kernel", modern));
    } else if let Some(best) = sonde_syntax::closest(symbol, all.iter().map(String::as_str)) {
        msg.push_str(&format!(" (did you mean `{}`?)", best));
    }
    msg
}

/// What `argN`, `retval`, `caller`, `regs` and, in a syscall wrapper, `args->NAME` mean in a
/// kprobe or kretprobe.
pub fn context(site: &Site, name: ContextName, cx: &Cx) -> Answer {
    let AttachPoint::Kprobe { retprobe, .. } = site.point else { return None };
    Some(match name {
        ContextName::Arg(n) if retprobe => Err(arg_at_return(n, "kretprobe", "kprobe", cx.span)),
        ContextName::Arg(n) => arg(site, n, cx),
        ContextName::Retval if retprobe => {
            let ret = site.func.as_ref().map(|f| f.ret.clone()).filter(Type::is_scalar);
            Ok(cx.expr(TExprKind::CtxLoad { offset: RET_REG }, ret.unwrap_or(Type::S64)))
        }
        ContextName::Caller => caller(site, cx),
        ContextName::Regs => Ok(regs(cx)),
        ContextName::Field { field, .. } if site.syscall_wrapper => {
            record_field(site, field, cx.span)?.and_then(|f| arg(site, f.offset / 8, cx))
        }
        _ => return None,
    })
}

/// `argN` at a function's entry: its register, typed from BTF at the function's start.
fn arg(site: &Site, n: usize, cx: &Cx) -> Result<TExpr, Diagnostic> {
    let offset = arg_register(n, cx.span)?;
    if site.syscall_wrapper {
        return syscall_arg(site, n, cx);
    }
    // At an offset into the function the registers may hold other values by now.
    let ty = match &site.point {
        AttachPoint::Kprobe { offset: 0, .. } => {
            scalar_or_u64(site.func.as_ref().and_then(|f| f.params.get(n)).map(|p| &p.1))
        }
        _ => Type::U64,
    };
    Ok(cx.expr(TExprKind::CtxLoad { offset }, ty))
}

/// Argument `n` of the syscall whose wrapper is probed: the wrapper's only argument points to
/// the user's registers, where the syscall ABI put it (rdi, rsi, rdx, r10, r8, r9).
fn syscall_arg(site: &Site, n: usize, cx: &Cx) -> Result<TExpr, Diagnostic> {
    let span = cx.span;
    let Some(&offset) = SYSCALL_ARG_REGS.get(n) else {
        let msg = format!("a syscall has at most 6 arguments: there is no `arg{}`", n);
        return Err(Diagnostic::error(span, msg));
    };
    // Typed from the syscall's format when it was found; untyped otherwise (and in globs).
    let ty = match &site.func {
        Some(f) => match f.params.get(n) {
            Some((_, t)) => scalar_or_u64(Some(t)),
            None => {
                let msg = format!(
                    "syscall `{}` takes {} argument(s): there is no `arg{}`",
                    f.name,
                    f.params.len(),
                    n
                );
                return Err(Diagnostic::error(span, msg));
            }
        },
        None => Type::U64,
    };
    let regs = cx.expr(TExprKind::CtxLoad { offset: ARG_REGS[0] }, Type::U64);
    let read = TExprKind::Read { ptr: Box::new(regs), offset: offset as i64, user: false };
    Ok(cx.expr(read, ty))
}

/// bpftrace's `kprobe:vmlinux:FUNC` and `kprobe:MODULE:FUNC`: the function alone, once the module
/// is known to be the kernel or a loaded module (kprobes find functions by name either way).
fn strip_module<'a>(definition: &'a str, env: &dyn Env) -> Result<&'a str, String> {
    let Some((module, func)) = definition.split_once(':') else { return Ok(definition) };
    if module != "vmlinux" && env.kernel_module_loaded(module) == Some(false) {
        return Err(format!(
            "kernel module `{}` is not loaded (/proc/modules): load it, or write `kprobe:{}` for the kernel's own",
            module, func
        ));
    }
    Ok(func)
}

#[cfg(test)]
mod tests {
    use super::{compiler_copies, split_offset};

    #[test]
    fn addresses_are_hex_or_decimal() {
        assert_eq!(super::address("0xffffffff81000000"), Some(0xffffffff81000000));
        assert_eq!(super::address("305419896"), Some(0x12345678));
        assert_eq!(super::address("vfs_read"), None);
        assert_eq!(super::address("0xnothex"), None);
        assert_eq!(super::address(""), None);
    }

    #[test]
    fn compiler_copies_are_whole_function_clones_only() {
        let all: Vec<String> = [
            "__netif_receive_skb_core.constprop.0",
            "__netif_receive_skb_core.part.0",
            "__netif_receive_skb_core.cold",
            "__netif_receive_skb_core_x",
            "tcp_ack.isra.0",
            "tcp_ack.isra.0.constprop.1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            compiler_copies("__netif_receive_skb_core", &all),
            vec!["__netif_receive_skb_core.constprop.0"]
        );
        assert_eq!(
            compiler_copies("tcp_ack", &all),
            vec!["tcp_ack.isra.0", "tcp_ack.isra.0.constprop.1"]
        );
        assert!(compiler_copies("tcp_ac", &all).is_empty());
    }

    #[test]
    fn offsets() {
        assert_eq!(split_offset("vfs_read"), Ok(("vfs_read", 0)));
        assert_eq!(split_offset("vfs_read+0x10"), Ok(("vfs_read", 16)));
        assert_eq!(split_offset("dev_hard_start_xmit+8"), Ok(("dev_hard_start_xmit", 8)));
        assert!(split_offset("f+x").is_err());
    }
}
