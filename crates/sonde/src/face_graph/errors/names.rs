//! The functions `--errors` records: the entry function and the `-a` names and globs, checked
//! and expanded as the other faces do; what each returns (from BTF: what counts as failing);
//! the entry function's typed arguments; and frame addresses back to names.

use crate::error::Failure;
use crate::host_env::HostEnv;
use sonde_compile::provider::{is_syscall_wrapper, kernel_functions, kprobe_signature};
use sonde_compile::types::Type;
use sonde_compile::Env;
use sonde_graph::errors::path::{function_of, ArgValue, Frame, RawFrame};
use sonde_graph::errors::program::{Arg, Function, Returns};
use sonde_output::value::Value;
use sonde_symbols::Symbolizer;
use std::collections::{BTreeMap, HashMap, HashSet};

/// More functions than this are refused: each is a kprobe and a kretprobe where the kernel has
/// no kprobe_multi, and a glob this wide is seldom meant.
const MAX_FUNCTIONS: usize = 4000;
/// From this many functions on, kprobe_multi links (where the kernel has them) rather than a
/// trampoline each.
const MANY_FUNCTIONS: usize = 64;
/// Arguments come in registers: the first six.
const MAX_ARGS: usize = 6;
/// How far past a function's kallsyms address `func` may point (an IBT landing pad).
const ENTRY_SLACK: u64 = 16;

/// One argument of the entry function kept for printing.
pub struct Param {
    pub name: String,
    pub ty: Type,
    pub kind: Arg,
}

pub struct Functions {
    pub entry: String,
    pub inner: Vec<String>,
    pub args: Vec<Param>,
    returns: HashMap<String, Returns>,
    /// The functions probed through BPF trampolines (fentry/fexit).
    trampolines: HashSet<String>,
    by_addr: BTreeMap<u64, String>,
}

impl Functions {
    pub fn resolve(env: &HostEnv, entry: &str, also: &[String]) -> Result<Functions, Failure> {
        let entry = super::super::check_function_in(env, entry)?;
        let mut inner: Vec<String> = Vec::new();
        for pattern in also {
            if is_glob(pattern) {
                let hits = kernel_functions::matching(env, pattern)
                    .map_err(|e| Failure::Setup(e.to_string()))?;
                if hits.is_empty() {
                    return Err(Failure::Usage(format!(
                        "no traceable kernel function matches `{pattern}`"
                    )));
                }
                inner.extend(hits);
            } else {
                inner.push(super::super::check_function_in(env, pattern)?);
            }
        }
        inner.sort();
        inner.dedup();
        inner.retain(|f| *f != entry);
        if inner.len() > MAX_FUNCTIONS {
            return Err(Failure::Usage(format!(
                "-a names {} functions, more than the {MAX_FUNCTIONS} --errors records: use narrower globs",
                inner.len()
            )));
        }
        let mut returns = HashMap::new();
        let mut trampolines = HashSet::new();
        let mut by_addr = BTreeMap::new();
        // A kretprobe has a few instances per function, which sleeping calls of any task use
        // up (nanosleep's on 5.10: returns missed); trampolines have no such limit, but each is
        // a program and a link of its own: many functions go to kprobe_multi links instead.
        let many = inner.len() >= MANY_FUNCTIONS && sonde_kernel::features::has_kprobe_multi();
        for f in inner.iter().chain([&entry]) {
            let sig = kprobe_signature(f, env);
            let test = sig.as_ref().map_or(Returns::Unknown, |s| failure_test(&s.ret));
            returns.insert(f.clone(), test);
            if !many && trampoline_fits(env, f) {
                trampolines.insert(f.clone());
            }
            if let Some(a) = env.kernel_symbol_address(f) {
                by_addr.insert(a, f.clone());
            }
        }
        let args = kprobe_signature(&entry, env).map(|s| params(&s.params)).unwrap_or_default();
        Ok(Functions { entry, inner, args, returns, trampolines, by_addr })
    }

    pub fn returns(&self, f: &str) -> Returns {
        self.returns.get(f).copied().unwrap_or(Returns::Unknown)
    }

    /// `f` as the program records it.
    pub fn function(&self, f: &str) -> Function {
        Function {
            name: f.to_string(),
            returns: self.returns(f),
            trampoline: self.trampolines.contains(f),
        }
    }

    /// A frame named: level 0 is the entry function, the others by their address.
    pub fn frame(&self, raw: &RawFrame, sym: &mut Symbolizer) -> Frame {
        let name = if raw.level == 0 {
            self.entry.clone()
        } else {
            match self.by_addr.range(..=raw.addr).next_back() {
                Some((a, n)) if raw.addr - a < ENTRY_SLACK => n.clone(),
                _ => sym
                    .ksym(raw.addr)
                    .map(|s| function_of(&s).to_string())
                    .unwrap_or_else(|| format!("0x{:x}", raw.addr)),
            }
        };
        Frame {
            returns: self.returns(&name),
            name,
            result: raw.result,
            duration_ns: raw.duration_ns,
            start_ns: raw.start_ns,
        }
    }

    /// The entry function's arguments as the call's record carries them.
    pub fn arg_values(&self, values: &[Value]) -> Vec<ArgValue> {
        self.args
            .iter()
            .zip(values)
            .map(|(p, v)| ArgValue { name: p.name.clone(), ty: p.ty.to_string(), text: text(p, v) })
            .collect()
    }
}

/// Can `f` be an fentry/fexit: in BTF under its own name (not a compiler's `.part` copy), not a
/// syscall wrapper (whose arguments kprobes read as the syscall's), and taking at most six
/// integer or pointer arguments (what trampolines pass on every tested kernel).
fn trampoline_fits(env: &HostEnv, f: &str) -> bool {
    if is_syscall_wrapper(f) {
        return false;
    }
    let Some(sig) = env.btf().ok().and_then(|b| sonde_compile::btf_types::func_sig(b, f)) else {
        return false;
    };
    sig.params.len() <= MAX_ARGS
        && sig.params.iter().all(|(_, t)| matches!(t, Type::Int { .. } | Type::Ptr { .. }))
}

fn is_glob(p: &str) -> bool {
    p.contains(['*', '?', '['])
}

/// What a failed return looks like, by the return type.
fn failure_test(ret: &Type) -> Returns {
    match ret {
        Type::Int { bytes: 8, signed: true } => Returns::Errno64,
        Type::Int { signed: true, .. } => Returns::Errno32,
        Type::Ptr { .. } => Returns::Pointer,
        Type::Void => Returns::Void,
        Type::Int { signed: false, .. } => Returns::Never,
        _ => Returns::Unknown,
    }
}

/// The leading arguments that are integers or pointers (a struct passed by value ends them:
/// the registers after it are not the next arguments).
fn params(list: &[(String, Type)]) -> Vec<Param> {
    list.iter()
        .take(MAX_ARGS)
        .enumerate()
        .map_while(|(i, (name, ty))| {
            let kind = match ty {
                Type::Ptr { to, .. } if matches!(**to, Type::Int { bytes: 1, .. }) => Arg::Str,
                Type::Ptr { .. } | Type::Int { .. } => Arg::Int,
                _ => return None,
            };
            let name = if name.is_empty() { format!("arg{i}") } else { name.clone() };
            Some(Param { name, ty: ty.clone(), kind })
        })
        .collect()
}

fn text(p: &Param, v: &Value) -> String {
    match (v, &p.ty) {
        (Value::Str(_), _) => format!("\"{v}\""),
        (Value::Int { v: 0, .. }, Type::Ptr { .. }) | (Value::Ptr(0), _) => "NULL".into(),
        (Value::Int { v, .. }, Type::Ptr { .. }) | (Value::Ptr(v), _) => format!("0x{v:x}"),
        (Value::Int { v, .. }, Type::Int { bytes, signed: true }) => {
            let shift = 64 - 8 * (*bytes as u32).clamp(1, 8);
            (((*v << shift) as i64) >> shift).to_string()
        }
        (Value::Int { v, .. }, Type::Int { bytes, .. }) if *bytes < 8 => {
            (v & ((1u64 << (8 * *bytes as u32)) - 1)).to_string()
        }
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_print_by_their_type() {
        let int =
            Param { name: "dfd".into(), ty: Type::Int { bytes: 4, signed: true }, kind: Arg::Int };
        assert_eq!(text(&int, &Value::uint(0xffff_ff9c)), "-100");
        let ptr = Param {
            name: "how".into(),
            ty: Type::Ptr { to: Box::new(Type::Void), user: false },
            kind: Arg::Int,
        };
        assert_eq!(text(&ptr, &Value::uint(0xffffc900)), "0xffffc900");
        assert_eq!(text(&ptr, &Value::uint(0)), "NULL");
        let flags =
            Param { name: "f".into(), ty: Type::Int { bytes: 2, signed: false }, kind: Arg::Int };
        assert_eq!(text(&flags, &Value::uint(0x1_0003)), "3");
    }

    #[test]
    fn return_types_decide_what_fails() {
        assert_eq!(failure_test(&Type::Int { bytes: 4, signed: true }), Returns::Errno32);
        assert_eq!(failure_test(&Type::Int { bytes: 8, signed: true }), Returns::Errno64);
        assert_eq!(failure_test(&Type::Int { bytes: 1, signed: false }), Returns::Never);
        assert_eq!(failure_test(&Type::Void), Returns::Void);
    }
}
