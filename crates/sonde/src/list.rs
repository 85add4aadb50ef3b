//! `-l [PATTERN]`: the probes a program could use. `tracepoint:`, `kprobe:`/`kretprobe:`,
//! `fentry:`/`fexit:`, `rawtracepoint:`, `iter:` and `uprobe:BINARY:` patterns; a bare pattern lists tracepoints,
//! raw tracepoints and kprobes; a glob in the provider's place (`*:BINARY:*`) tries every provider.
//! Patterns separated by commas are listed one after the other, and `struct NAME` (`union`,
//! `enum`) lists a kernel type, with -v its definition. A program (text with braces, or a file)
//! lists what its probes match. With -v, each probe's arguments and their types.

mod program;
mod types;
mod uprobes;

use crate::error::Failure;
use crate::host_env::HostEnv;
use sonde_compile::Env;
use sonde_glob::glob_match;
use std::fmt::Write;

/// The long provider names a glob in the provider's place is matched against.
const PROVIDERS: [&str; 10] = [
    "tracepoint",
    "rawtracepoint",
    "kprobe",
    "kretprobe",
    "uprobe",
    "uretprobe",
    "software",
    "hardware",
    "interval",
    "iter",
];

pub fn run(arg: &str, verbose: bool, pid: Option<u32>) -> Result<i32, Failure> {
    let env = HostEnv::for_pid(pid);
    let patterns = match program::patterns(arg)? {
        Some(of_program) => of_program,
        None => arg.split(',').map(|p| p.trim().to_string()).collect(),
    };
    let mut out = String::new();
    for pattern in &patterns {
        match types::type_pattern(pattern) {
            Some((word, name)) => types::list(&env, word, name, verbose, &mut out)?,
            None => one(&env, pattern, verbose, pid, &mut out)?,
        }
    }
    crate::stdout::print(&out)?;
    if let Some(why) = env.btf_missing() {
        eprintln!("sonde: {}: argument types are not shown", why);
    }
    if out.is_empty() {
        eprintln!("sonde: no probe matches `{}`", arg);
        return Ok(1);
    }
    Ok(0)
}

/// The probes matching one pattern.
fn one(
    env: &HostEnv,
    pattern: &str,
    verbose: bool,
    pid: Option<u32>,
    out: &mut String,
) -> Result<(), Failure> {
    let (provider, rest) = match pattern.split_once(':') {
        Some((p, r)) if is_provider(p) => (p, r),
        Some((p, r)) if sonde_glob::is_glob(p) => {
            // Each provider the glob names; one that has nothing of that shape lists nothing.
            for long in PROVIDERS.iter().filter(|long| glob_match(p, long)) {
                let _ = one(env, &format!("{}:{}", long, r), verbose, pid, out);
            }
            return Ok(());
        }
        _ => ("", pattern),
    };
    match provider {
        "tracepoint" | "t" => tracepoints(env, rest, verbose, out)?,
        "kprobe" | "k" | "kretprobe" | "kr" => kprobes(env, provider, rest, verbose, out)?,
        "fentry" | "fexit" | "kfunc" | "kretfunc" | "f" | "fr" => {
            fentries(env, provider, rest, verbose, out)?
        }
        "uprobe" | "u" | "uretprobe" | "ur" => uprobes::list(provider, rest, pid, verbose, out)?,
        "rawtracepoint" | "rt" => rawtracepoints(env, rest, verbose, out)?,
        "iter" | "it" => iterators(env, rest, out)?,
        "software" | "s" | "hardware" | "h" | "interval" | "i" | "profile" | "p" => {
            timers(&format!("{}:{}", provider, rest), out)
        }
        _ => {
            timers(pattern, out);
            tracepoints(env, rest, verbose, out)?;
            if env.btf().is_ok() {
                rawtracepoints(env, rest, verbose, out)?;
            }
            // Kernels without kprobes (or without tracefs' function list) still list tracepoints.
            let _ = kprobes(env, "kprobe", rest, verbose, out);
            if let Some(pid) = pid.filter(|_| rest == "*") {
                // `-l -p PID`: the process's functions too.
                let _ = uprobes::list("uprobe", "*:*", Some(pid), verbose, out);
            }
        }
    }
    Ok(())
}

fn is_provider(p: &str) -> bool {
    matches!(
        p,
        "tracepoint"
            | "t"
            | "kprobe"
            | "k"
            | "kretprobe"
            | "kr"
            | "fentry"
            | "fexit"
            | "kfunc"
            | "kretfunc"
            | "f"
            | "fr"
            | "uprobe"
            | "u"
            | "uretprobe"
            | "ur"
            | "rawtracepoint"
            | "rt"
            | "iter"
            | "it"
            | "software"
            | "s"
            | "hardware"
            | "h"
            | "interval"
            | "i"
            | "profile"
            | "p"
    )
}

/// The software and hardware events (names and aliases) and the timer providers' units, as
/// bpftrace lists them (`software:page-faults:`, `hardware:cpu-cycles:`, `interval:ms:`), matching `pattern` (a short provider name
/// stands for its long one).
fn timers(pattern: &str, out: &mut String) {
    let long = |p: &str| -> String {
        match p {
            "s" => "software",
            "h" => "hardware",
            "i" => "interval",
            "p" => "profile",
            other => other,
        }
        .to_string()
    };
    let pattern = match pattern.split_once(':') {
        Some((p, rest)) => format!("{}:{}", long(p), rest),
        None => pattern.to_string(),
    };
    let events = sonde_compile::provider::profile::SOFTWARE_EVENTS.iter();
    let names = events.flat_map(|(n, alias, _)| [*n, *alias]).filter(|n| !n.is_empty());
    let mut all: Vec<String> = names.map(|n| format!("software:{}:", n)).collect();
    let hardware = sonde_compile::provider::hardware::HARDWARE_EVENTS.iter();
    let names = hardware.flat_map(|(n, alias, _, _)| [*n, *alias]).filter(|n| !n.is_empty());
    all.extend(names.map(|n| format!("hardware:{}:", n)));
    for provider in ["interval", "profile"] {
        all.extend(["hz", "us", "ms", "s"].map(|u| format!("{}:{}:", provider, u)));
    }
    all.sort();
    for probe in all {
        // `software:*` matches `software:cpu:`; so does `software:cpu` (its last `:` is bpftrace's).
        if glob_match(&pattern, &probe) || glob_match(&pattern, probe.trim_end_matches(':')) {
            let _ = writeln!(out, "{}", probe);
        }
    }
}

/// The tracepoints BTF types (`rawtracepoint:NAME`), with -v their C arguments.
fn rawtracepoints(
    env: &HostEnv,
    pat: &str,
    verbose: bool,
    out: &mut String,
) -> Result<(), Failure> {
    use sonde_compile::provider::rawtracepoint;
    let btf = env.btf().map_err(|e| Failure::Setup(e.to_string()))?;
    // `[MODULE:]NAME`: BTF's tracepoints are vmlinux's.
    let name = match pat.split_once(':') {
        Some((module, name)) if glob_match(module, "vmlinux") => name,
        Some(_) => return Ok(()),
        None => pat,
    };
    let all = rawtracepoint::Catalog::new(btf);
    for (n, typedef) in all.entries().filter(|(n, _)| glob_match(name, n)) {
        let _ = writeln!(out, "rawtracepoint:{}", n);
        if verbose {
            let record = all.signature(n, typedef).argument_record(false);
            for f in &record.fields {
                let _ = writeln!(out, "    {} args->{}", f.ty, f.name);
            }
        }
    }
    Ok(())
}

/// The kernel's BPF iterators (`iter:task`, ...), from BTF.
fn iterators(env: &HostEnv, pat: &str, out: &mut String) -> Result<(), Failure> {
    let btf = env.btf().map_err(|e| Failure::Setup(e.to_string()))?;
    for name in sonde_compile::provider::iter::targets(btf) {
        if glob_match(pat, &name) {
            let _ = writeln!(out, "iter:{}", name);
        }
    }
    Ok(())
}

fn tracepoints(env: &HostEnv, pat: &str, verbose: bool, out: &mut String) -> Result<(), Failure> {
    let (cat, name) = match pat.split_once([':', '/']) {
        Some((c, n)) => (c, n),
        None => ("*", pat),
    };
    let all = env.tracepoints().map_err(|e| Failure::Setup(e.to_string()))?;
    for (c, t) in all.iter().filter(|(c, t)| glob_match(cat, c) && glob_match(name, t)) {
        let _ = writeln!(out, "tracepoint:{}:{}", c, t);
        if verbose {
            if let Ok(text) = env.tracepoint_format(c, t) {
                // Typed as programs see them: typedefs and struct pointers through BTF.
                if let Ok(s) =
                    sonde_compile::provider::tracepoint_types::parse_typed(c, t, &text, env)
                {
                    for f in s.fields.iter().filter(|f| !f.name.starts_with("common_")) {
                        let _ = writeln!(out, "    {} {}", f.ty, f.name);
                    }
                }
            }
        }
    }
    Ok(())
}

fn kprobes(
    env: &HostEnv,
    provider: &str,
    pat: &str,
    verbose: bool,
    out: &mut String,
) -> Result<(), Failure> {
    let name = if provider.starts_with("kr") { "kretprobe" } else { "kprobe" };
    // Aliases too (`__x64_sys_getpid`): what `kprobe:GLOB` attaches to, one name per address.
    let funcs = sonde_compile::provider::kernel_functions::matching(env, pat)
        .map_err(|e| Failure::Setup(e.to_string()))?;
    let btf = if verbose { env.btf().ok() } else { None };
    for f in funcs.iter().map(String::as_str) {
        let _ = writeln!(out, "{}:{}", name, f);
        if verbose && sonde_compile::provider::is_syscall_wrapper(f) {
            syscall_prototype(env, f, name == "kretprobe", out);
        } else if let Some(btf) = btf {
            prototype(btf, f, name == "kretprobe", "arg", out);
        }
    }
    Ok(())
}

/// A syscall wrapper's arguments are the syscall's (see the kprobe provider).
fn syscall_prototype(env: &HostEnv, func: &str, ret: bool, out: &mut String) {
    let Some(sig) = sonde_compile::provider::kprobe_signature(func, env) else { return };
    if !ret {
        for (i, (name, ty)) in sig.params.iter().enumerate() {
            let _ = writeln!(out, "    {} arg{} ({})", ty, i, name);
        }
    } else {
        let _ = writeln!(out, "    {} retval", sig.ret);
    }
}

fn fentries(
    env: &HostEnv,
    provider: &str,
    pat: &str,
    verbose: bool,
    out: &mut String,
) -> Result<(), Failure> {
    let name = if matches!(provider, "fexit" | "kretfunc" | "fr") { "fexit" } else { "fentry" };
    let btf = env.btf().map_err(|e| Failure::Setup(e.to_string()))?;
    // Aliases of BTF functions too (`__x64_sys_getpid` is typed as `__do_sys_getpid`).
    for (f, typed_as) in sonde_compile::provider::kernel_functions::matching_in_btf(env, btf, pat) {
        let _ = writeln!(out, "{}:{}", name, f);
        if verbose {
            prototype(btf, &typed_as, name == "fexit", "args->", out);
        }
    }
    Ok(())
}

/// The function's parameters (and return type) from BTF, one a line.
fn prototype(btf: &sonde_btf::Btf, func: &str, ret: bool, how: &str, out: &mut String) {
    let Some(f) = btf.find_func(func) else { return };
    for (i, p) in f.params.iter().enumerate() {
        let name = if how == "arg" { format!("arg{}", i) } else { format!("args->{}", p.name) };
        let _ = writeln!(
            out,
            "    {} {}",
            btf.type_name(p.ty),
            if p.name.is_empty() || how != "arg" { name } else { format!("{} ({})", name, p.name) }
        );
    }
    if ret {
        let _ = writeln!(out, "    {} retval", btf.type_name(f.ret));
    }
}

/// For -d: how many kernel functions each kprobe glob matches but cannot probe (notrace,
/// blacklisted, or not a function ftrace knows).
pub fn report_skipped(ast: &sonde_syntax::ast::Program, env: &HostEnv) {
    let globs: Vec<_> = ast
        .probes
        .iter()
        .flat_map(|p| &p.specs)
        .filter(|s| matches!(s.provider.as_str(), "kprobe" | "k" | "kretprobe" | "kr"))
        .filter(|s| sonde_glob::is_glob(&s.definition))
        .collect();
    if globs.is_empty() {
        return; // kallsyms is 5 MB of text: read it only when there is something to report
    }
    let Ok(traceable) = env.kernel_functions() else { return };
    let Ok(syms) = sonde_symbols::kallsyms::KernelSymbols::load_names() else { return };
    let known: std::collections::HashSet<&str> = traceable.iter().map(String::as_str).collect();
    for spec in globs {
        let traced = sonde_compile::provider::kernel_functions::matching(env, &spec.definition)
            .map_or(0, |m| m.len());
        let mut all: Vec<&str> =
            syms.function_names().filter(|n| glob_match(&spec.definition, n)).collect();
        all.sort_unstable();
        all.dedup();
        let skipped = all
            .iter()
            .filter(|n| {
                !known.contains(*n)
                    && sonde_compile::provider::kernel_functions::twin_of(env, n).is_none()
            })
            .count();
        eprintln!(
            "sonde: {}:{} matches {} traceable functions; {} more kernel functions match but cannot be probed (notrace, blacklisted or inlined)",
            spec.provider, spec.definition, traced, skipped
        );
    }
}
