//! The syscall table's source in unit tests: format files on disk instead of tracefs.

use crate::program::{Mode, Plan, Targets, BUFFER_BYTES};
use crate::select::Selection;
use crate::syscalls::SyscallTable;
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

/// A lines plan for pid 42 and its children, strace's layout: tests change what they test with
/// `Plan { field, ..plan(t, sel) }`.
pub fn plan<'a>(t: &'a SyscallTable, sel: &'a Selection) -> Plan<'a> {
    Plan {
        table: t,
        selection: sel,
        targets: Targets::Pids(vec![42]),
        follow: true,
        mode: Mode::Lines,
        failure: false,
        duration_ns: None,
        string_size: 256,
        buffer_size: BUFFER_BYTES,
        filter: None,
        uid: None,
        cpus: Vec::new(),
        stacks: false,
        user_stack_raw: false,
        events: Vec::new(),
        raw_tracepoints: false,
        copies: true,
        bpf_loop: true,
        fate: false,
        summary_rows: None,
        paths: Default::default(),
    }
}
