//! Which kernel functions kprobes and trampolines can attach to, decided by address: tracefs'
//! `available_filter_functions` names each traceable address once, and kallsyms' other names for
//! that address (`__x64_sys_getpid` beside the listed `__do_sys_getpid`) are just as traceable.
//! One place for the kprobe and fentry providers, `-l` and `sonde probe`.

use crate::env::{Env, EnvError};
use sonde_btf::Btf;
use sonde_glob::glob_match;
use std::collections::HashSet;

/// Is `name` traceable: listed, or another name of a listed address?
pub fn is_traceable(env: &dyn Env, name: &str) -> Result<bool, EnvError> {
    if env.kernel_functions()?.iter().any(|f| f == name) {
        return Ok(true);
    }
    Ok(twin_of(env, name).is_some())
}

/// The listed function sharing `name`'s address, when `name` is an unlisted alias.
pub fn twin_of(env: &dyn Env, name: &str) -> Option<String> {
    let aliases = env.kernel_function_aliases().ok()?;
    let i = aliases.binary_search_by(|(a, _)| a.as_str().cmp(name)).ok()?;
    Some(aliases[i].1.clone())
}

/// The traceable functions `pattern` matches, sorted, one name per address: a listed name
/// before its aliases, a syscall wrapper (`__x64_sys_`) before other aliases. Two names of one
/// address would attach twice and count each call twice.
pub fn matching(env: &dyn Env, pattern: &str) -> Result<Vec<String>, EnvError> {
    let mut hits: Vec<String> =
        env.kernel_functions()?.iter().filter(|f| glob_match(pattern, f)).cloned().collect();
    hits.sort();
    hits.dedup();
    // Aliases cost a read of kallsyms: a kernel that cannot give them still lists the rest.
    let aliases = env.kernel_function_aliases().unwrap_or(&[]);
    let mut taken: HashSet<&str> = hits.iter().map(String::as_str).collect();
    let matched = aliases.iter().filter(|(a, _)| glob_match(pattern, a));
    let (wrappers, others): (Vec<_>, Vec<_>) =
        matched.partition(|(a, _)| super::is_syscall_wrapper(a));
    let mut extra = Vec::new();
    for (alias, twin) in wrappers.into_iter().chain(others) {
        if taken.insert(twin.as_str()) {
            extra.push(alias.clone());
        }
    }
    hits.extend(extra);
    hits.sort();
    Ok(hits)
}

/// The BTF functions `pattern` matches, and the aliases of BTF functions it matches (one per
/// address), as (name probed, name BTF types it under), sorted: what `fentry:GLOB` attaches to.
pub fn matching_in_btf(env: &dyn Env, btf: &Btf, pattern: &str) -> Vec<(String, String)> {
    let mut hits: Vec<(String, String)> = btf
        .funcs()
        .map(|(n, _)| n)
        .filter(|n| glob_match(pattern, n))
        .map(|n| (n.to_string(), n.to_string()))
        .collect();
    hits.sort();
    hits.dedup();
    let mut taken: HashSet<String> = hits.iter().map(|h| h.1.clone()).collect();
    for (alias, twin) in env.kernel_function_aliases().unwrap_or(&[]) {
        if glob_match(pattern, alias)
            && btf.find_func(alias).is_none()
            && btf.find_func(twin).is_some()
            && taken.insert(twin.clone())
        {
            hits.push((alias.clone(), twin.clone()));
        }
    }
    hits.sort();
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        listed: Vec<String>,
        aliases: Vec<(String, String)>,
    }

    impl Env for Fake {
        fn tracepoint_format(&self, _: &str, _: &str) -> Result<String, EnvError> {
            Err(EnvError::NotFound(String::new()))
        }
        fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
            Ok(Vec::new())
        }
        fn kernel_functions(&self) -> Result<&[String], EnvError> {
            Ok(&self.listed)
        }
        fn kernel_function_aliases(&self) -> Result<&[(String, String)], EnvError> {
            Ok(&self.aliases)
        }
    }

    fn fake() -> Fake {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let p = |a: &str, t: &str| (a.to_string(), t.to_string());
        Fake {
            listed: s(&["__do_sys_getpid", "__do_sys_getppid", "__x64_sys_getpgid", "vfs_read"]),
            aliases: vec![
                p("__ia32_sys_getpid", "__do_sys_getpid"),
                p("__x64_sys_getpid", "__do_sys_getpid"),
                p("__x64_sys_getppid", "__do_sys_getppid"),
            ],
        }
    }

    #[test]
    fn aliases_are_traceable_and_name_their_twin() {
        let env = fake();
        assert!(is_traceable(&env, "__x64_sys_getpid").unwrap());
        assert!(is_traceable(&env, "vfs_read").unwrap());
        assert!(!is_traceable(&env, "__x64_sys_nope").unwrap());
        assert_eq!(twin_of(&env, "__x64_sys_getppid").as_deref(), Some("__do_sys_getppid"));
    }

    #[test]
    fn a_glob_takes_each_address_once() {
        let env = fake();
        assert_eq!(
            matching(&env, "__x64_sys_get*").unwrap(),
            ["__x64_sys_getpgid", "__x64_sys_getpid", "__x64_sys_getppid"]
        );
        // The listed name wins over its aliases; the x64 wrapper over the ia32 one.
        assert_eq!(matching(&env, "*sys_getpid").unwrap(), ["__do_sys_getpid"]);
        assert_eq!(matching(&env, "__[ix][a6]*_sys_getpid").unwrap(), ["__x64_sys_getpid"]);
    }
}
