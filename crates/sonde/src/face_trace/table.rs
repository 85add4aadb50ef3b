//! The syscall table, built from the kernel's format files once per kernel and sonde binary and
//! kept in `/run/sonde` (see `kept`): a short run then reads one file instead of some 370.

use crate::host_env::HostEnv;
use sonde_trace::syscalls::{SyscallTable, TableError};

/// Tables kept (one per kernel and sonde binary in use).
const MOST: usize = 4;

pub fn load(env: &HostEnv) -> Result<SyscallTable, TableError> {
    let Some(path) = crate::kept::path("syscalls", None) else { return SyscallTable::load(env) };
    if let Some(t) = std::fs::read_to_string(&path).ok().and_then(|s| SyscallTable::from_text(&s)) {
        return Ok(t);
    }
    let table = SyscallTable::load(env)?;
    crate::kept::keep(&path, table.to_text().as_bytes(), MOST);
    Ok(table)
}
