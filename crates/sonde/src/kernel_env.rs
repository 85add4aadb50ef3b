//! The compiler's view of the running kernel, read through tracefs.

use sonde_compile::{Env, EnvError};
use sonde_kernel::tracefs::Tracefs;
use std::cell::OnceCell;

/// Finds (or mounts) tracefs on first use, so programs that need no tracepoint never touch it.
pub struct KernelEnv {
    tracefs: OnceCell<Result<Tracefs, String>>,
    list: OnceCell<Result<Vec<(String, String)>, String>>,
}

impl KernelEnv {
    pub fn new() -> KernelEnv {
        KernelEnv { tracefs: OnceCell::new(), list: OnceCell::new() }
    }

    pub fn tracefs(&self) -> Result<&Tracefs, EnvError> {
        self.tracefs
            .get_or_init(|| Tracefs::find_or_mount().map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| EnvError::Unavailable(e.clone()))
    }
}

impl Env for KernelEnv {
    fn tracepoint_format(&self, category: &str, name: &str) -> Result<String, EnvError> {
        self.tracefs()?.tracepoint_format(category, name).map_err(|e| match e {
            sonde_kernel::error::KernelError::UnknownTracepoint { .. } => EnvError::NotFound(e.to_string()),
            other => EnvError::Unavailable(other.to_string()),
        })
    }

    fn tracepoints(&self) -> Result<Vec<(String, String)>, EnvError> {
        let tfs = self.tracefs()?;
        self.list
            .get_or_init(|| tfs.list_tracepoints().map_err(|e| e.to_string()))
            .clone()
            .map_err(EnvError::Unavailable)
    }
}
