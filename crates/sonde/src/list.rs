//! `-l PATTERN`: the probes a program could use.

use crate::error::Failure;
use crate::kernel_env::KernelEnv;
use sonde_compile::glob::glob_match;
use sonde_compile::Env;

pub fn run(pattern: &str, verbose: bool) -> Result<i32, Failure> {
    // `tracepoint:cat:name`, `t:cat:name`, `cat:name`, or a bare glob over names.
    let pat = pattern.strip_prefix("tracepoint:").or_else(|| pattern.strip_prefix("t:")).unwrap_or(pattern);
    let (cat, name) = match pat.split_once([':', '/']) {
        Some((c, n)) => (c, n),
        None => ("*", pat),
    };
    let env = KernelEnv::new();
    let all = env.tracepoints().map_err(|e| Failure::Setup(e.to_string()))?;
    let mut n = 0;
    let mut out = String::new();
    for (c, t) in all.iter().filter(|(c, t)| glob_match(cat, c) && glob_match(name, t)) {
        out.push_str(&format!("tracepoint:{}:{}\n", c, t));
        if verbose {
            if let Ok(text) = env.tracepoint_format(c, t) {
                if let Ok(s) = sonde_compile::provider::tracepoint_format::parse_format(c, t, &text) {
                    for f in s.fields.iter().filter(|f| !f.name.starts_with("common_")) {
                        out.push_str(&format!("    {} {}\n", f.ty, f.name));
                    }
                }
            }
        }
        n += 1;
    }
    print!("{}", out);
    if n == 0 {
        eprintln!("sonde: no probe matches `{}`", pattern);
        return Ok(1);
    }
    Ok(0)
}
