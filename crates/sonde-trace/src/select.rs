//! `-e EXPR`: which syscalls to trace, by name, glob, negation and strace's classes
//! (`-e 'open*,read'`, `-e '!futex,epoll_*'`, `-e %file`), resolved against the kernel's table.

use crate::syscalls::{Syscall, SyscallTable};
use std::collections::BTreeSet;

#[derive(Debug, PartialEq, thiserror::Error)]
pub enum SelectError {
    #[error("-e {0}: no syscall of this kernel has that name")]
    Unknown(String),
    #[error("-e {0}: no syscall of this kernel matches that pattern")]
    NoMatch(String),
    #[error("-e %{0}: unknown class (known: %file, %net, %process, %memory, %signal, %desc)")]
    Class(String),
    #[error("-e: an empty item (write names separated by commas)")]
    Empty,
}

/// The syscall numbers chosen; `all` when nothing narrowed the choice (so no per-call filter).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub nrs: BTreeSet<u32>,
    pub all: bool,
}

impl Selection {
    pub fn everything(table: &SyscallTable) -> Selection {
        Selection { nrs: table.iter().map(|s| s.nr).collect(), all: true }
    }

    pub fn parse(expr: &str, table: &SyscallTable) -> Result<Selection, SelectError> {
        // strace's `trace=` prefix is accepted as is.
        let expr = expr.strip_prefix("trace=").unwrap_or(expr);
        let (negate, list) = match expr.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, expr),
        };
        let mut chosen = BTreeSet::new();
        for item in list.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(SelectError::Empty);
            }
            let found: Vec<u32> = if let Some(class) = item.strip_prefix('%') {
                let rule = class_rule(class).ok_or_else(|| SelectError::Class(class.into()))?;
                table.iter().filter(|s| rule(s)).map(|s| s.nr).collect()
            } else if sonde_glob::is_glob(item) {
                let g = sonde_glob::Glob::new(item);
                let v: Vec<u32> =
                    table.iter().filter(|s| g.matches(&s.name)).map(|s| s.nr).collect();
                if v.is_empty() {
                    return Err(SelectError::NoMatch(item.into()));
                }
                v
            } else {
                let s = table.by_name(item).ok_or_else(|| SelectError::Unknown(item.into()))?;
                vec![s.nr]
            };
            chosen.extend(found);
        }
        let nrs = if negate {
            table.iter().map(|s| s.nr).filter(|nr| !chosen.contains(nr)).collect()
        } else {
            chosen
        };
        Ok(Selection { nrs, all: false })
    }

    pub fn contains(&self, nr: u32) -> bool {
        self.nrs.contains(&nr)
    }
}

type Rule = fn(&Syscall) -> bool;

/// strace's classes. %file and %desc follow from argument names in the format files; the others
/// are strace's lists.
fn class_rule(class: &str) -> Option<Rule> {
    Some(match class {
        "file" => |s| {
            s.args
                .iter()
                .any(|a| a.is_string && (a.name.contains("name") || a.name.contains("path")))
        },
        "desc" => |s| {
            s.args.iter().any(|a| a.name.ends_with("fd") || a.name.starts_with("fd"))
                || DESC_CREATORS.contains(&s.name.as_str())
        },
        "net" | "network" => |s| NET.contains(&s.name.as_str()),
        "process" => |s| PROCESS.contains(&s.name.as_str()),
        "memory" => |s| MEMORY.contains(&s.name.as_str()),
        "signal" => |s| s.name.contains("sig") || SIGNAL.contains(&s.name.as_str()),
        _ => return None,
    })
}

const DESC_CREATORS: &[&str] = &[
    "open",
    "openat",
    "openat2",
    "creat",
    "pipe",
    "pipe2",
    "eventfd",
    "eventfd2",
    "epoll_create",
    "epoll_create1",
    "memfd_create",
    "signalfd",
    "signalfd4",
    "timerfd_create",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "userfaultfd",
    "perf_event_open",
    "pidfd_open",
    "io_uring_setup",
    "memfd_secret",
];
const NET: &[&str] = &[
    "socket",
    "socketpair",
    "bind",
    "listen",
    "accept",
    "accept4",
    "connect",
    "getsockname",
    "getpeername",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    "setsockopt",
    "getsockopt",
];
const PROCESS: &[&str] = &[
    "clone",
    "clone3",
    "fork",
    "vfork",
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "wait4",
    "waitid",
    "kill",
    "tkill",
    "tgkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "pidfd_open",
    "pidfd_send_signal",
    "unshare",
];
const MEMORY: &[&str] = &[
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "pkey_mprotect",
    "madvise",
    "process_madvise",
    "mlock",
    "mlock2",
    "munlock",
    "mlockall",
    "munlockall",
    "mincore",
    "msync",
    "mbind",
    "get_mempolicy",
    "set_mempolicy",
    "migrate_pages",
    "move_pages",
    "remap_file_pages",
    "mseal",
];
const SIGNAL: &[&str] = &["kill", "tkill", "tgkill", "pause", "signalfd", "signalfd4"];

#[cfg(test)]
mod tests;
