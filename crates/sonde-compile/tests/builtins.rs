//! docs/builtins.md is what the registry of builtins writes, and every example in it compiles.
//! `SONDE_BLESS=1` writes the file again.

mod common;

use common::FixtureEnv;
use sonde_compile::sema::builtins::{docs, table};
use sonde_compile::{Env, EnvError, Options};
use std::path::Path;

#[test]
fn docs_builtins_md_is_what_the_registry_says() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/builtins.md");
    let want = docs::markdown();
    if std::env::var_os("SONDE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/builtins.md differs from the registry: run `SONDE_BLESS=1 cargo test -p sonde-compile --test builtins`"
    );
}

/// The fixture kernel, with any binary's symbols at one offset for uprobes.
struct ExampleEnv(FixtureEnv);

impl Env for ExampleEnv {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        self.0.tracepoint_format(category, name)
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        self.0.tracepoints()
    }
    fn has_helper(&self, id: u32) -> bool {
        self.0.has_helper(id)
    }
    fn online_cpus(&self) -> Option<u32> {
        self.0.online_cpus()
    }
    fn cpu_ids(&self) -> Option<u32> {
        self.0.cpu_ids()
    }
    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        self.0.kernel_symbol_address(name)
    }
    fn user_symbol(&self, binary: &str, _: &str) -> Result<(String, u64), EnvError> {
        Ok((format!("/usr/bin/{}", binary), 0x1000))
    }
    fn user_symbol_address(&self, _: &str, _: &str) -> Result<(u64, u64), EnvError> {
        Ok((0x404040, 4))
    }
}

#[test]
fn every_example_compiles() {
    let env = ExampleEnv(FixtureEnv::new());
    let mut opts = Options::new();
    opts.allow_unsafe = true;
    opts.child_pid = Some(1234);
    let mut failed = Vec::new();
    for s in table::all() {
        let Err(diags) = sonde_compile::compile(s.example, &env, &opts) else { continue };
        // The fixture kernel has no BTF: what needs it may say so, and nothing else.
        let for_btf = |d: &sonde_syntax::diag::Diagnostic| {
            d.message.contains("no BTF") || d.help.as_ref().is_some_and(|h| h.contains("no BTF"))
        };
        if diags.iter().all(for_btf) {
            continue;
        }
        let said: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        failed.push(format!("{}: {}: {}", s.name, s.example, said.join("; ")));
    }
    assert!(failed.is_empty(), "examples that do not compile:\n{}", failed.join("\n"));
}
