//! A fixture kernel for compiler tests: tracepoint formats copied from a 6.18 kernel into
//! tests/fixtures, so a kernel upgrade cannot move the goldens.
#![allow(dead_code)]

use sonde_compile::{Env, EnvError};
use std::path::PathBuf;

pub struct FixtureEnv {
    root: PathBuf,
}

impl FixtureEnv {
    pub fn new() -> FixtureEnv {
        FixtureEnv { root: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events") }
    }
}

impl Env for FixtureEnv {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        std::fs::read_to_string(self.root.join(category).join(name).join("format"))
            .map_err(|_| EnvError::NotFound(format!("no tracepoint {}:{}", category, name)))
    }

    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        let mut out = Vec::new();
        for cat in std::fs::read_dir(&self.root).unwrap() {
            let cat = cat.unwrap();
            for ev in std::fs::read_dir(cat.path()).unwrap() {
                out.push((cat.file_name().to_string_lossy().into(), ev.unwrap().file_name().to_string_lossy().into()));
            }
        }
        out.sort();
        Ok(out)
    }
}
