//! The running kernel's syscalls and their arguments, read from the syscall tracepoints' format
//! files through the compiler's `Env` (tracefs in the binary, fixture files in tests), so every
//! syscall of the kernel is covered with the names its format gives.

use crate::nr;
use sonde_compile::provider::tracepoint_format::parse_format;
use sonde_compile::types::Type;
use sonde_compile::Env;
use std::collections::BTreeMap;

/// One argument as the `sys_enter_NAME` format names it.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: String,
    /// `const char *` arguments (paths, names, write's buffer): copied as strings in the kernel
    /// at entry. (`char *` ones, such as read's buffer, are filled by the call.)
    pub is_string: bool,
    /// Other pointers print in hex.
    pub is_pointer: bool,
    /// The declared C integer type is signed (`int dfd`: -100 is AT_FDCWD).
    pub signed: bool,
    /// Bytes of the declared type (4 for `int`), though every slot is 8 bytes.
    pub bytes: u8,
    /// Declared `pid_t` (kill's pid, wait4's upid): shown with the task's comm.
    pub pid: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Syscall {
    pub nr: u32,
    /// As strace and perf print it (`stat`, not the tracepoint's `newstat`).
    pub name: String,
    /// The tracepoint's own name, without `sys_enter_`.
    pub tracepoint: String,
    pub args: Vec<Arg>,
}

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("cannot list the syscall tracepoints: {0}")]
    List(String),
    #[error("this kernel has no syscall tracepoints (CONFIG_FTRACE_SYSCALLS is off)")]
    NoSyscalls,
}

/// Every syscall of the running kernel that has a number on this architecture.
#[derive(Clone, Debug, Default)]
pub struct SyscallTable {
    by_nr: BTreeMap<u32, Syscall>,
}

impl SyscallTable {
    pub fn load(env: &dyn Env) -> Result<SyscallTable, TableError> {
        let list = env.tracepoints().map_err(|e| TableError::List(e.to_string()))?;
        let mut by_nr = BTreeMap::new();
        for (category, event) in &list {
            let Some(tp) = event.strip_prefix("sys_enter_") else { continue };
            if category != "syscalls" {
                continue;
            }
            let name = nr::name_of_tracepoint(tp);
            let Some(number) = nr::number(name) else { continue };
            // A format that cannot be read or parsed still leaves the syscall, without names.
            let args = env
                .tracepoint_format(category, event)
                .ok()
                .and_then(|text| {
                    let s = parse_format(category, event, &text).ok()?;
                    Some(s.fields.iter().filter_map(|f| arg(f, &text)).collect())
                })
                .unwrap_or_default();
            let sc = Syscall { nr: number, name: name.into(), tracepoint: tp.into(), args };
            by_nr.insert(number, sc);
        }
        if by_nr.is_empty() {
            return Err(TableError::NoSyscalls);
        }
        Ok(SyscallTable { by_nr })
    }

    /// A table of given syscalls (tests, and tools that know their own).
    pub fn from_syscalls(list: Vec<Syscall>) -> SyscallTable {
        SyscallTable { by_nr: list.into_iter().map(|s| (s.nr, s)).collect() }
    }

    pub fn get(&self, nr: u32) -> Option<&Syscall> {
        self.by_nr.get(&nr)
    }

    pub fn by_name(&self, name: &str) -> Option<&Syscall> {
        self.by_nr.values().find(|s| s.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Syscall> {
        self.by_nr.values()
    }

    pub fn len(&self) -> usize {
        self.by_nr.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_nr.is_empty()
    }
}

/// A format field that is a syscall argument (not `common_*` nor `__syscall_nr`); `text` is the
/// format, for the `const` the parsed type does not keep.
fn arg(f: &sonde_compile::types::Field, text: &str) -> Option<Arg> {
    if f.name.starts_with("common_") || f.name == "__syscall_nr" {
        return None;
    }
    let (is_string, is_pointer) = match &f.ty {
        Type::Ptr { to, .. } => {
            let char_ptr = matches!(**to, Type::Int { bytes: 1, .. });
            (char_ptr && text.contains(&format!("field:const char * {};", f.name)), true)
        }
        _ => (false, false),
    };
    let (bytes, signed) = match f.ty {
        Type::Int { bytes, signed } => (bytes, signed),
        _ => (8, false),
    };
    let pid = text.contains(&format!("field:pid_t {};", f.name));
    Some(Arg { name: f.name.clone(), is_string, is_pointer, signed, bytes, pid })
}

#[cfg(test)]
mod tests;
mod text;
