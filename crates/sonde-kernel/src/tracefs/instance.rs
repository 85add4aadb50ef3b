//! sonde's own tracefs instance (`instances/sonde-<pid>`): events enabled there, their filters,
//! options and `trace_pipe` stay apart from the global buffer and other tracers. Removed on drop
//! (events disabled first); a SIGKILLed run's instance is removed by the next run once its pid is
//! gone ([`cleanup_dead_instances`], called by `probe_event::cleanup_dead_runs`).

use crate::error::{KernelError, Result};
use crate::tracefs::Tracefs;
use std::fs::File;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PREFIX: &str = "sonde-";

#[derive(Debug)]
pub struct Instance {
    dir: PathBuf,
    tracefs: Tracefs,
    enabled: Vec<PathBuf>,
}

impl Instance {
    /// Make `instances/sonde-<pid>`.
    pub fn create(tracefs: &Tracefs) -> Result<Instance> {
        let dir = tracefs.root().join("instances").join(format!("{PREFIX}{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(KernelError::io(dir.display().to_string()))?;
        Ok(Instance { dir, tracefs: tracefs.clone(), enabled: Vec::new() })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Set an event's filter in this instance; a refusal carries the kernel's words.
    pub fn set_filter(&self, group: &str, event: &str, filter: &str) -> Result<()> {
        let path = self.dir.join("events").join(group).join(event).join("filter");
        write(&path, filter).map_err(|e| match e.raw_os_error() {
            Some(errno) if e.kind() != ErrorKind::NotFound => KernelError::Rejected {
                what: format!("{filter}` as the filter of `{group}/{event}"),
                errno,
                log: self.tracefs.last_error(),
            },
            _ => KernelError::Io { path: path.display().to_string(), source: e },
        })
    }

    /// Enable an event in this instance (disabled again on drop).
    pub fn enable(&mut self, group: &str, event: &str) -> Result<()> {
        let path = self.dir.join("events").join(group).join(event).join("enable");
        write(&path, "1").map_err(KernelError::io(path.display().to_string()))?;
        self.enabled.push(path);
        Ok(())
    }

    /// `options/NAME` (e.g. `stacktrace`).
    pub fn set_option(&self, name: &str, on: bool) -> Result<()> {
        let path = self.dir.join("options").join(name);
        write(&path, if on { "1" } else { "0" })
            .map_err(KernelError::io(path.display().to_string()))
    }

    /// Record only events of these pids (`set_event_pid`); with `follow`, their children too
    /// (`options/event-fork`).
    pub fn set_event_pids(&self, pids: &[u32], follow: bool) -> Result<()> {
        let path = self.dir.join("set_event_pid");
        let text = pids.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        write(&path, &text).map_err(KernelError::io(path.display().to_string()))?;
        self.set_option("event-fork", follow)
    }

    /// This instance's `trace_pipe`, non-blocking, so the reader can notice a stop request.
    pub fn open_pipe(&self) -> Result<File> {
        let path = self.dir.join("trace_pipe");
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .map_err(KernelError::io(path.display().to_string()))
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        for p in self.enabled.drain(..) {
            let _ = write(&p, "0");
        }
        let _ = remove(&self.dir, Duration::from_secs(1));
    }
}

fn write(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new().write(true).truncate(true).open(path)?.write_all(text.as_bytes())
}

/// rmdir, retrying while a reader still holds the instance's pipe. Gone counts as done.
fn remove(dir: &Path, patience: Duration) -> std::io::Result<()> {
    let deadline = Instant::now() + patience;
    loop {
        match std::fs::remove_dir(dir) {
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            r => return r,
        }
    }
}

/// Remove `instances/sonde-<pid>` of runs whose pid no longer exists; returns how many.
pub fn cleanup_dead_instances(tracefs: &Tracefs) -> Result<usize> {
    let dir = tracefs.root().join("instances");
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(0) };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(PREFIX).and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        match remove(&e.path(), Duration::ZERO) {
            Ok(()) => removed += 1,
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
            Err(err) => {
                return Err(KernelError::Io { path: e.path().display().to_string(), source: err })
            }
        }
    }
    Ok(removed)
}
