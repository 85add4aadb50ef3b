//! kprobe, uprobe and fprobe events sonde writes into tracefs (`sonde/sonde_<pid>_<n>` in
//! `kprobe_events`, `uprobe_events` or `dynamic_events`): the fallback where the kernel has no
//! kprobe/uprobe PMU, and `sonde probe`'s own events ([`DynamicEvent`]). Each is removed when its `TracefsProbe` drops; those of a SIGKILLed run outlive it, and the next
//! run removes the ones whose `<pid>` no longer runs (`leftovers`).

use crate::error::{KernelError, Result};
use crate::sys::{self, PerfEventAttr};
use crate::tracefs::Tracefs;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The kinds of dynamic probe, as sysfs and tracefs name them. Fprobes (`f:`, Linux 6.4+) are
/// written to `dynamic_events` and have no PMU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Kprobe,
    Uprobe,
    Fprobe,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Kprobe => "kprobe",
            Kind::Uprobe => "uprobe",
            Kind::Fprobe => "fprobe",
        }
    }

    pub(crate) fn events_file(self) -> &'static str {
        match self {
            Kind::Kprobe => "kprobe_events",
            Kind::Uprobe => "uprobe_events",
            Kind::Fprobe => "dynamic_events",
        }
    }

    /// Whether this tracefs takes definitions of this kind (CONFIG_KPROBE_EVENTS,
    /// CONFIG_UPROBE_EVENTS).
    pub(crate) fn available(self, tracefs: &Tracefs) -> bool {
        tracefs.root().join(self.events_file()).exists()
    }
}

/// The tracefs group of every event sonde creates.
pub(crate) const GROUP: &str = "sonde";

/// Numbers this process's tracefs events.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// A kprobe or uprobe event sonde created in tracefs (`sonde/sonde_<pid>_<n>`); removed on drop.
#[derive(Debug)]
pub(crate) struct TracefsProbe {
    events: PathBuf,
    tracefs: Tracefs,
    name: String,
}

pub(crate) enum CreateError {
    /// Writing the definition failed with this errno: the kernel refused the probe.
    Write(i32),
    Other(KernelError),
}

impl TracefsProbe {
    pub(crate) fn create(
        tracefs: &Tracefs,
        kind: Kind,
        line: impl Fn(&str) -> String,
    ) -> std::result::Result<TracefsProbe, CreateError> {
        TracefsProbe::create_named(tracefs, kind, reserve_name(), line)
    }

    fn create_named(
        tracefs: &Tracefs,
        kind: Kind,
        name: String,
        line: impl Fn(&str) -> String,
    ) -> std::result::Result<TracefsProbe, CreateError> {
        let events = tracefs.root().join(kind.events_file());
        append(&events, &line(&name)).map_err(|e| match e.raw_os_error() {
            Some(errno) => CreateError::Write(errno),
            None => CreateError::Other(KernelError::Io {
                path: events.display().to_string(),
                source: e,
            }),
        })?;
        Ok(TracefsProbe { events, tracefs: tracefs.clone(), name })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Open the event as a tracepoint perf event.
    pub(crate) fn open(&self, pid: i32, cpu: i32) -> Result<OwnedFd> {
        let id = self.tracefs.tracepoint_id(GROUP, &self.name)?;
        let mut attr =
            PerfEventAttr { type_: sys::PERF_TYPE_TRACEPOINT, config: id, ..Default::default() };
        sys::perf_event_open(&mut attr, pid, cpu)
            .map_err(KernelError::sys("perf_event_open(PERF_TYPE_TRACEPOINT)"))
    }
}

/// A fresh event name for this process, `sonde_<pid>_<n>`: the shape `leftovers` recognises, so
/// a SIGKILLed run's events are removed by the next run.
pub fn reserve_name() -> String {
    format!("sonde_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A kprobe or uprobe event written whole by the caller (`sonde probe`'s definitions) in group
/// `sonde` under a name from [`reserve_name`]; removed on drop.
#[derive(Debug)]
pub struct DynamicEvent {
    probe: TracefsProbe,
}

impl DynamicEvent {
    /// Append `line` (which must define `sonde/<name>`) to `uprobe_events` or `kprobe_events`.
    /// A refusal carries the kernel's own words from `tracing/error_log`.
    pub fn create(tracefs: &Tracefs, uprobe: bool, name: &str, line: &str) -> Result<DynamicEvent> {
        let kind = if uprobe { Kind::Uprobe } else { Kind::Kprobe };
        if !kind.available(tracefs) {
            return Err(if uprobe { KernelError::NoUprobes } else { KernelError::NoKprobes });
        }
        DynamicEvent::write(tracefs, kind, name, line)
    }

    /// Append an fprobe's `f:sonde/<name> ...` line to `dynamic_events` (check
    /// [`fprobes_available`] first).
    pub fn create_fprobe(tracefs: &Tracefs, name: &str, line: &str) -> Result<DynamicEvent> {
        DynamicEvent::write(tracefs, Kind::Fprobe, name, line)
    }

    fn write(tracefs: &Tracefs, kind: Kind, name: &str, line: &str) -> Result<DynamicEvent> {
        TracefsProbe::create_named(tracefs, kind, name.to_string(), |_| line.to_string())
            .map(|probe| DynamicEvent { probe })
            .map_err(|e| match e {
                CreateError::Write(errno) => KernelError::Rejected {
                    what: line.to_string(),
                    errno,
                    log: tracefs.last_error(),
                },
                CreateError::Other(e) => e,
            })
    }

    pub fn group(&self) -> &'static str {
        GROUP
    }

    pub fn name(&self) -> &str {
        self.probe.name()
    }
}

impl Drop for TracefsProbe {
    fn drop(&mut self) {
        // The perf event on it was closed just before; the kernel may still hold it for a moment.
        let _ = remove_event(&self.events, &self.name, Duration::from_secs(1));
    }
}

/// Whether the kernel takes BTF-aware fprobe events (`f:` in `dynamic_events`, Linux 6.4+ with
/// CONFIG_FPROBE_EVENTS): its tracefs README documents the syntax when it does.
pub fn fprobes_available(tracefs: &Tracefs) -> bool {
    tracefs.root().join("dynamic_events").exists()
        && std::fs::read_to_string(tracefs.root().join("README"))
            .is_ok_and(|r| r.contains("f[:[<group>/][<event>]]"))
}

/// Append one definition to a tracefs events file. Never truncate: opening without O_APPEND
/// would clear every probe on the system.
fn append(file: &Path, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().append(true).open(file)?;
    f.write_all(format!("{line}\n").as_bytes())
}

/// `-:sonde/NAME`, retrying while the kernel says the event is busy. Gone already counts as done.
pub(crate) fn remove_event(events: &Path, name: &str, patience: Duration) -> std::io::Result<()> {
    let deadline = Instant::now() + patience;
    loop {
        match append(events, &format!("-:{GROUP}/{name}")) {
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5))
            }
            r => return r,
        }
    }
}

/// The run a line of an events file belongs to: `p:sonde/sonde_123_4 do_sys_open` (or
/// `r16:sonde/...`, `f:sonde/...`) gives ("sonde_123_4", 123); another group or name, None.
pub(crate) fn owner(line: &str) -> Option<(&str, u32)> {
    let head = line.split_whitespace().next()?;
    let (_, event) = head.split_once(':')?;
    let (group, name) = event.split_once('/')?;
    if group != GROUP {
        return None;
    }
    let (pid, n) = name.strip_prefix("sonde_")?.split_once('_')?;
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !number(pid) || !number(n) {
        return None;
    }
    Some((name, pid.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_sonde_events_are_recognised() {
        assert_eq!(owner("p:sonde/sonde_123_4 do_sys_open"), Some(("sonde_123_4", 123)));
        assert_eq!(
            owner("r16:sonde/sonde_9_0 /bin/bash:0x0000000000001234"),
            Some(("sonde_9_0", 9))
        );
        assert_eq!(owner("p:kprobes/sonde_123_4 do_sys_open"), None);
        assert_eq!(owner("p:sonde/other_1_2 x"), None);
        assert_eq!(owner("p:sonde/sonde_x_2 x"), None);
        assert_eq!(owner("p:sonde/sonde_+1_2 x"), None);
        assert_eq!(owner("p:sonde/sonde_1_2_3 x"), None);
        assert_eq!(owner("f:sonde/sonde_7_1 vfs_read"), Some(("sonde_7_1", 7)));
        assert_eq!(owner(""), None);
    }
}
