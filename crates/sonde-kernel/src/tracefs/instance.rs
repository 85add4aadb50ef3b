//! sonde's own tracefs instances: `instances/sonde-<pid>` (`sonde probe`'s events) or
//! `instances/sonde-<pid>-<purpose>` (`sonde-<pid>-graph`, the function_graph tracer). Events
//! enabled there, their filters, options, tracer and `trace_pipe` stay apart from the global
//! buffer and other tracers. Removed on drop (events disabled first); a SIGKILLed run's instance
//! is removed by the next run once its pid is gone (`leftovers`).

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
        Instance::make(tracefs, format!("{PREFIX}{}", std::process::id()))
    }

    /// Make `instances/sonde-<pid>-<purpose>`, for a second instance of one run (`graph`).
    pub fn create_for(tracefs: &Tracefs, purpose: &'static str) -> Result<Instance> {
        Instance::make(tracefs, format!("{PREFIX}{}-{purpose}", std::process::id()))
    }

    fn make(tracefs: &Tracefs, name: String) -> Result<Instance> {
        let dir = tracefs.root().join("instances").join(name);
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

    /// Stops recording into this instance's buffer (`tracing_on` 0): what it holds can then be
    /// read to its end, however busy the events are.
    pub fn stop_recording(&self) -> Result<()> {
        let path = self.dir.join("tracing_on");
        write(&path, "0").map_err(KernelError::io(path.display().to_string()))
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

/// The pid of the run an instance name belongs to: `sonde-123` and `sonde-123-graph` give 123;
/// names sonde does not give, None.
pub(crate) fn owner(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let pid = rest.split_once('-').map_or(rest, |(pid, _)| pid);
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Remove a dead run's instance: its tracer stopped first, then rmdir (which disables its
/// events). False if a reader still holds it (EBUSY) or it is gone already.
pub(crate) fn remove_dead(dir: &Path) -> std::io::Result<bool> {
    // Files missing (another kernel's instance layout) are no reason to keep the instance.
    let _ = write(&dir.join("tracing_on"), "0");
    let _ = write(&dir.join("current_tracer"), "nop");
    match std::fs::remove_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound || e.raw_os_error() == Some(libc::EBUSY) => {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::owner;

    #[test]
    fn the_owner_is_read_from_names_sonde_gives() {
        assert_eq!(owner("sonde-123"), Some(123));
        assert_eq!(owner("sonde-123-graph"), Some(123));
        assert_eq!(owner("sonde-"), None);
        assert_eq!(owner("sonde--graph"), None);
        assert_eq!(owner("sonde-+12"), None);
        assert_eq!(owner("sonde-12x"), None);
        assert_eq!(owner("sonde_graph_123"), None);
        assert_eq!(owner("mine"), None);
        assert_eq!(owner("sonde-99999999999"), None);
    }
}
