//! `-l 'struct NAME'` (`union`, `enum`): a kernel type from BTF; with -v its C definition, as
//! bpftrace prints it (`vmlinux: struct task_struct {` and a member a line).

use crate::error::Failure;
use crate::host_env::HostEnv;
use sonde_btf::NamedKind;
use sonde_compile::Env;
use std::fmt::Write;

/// `("struct", "task_struct")` for `struct task_struct`; `None` for a probe pattern.
pub fn type_pattern(pattern: &str) -> Option<(&str, &str)> {
    ["struct", "union", "enum"].into_iter().find_map(|word| {
        let name = pattern.strip_prefix(word)?.strip_prefix(char::is_whitespace)?.trim();
        Some((word, name)).filter(|_| !name.is_empty())
    })
}

pub fn list(
    env: &HostEnv,
    word: &str,
    name: &str,
    verbose: bool,
    out: &mut String,
) -> Result<(), Failure> {
    let btf = env.btf().map_err(|e| Failure::Setup(e.to_string()))?;
    let kind = match word {
        "union" => NamedKind::Union,
        "enum" => NamedKind::Enum,
        _ => NamedKind::Struct,
    };
    let Some(id) = btf.find_named(kind, name) else { return Ok(()) };
    match btf.definition(id).filter(|_| verbose) {
        Some(definition) => writeln!(out, "vmlinux: {}", definition),
        None => writeln!(out, "{} {}", word, name),
    }
    .map_err(|e| Failure::Setup(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::type_pattern;

    #[test]
    fn type_patterns_name_a_kind() {
        assert_eq!(type_pattern("struct task_struct"), Some(("struct", "task_struct")));
        assert_eq!(type_pattern("enum  pid_type "), Some(("enum", "pid_type")));
        assert_eq!(type_pattern("structure:x"), None);
        assert_eq!(type_pattern("struct "), None);
        assert_eq!(type_pattern("tracepoint:sched:*"), None);
    }
}
