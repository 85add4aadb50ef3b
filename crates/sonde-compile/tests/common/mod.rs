//! A fixture kernel for compiler tests: tracepoint formats copied from a 6.18 kernel into
//! tests/fixtures, so a kernel upgrade cannot move the goldens.
#![allow(dead_code)]

use sonde_compile::{Env, EnvError};
use std::path::PathBuf;

pub struct FixtureEnv {
    root: PathBuf,
    /// Model a 5.10 kernel: without `bpf_get_func_ip` (5.15), `bpf_for_each_map_elem` (5.13) and
    /// `bpf_map_lookup_percpu_elem` (5.19).
    pub no_func_ip: bool,
}

impl FixtureEnv {
    pub fn new() -> FixtureEnv {
        FixtureEnv {
            root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events"),
            no_func_ip: false,
        }
    }
}

/// Kernel functions the fixture knows the kallsyms address of.
const FIXTURE_SYMBOLS: [(&str, u64); 2] =
    [("do_sys_openat2", 0xffff_ffff_8140_1230), ("vfs_read", 0xffff_ffff_8141_4560)];

impl Env for FixtureEnv {
    fn has_helper(&self, id: u32) -> bool {
        use sonde_bpf::helper::{
            FOR_EACH_MAP_ELEM, GET_FUNC_IP, KTIME_GET_TAI_NS, MAP_LOOKUP_PERCPU_ELEM,
        };
        let newer = [GET_FUNC_IP, FOR_EACH_MAP_ELEM, MAP_LOOKUP_PERCPU_ELEM, KTIME_GET_TAI_NS];
        !(self.no_func_ip && newer.contains(&id))
    }

    /// BPF's signed division came in 6.6, after 5.10.
    fn has_signed_division(&self) -> bool {
        !self.no_func_ip
    }

    fn online_cpus(&self) -> Option<u32> {
        Some(4)
    }

    fn cpu_ids(&self) -> Option<u32> {
        Some(4)
    }

    /// One module is loaded in the fixture kernel.
    fn kernel_module_loaded(&self, name: &str) -> Option<bool> {
        Some(name == "ext4")
    }

    fn kernel_symbol_address(&self, name: &str) -> Option<u64> {
        FIXTURE_SYMBOLS.iter().find(|(n, _)| *n == name).map(|&(_, a)| a)
    }

    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        std::fs::read_to_string(self.root.join(category).join(name).join("format"))
            .map_err(|_| EnvError::NotFound(format!("no tracepoint {}:{}", category, name)))
    }

    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        let mut out = Vec::new();
        for cat in std::fs::read_dir(&self.root).unwrap() {
            let cat = cat.unwrap();
            for ev in std::fs::read_dir(cat.path()).unwrap() {
                out.push((
                    cat.file_name().to_string_lossy().into(),
                    ev.unwrap().file_name().to_string_lossy().into(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }
}

/// The program's errors as rendered for the user, or "" when it checks (on [`FixtureEnv`]).
pub fn errors(program: &str) -> String {
    let ast = sonde_syntax::parse(program).unwrap();
    let opts = sonde_compile::Options::new();
    let Err(diags) = sonde_compile::check(&ast, &FixtureEnv::new(), &opts) else {
        return String::new();
    };
    let file = sonde_syntax::diag::SourceFile { name: "stdin".into(), text: program.into() };
    diags.iter().map(|d| sonde_syntax::render::render(d, &file, false)).collect()
}
