//! sonde-probe's questions answered from this host: the same `HostEnv` scripts use, kallsyms and
//! the kprobe blacklist for functions kprobes cannot take.

use crate::host_env::HostEnv;
use sonde_compile::Env as _;
use sonde_probe::{near_functions, Env, FunctionMiss, UserSite};
use std::cell::OnceCell;

pub struct ProbeEnv {
    host: HostEnv,
    /// Read only when a name is not traceable or there is no list to tell.
    kallsyms: OnceCell<Option<sonde_symbols::KernelSymbols>>,
}

impl ProbeEnv {
    pub fn new() -> ProbeEnv {
        ProbeEnv { host: HostEnv::new(), kallsyms: OnceCell::new() }
    }

    fn kallsyms(&self) -> Option<&sonde_symbols::KernelSymbols> {
        self.kallsyms.get_or_init(|| sonde_symbols::KernelSymbols::load_names().ok()).as_ref()
    }

    /// Why the kernel's `name` cannot be probed, from kallsyms and the blacklist, when the list
    /// of traceable functions does not have it (or there is none: no function tracer, and
    /// `--show` writes nothing, so the kernel will not say).
    fn miss(&self, name: &str, listed: Option<&[String]>) -> Option<FunctionMiss> {
        let blacklisted =
            || sonde_symbols::traceable::Blacklist::load().is_ok_and(|b| b.contains(name));
        let Some(syms) = self.kallsyms() else {
            return listed.map(|all| FunctionMiss::Unknown(near_functions(name, &names(all))));
        };
        if syms.lookup(name).is_none() {
            let near = match listed {
                Some(all) => near_functions(name, &names(all)),
                None => near_functions(name, &syms.function_names().collect::<Vec<_>>()),
            };
            return Some(FunctionMiss::Unknown(near));
        }
        if blacklisted() {
            return Some(FunctionMiss::Blacklisted);
        }
        // In kallsyms and not listed: notrace; with no list, the kernel decides.
        listed.map(|_| FunctionMiss::NotTraceable)
    }
}

fn names(all: &[String]) -> Vec<&str> {
    all.iter().map(String::as_str).collect()
}

impl Env for ProbeEnv {
    fn btf(&self) -> Option<&sonde_btf::Btf> {
        self.host.btf().ok()
    }
    fn kernel_function(&self, name: &str) -> Result<(), FunctionMiss> {
        let listed = self.host.kernel_functions().ok();
        if listed.is_some()
            && sonde_compile::provider::kernel_functions::is_traceable(&self.host, name)
                .unwrap_or(false)
        {
            return Ok(());
        }
        self.miss(name, listed).map_or(Ok(()), Err)
    }
    fn kernel_symbol(&self, name: &str) -> bool {
        self.host.kernel_symbol_exists(name).unwrap_or(true)
    }
    fn tracepoint_fields(&self, group: &str, event: &str) -> Option<Vec<String>> {
        let text = self.host.tracepoint_format(group, event).ok()?;
        let def =
            sonde_compile::provider::tracepoint_format::parse_format(group, event, &text).ok()?;
        Some(def.fields.into_iter().map(|f| f.name).collect())
    }
    fn user_function(&self, binary: &str, symbol: &str) -> Result<UserSite, String> {
        self.host
            .user_symbol(binary, symbol)
            .map(|(path, offset)| UserSite { path, offset })
            .map_err(|e| e.to_string())
    }
    fn user_types(&self, path: &str) -> Result<sonde_btf::Btf, String> {
        self.host.user_types(path).map_err(|e| e.to_string())
    }
}
