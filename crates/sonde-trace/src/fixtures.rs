//! The syscall table's source in unit tests: format files on disk instead of tracefs.

use sonde_compile::{Env, EnvError};
use std::path::PathBuf;

/// Format files copied from a real kernel (6.18, tests/fixtures/events).
pub struct Fixtures(pub PathBuf);

impl Env for Fixtures {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        std::fs::read_to_string(self.0.join(category).join(name).join("format"))
            .map_err(|e| EnvError::NotFound(e.to_string()))
    }
    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        let dir = self.0.join("syscalls");
        let entries = std::fs::read_dir(dir).map_err(|e| EnvError::Unavailable(e.to_string()))?;
        Ok(entries
            .map(|e| ("syscalls".to_string(), e.unwrap().file_name().into_string().unwrap()))
            .collect())
    }
}

pub fn fixtures() -> Fixtures {
    Fixtures(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/events"))
}
