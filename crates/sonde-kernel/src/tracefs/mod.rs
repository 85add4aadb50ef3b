//! tracefs: finding (or mounting) it, and what sonde does there. `Tracefs` and `events`
//! (tracepoint ids, formats and the list of events) are the bottom; above them sonde's own
//! instances (`instance`), its kprobe/uprobe/fprobe events (`probe_event`), the record of
//! top-level settings a run changed (`run_record`), the function_graph tracer (`graph_tracer`)
//! and, last, the one clean-up after dead runs (`leftovers`).

pub mod events;
pub mod graph_tracer;
pub mod instance;
pub mod leftovers;
pub mod probe_event;
mod run_record;

use crate::error::{KernelError, Result};
use std::ffi::CString;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

const TRACING: &str = "/sys/kernel/tracing";
const DEBUG_TRACING: &str = "/sys/kernel/debug/tracing";

#[derive(Clone, Debug)]
pub struct Tracefs {
    root: PathBuf,
}

impl Tracefs {
    /// tracefs where it is normally mounted, else under debugfs (older distributions), else mount it
    /// at /sys/kernel/tracing ourselves (many VMs boot without it).
    pub fn find_or_mount() -> Result<Tracefs> {
        if let Some(t) = Tracefs::find() {
            return Ok(t);
        }
        // Mounted but root-only (mode 700): mounting again would fail with EPERM and blame the
        // mount, when the cause is who we are.
        for root in [TRACING, DEBUG_TRACING] {
            if let Err(e) = std::fs::read_dir(Path::new(root).join("events")) {
                if e.kind() == ErrorKind::PermissionDenied {
                    return Err(KernelError::TracefsDenied { path: root.into() });
                }
            }
        }
        let target = CString::new(TRACING).expect("no NUL in a constant");
        crate::sys::mount_tracefs(&target)
            .map_err(|e| KernelError::NoTracefs { mount_errno: e })?;
        if Path::new(TRACING).join("events").is_dir() {
            Ok(Tracefs::at(TRACING))
        } else {
            Err(KernelError::NoTracefs { mount_errno: libc::ENOENT })
        }
    }

    /// tracefs if it is already mounted (normally, or under debugfs); never mounts it.
    pub fn find() -> Option<Tracefs> {
        [TRACING, DEBUG_TRACING]
            .into_iter()
            .find(|root| Path::new(root).join("events").is_dir())
            .map(Tracefs::at)
    }

    /// tracefs (or a fixture tree shaped like it) at `root`.
    pub fn at(root: impl Into<PathBuf>) -> Tracefs {
        Tracefs { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The last entry of `tracing/error_log` (5.2+), in one line: why the kernel refused the
    /// last definition or filter, and where (`error: Invalid fetch argument`, then the command).
    pub fn last_error(&self) -> Option<String> {
        let text = std::fs::read_to_string(self.root.join("error_log")).ok()?;
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().rposition(|l| l.starts_with('['))?;
        let words: Vec<&str> = lines[start..]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '^' || c == ' '))
            .collect();
        // `[  12.345] trace_kprobe: error: Invalid fetch argument` -> after the timestamp.
        let first = words.first()?.split_once("] ").map_or(words[0], |(_, r)| r);
        Some(
            std::iter::once(first).chain(words[1..].iter().copied()).collect::<Vec<_>>().join("; "),
        )
    }
}
