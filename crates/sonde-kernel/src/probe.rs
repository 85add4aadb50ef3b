//! kprobes and uprobes as perf events.
//!
//! The preferred route is the kprobe/uprobe PMU (4.17+): `perf_event_open` with the PMU's dynamic
//! type creates a probe that belongs to the fd alone. Nothing is registered in tracefs, and the
//! kernel removes the probe when the fd closes, so a SIGKILLed sonde leaves nothing behind.
//!
//! Without the PMU we fall back to tracefs `kprobe_events`/`uprobe_events`: we create the event
//! `sonde/sonde_<pid>_<n>`, open it as a tracepoint, and remove it when the [`Link`] drops. Those
//! events outlive a killed process, so sonde calls [`cleanup_dead_runs`] at start-up to remove the
//! ones whose `<pid>` is no longer running.

use crate::attach::{attach_perf_fd, Link, PerfAttach};
use crate::error::{KernelError, Result};
use crate::prog::Program;
use crate::sys::{self, PerfEventAttr};
use crate::tracefs::Tracefs;
use std::ffi::CString;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A kernel function to probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KprobeSpec<'a> {
    /// The function's name, or "" to probe the absolute kernel address in `offset`.
    pub symbol: &'a str,
    /// Bytes into the function (0 for its entry), or the address when `symbol` is "".
    pub offset: u64,
    /// At return (kretprobe) rather than entry. Return probes take no offset.
    pub retprobe: bool,
}

impl<'a> KprobeSpec<'a> {
    /// Entry of `symbol`.
    pub fn entry(symbol: &'a str) -> KprobeSpec<'a> {
        KprobeSpec {
            symbol,
            offset: 0,
            retprobe: false,
        }
    }

    /// Return of `symbol`.
    pub fn ret(symbol: &'a str) -> KprobeSpec<'a> {
        KprobeSpec {
            retprobe: true,
            ..KprobeSpec::entry(symbol)
        }
    }

    /// An absolute kernel address.
    pub fn address(addr: u64) -> KprobeSpec<'static> {
        KprobeSpec {
            symbol: "",
            offset: addr,
            retprobe: false,
        }
    }

    fn display(&self) -> String {
        match (self.symbol, self.offset) {
            ("", a) => format!("{a:#x}"),
            (s, 0) => s.to_string(),
            (s, o) => format!("{s}+{o:#x}"),
        }
    }
}

/// A user-space instruction to probe: a file offset in an executable or library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UprobeSpec<'a> {
    pub path: &'a Path,
    /// File offset of the instruction (a symbol's address converted through its PT_LOAD segment,
    /// not the address itself).
    pub offset: u64,
    /// At return (uretprobe) rather than at the instruction.
    pub retprobe: bool,
    /// Only this process (`-p PID`); None for every process that maps the file.
    pub pid: Option<u32>,
}

/// Which kernel interface creates the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeVia {
    /// The PMU if the kernel has it, else tracefs.
    Auto,
    /// Only the kprobe/uprobe PMU.
    Pmu,
    /// Only tracefs `kprobe_events`/`uprobe_events` (the fallback; forced for tests).
    Tracefs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Kprobe,
    Uprobe,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Kprobe => "kprobe",
            Kind::Uprobe => "uprobe",
        }
    }

    fn events_file(self) -> &'static str {
        match self {
            Kind::Kprobe => "kprobe_events",
            Kind::Uprobe => "uprobe_events",
        }
    }
}

/// A dynamic PMU's perf type and the config bit that makes a probe a return probe.
#[derive(Clone, Copy, Debug)]
struct Pmu {
    type_: u32,
    retprobe: u64,
}

/// The kprobe or uprobe PMU, read from sysfs once per process. None if the kernel has none.
fn pmu(kind: Kind) -> Result<Option<Pmu>> {
    static KPROBE: OnceLock<Option<Pmu>> = OnceLock::new();
    static UPROBE: OnceLock<Option<Pmu>> = OnceLock::new();
    let cell = match kind {
        Kind::Kprobe => &KPROBE,
        Kind::Uprobe => &UPROBE,
    };
    if let Some(p) = cell.get() {
        return Ok(*p);
    }
    let dir = format!("/sys/bus/event_source/devices/{}", kind.name());
    let type_path = format!("{dir}/type");
    let type_text = match std::fs::read_to_string(&type_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(*cell.get_or_init(|| None)),
        Err(e) => {
            return Err(KernelError::Io {
                path: type_path,
                source: e,
            })
        }
    };
    let type_ = type_text.trim().parse().map_err(|_| KernelError::Parse {
        path: type_path,
        text: type_text.trim().into(),
    })?;
    let bit_path = format!("{dir}/format/retprobe");
    let bit_text = std::fs::read_to_string(&bit_path).map_err(KernelError::io(&bit_path))?;
    let retprobe = parse_config_bit(&bit_text).ok_or_else(|| KernelError::Parse {
        path: bit_path,
        text: bit_text.trim().into(),
    })?;
    Ok(*cell.get_or_init(|| Some(Pmu { type_, retprobe })))
}

/// `config:N` (a PMU format file naming one bit of `config`) to that bit's mask.
fn parse_config_bit(text: &str) -> Option<u64> {
    let bit: u32 = text.trim().strip_prefix("config:")?.parse().ok()?;
    (bit < 64).then(|| 1u64 << bit)
}

/// Attach a KPROBE program to a kernel function's entry or return ([`ProbeVia::Auto`]).
pub fn attach_kprobe(prog: &Program, spec: KprobeSpec) -> Result<Link> {
    attach_kprobe_with(prog, spec, ProbeVia::Auto)
}

pub fn attach_kprobe_with(prog: &Program, spec: KprobeSpec, via: ProbeVia) -> Result<Link> {
    if spec.retprobe && spec.offset != 0 && !spec.symbol.is_empty() {
        return Err(KernelError::Unsupported {
            what: "a return probe at an offset into a function",
            hint: "return probes go on the function itself; drop the +offset",
        });
    }
    let not_probeable = |errno| {
        if spec.offset != 0 && !spec.symbol.is_empty() {
            KernelError::BadProbeOffset {
                symbol: spec.symbol.to_string(),
                offset: spec.offset,
                errno,
            }
        } else {
            KernelError::NotProbeable {
                symbol: spec.display(),
                errno,
            }
        }
    };
    if spec
        .symbol
        .contains(|c: char| c == '\0' || c.is_whitespace())
    {
        return Err(not_probeable(libc::EINVAL));
    }
    let pmu = match via {
        ProbeVia::Tracefs => None,
        _ => pmu(Kind::Kprobe)?,
    };
    let event = match (pmu, via) {
        (Some(pmu), _) => {
            let symbol = CString::new(spec.symbol).map_err(|_| not_probeable(libc::EINVAL))?;
            let mut attr = PerfEventAttr {
                type_: pmu.type_,
                config: if spec.retprobe { pmu.retprobe } else { 0 },
                config1: if spec.symbol.is_empty() {
                    0
                } else {
                    sys::addr_cstr(&symbol)
                },
                config2: spec.offset,
                ..Default::default()
            };
            // pid -1 on CPU 0 runs the program on every CPU, as for tracepoints.
            let fd = sys::perf_event_open(&mut attr, -1, 0)
                .map_err(|e| kprobe_error(e, &spec, "perf_event_open(kprobe PMU)"))?;
            (fd, None)
        }
        (None, ProbeVia::Pmu) => return Err(KernelError::NoKprobes),
        (None, _) => {
            let tracefs = Tracefs::find_or_mount()?;
            if !crate::features::kprobe_events_available(&tracefs) {
                return Err(KernelError::NoKprobes);
            }
            let target = spec.display();
            let kind = if spec.retprobe { 'r' } else { 'p' };
            let probe = TracefsProbe::create(&tracefs, Kind::Kprobe, |name| {
                format!("{kind}:{GROUP}/{name} {target}")
            })
            .map_err(|e| match e {
                CreateError::Write(errno) => kprobe_error(errno, &spec, "write(kprobe_events)"),
                CreateError::Other(e) => e,
            })?;
            let fd = probe.open(-1, 0)?;
            (fd, Some(probe))
        }
    };
    link_with(prog, event)
}

fn link_with(prog: &Program, (event, probe): (OwnedFd, Option<TracefsProbe>)) -> Result<Link> {
    // On error the probe drops after the event: it is removed again.
    let link = attach_perf_fd(prog, event, PerfAttach::Auto)?;
    Ok(match probe {
        Some(p) => link.with_probe(p),
        None => link,
    })
}

fn kprobe_error(errno: i32, spec: &KprobeSpec, op: &'static str) -> KernelError {
    match errno {
        libc::ENOENT | libc::EINVAL | libc::EILSEQ if spec.offset != 0 && !spec.symbol.is_empty() => {
            KernelError::BadProbeOffset {
                symbol: spec.symbol.to_string(),
                offset: spec.offset,
                errno,
            }
        }
        libc::ENOENT | libc::EINVAL | libc::EILSEQ => KernelError::NotProbeable {
            symbol: spec.display(),
            errno,
        },
        libc::EADDRNOTAVAIL => KernelError::AmbiguousSymbol {
            symbol: spec.display(),
        },
        _ => KernelError::Syscall { op, errno },
    }
}

/// Attach a KPROBE program to an instruction in a user-space file ([`ProbeVia::Auto`]).
pub fn attach_uprobe(prog: &Program, spec: UprobeSpec) -> Result<Link> {
    attach_uprobe_with(prog, spec, ProbeVia::Auto)
}

pub fn attach_uprobe_with(prog: &Program, spec: UprobeSpec, via: ProbeVia) -> Result<Link> {
    let target = |errno| KernelError::UprobeTarget {
        path: spec.path.display().to_string(),
        offset: spec.offset,
        errno,
    };
    let path = CString::new(spec.path.as_os_str().as_bytes()).map_err(|_| target(libc::EINVAL))?;
    // A process, on every CPU it runs on; or every process, with the program on the probe itself.
    let (pid, cpu) = match spec.pid {
        Some(p) => (p as i32, -1),
        None => (-1, 0),
    };
    let open_error = |errno| match errno {
        libc::ESRCH => KernelError::Syscall {
            op: "perf_event_open(uprobe) for a process that does not exist",
            errno,
        },
        libc::EPERM | libc::EACCES | libc::EMFILE | libc::ENFILE | libc::ENOMEM => {
            KernelError::Syscall {
                op: "perf_event_open(uprobe)",
                errno,
            }
        }
        _ => target(errno),
    };
    let pmu = match via {
        ProbeVia::Tracefs => None,
        _ => pmu(Kind::Uprobe)?,
    };
    let event = match (pmu, via) {
        (Some(pmu), _) => {
            let mut attr = PerfEventAttr {
                type_: pmu.type_,
                config: if spec.retprobe { pmu.retprobe } else { 0 },
                config1: sys::addr_cstr(&path),
                config2: spec.offset,
                ..Default::default()
            };
            (
                sys::perf_event_open(&mut attr, pid, cpu).map_err(open_error)?,
                None,
            )
        }
        (None, ProbeVia::Pmu) => return Err(KernelError::NoUprobes),
        (None, _) => {
            let tracefs = Tracefs::find_or_mount()?;
            if !crate::features::uprobe_events_available(&tracefs) {
                return Err(KernelError::NoUprobes);
            }
            // tracefs takes `PATH:OFFSET` separated by spaces: other paths cannot be written.
            let p = match spec.path.to_str() {
                Some(p) if !p.contains(char::is_whitespace) && !p.is_empty() => p,
                _ => return Err(target(libc::EINVAL)),
            };
            let kind = if spec.retprobe { 'r' } else { 'p' };
            let offset = spec.offset;
            let probe = TracefsProbe::create(&tracefs, Kind::Uprobe, |name| {
                format!("{kind}:{GROUP}/{name} {p}:{offset:#x}")
            })
            .map_err(|e| match e {
                CreateError::Write(errno) => target(errno),
                CreateError::Other(e) => e,
            })?;
            let fd = probe.open(pid, cpu).map_err(|e| match e.errno() {
                Some(errno) if !matches!(e, KernelError::Io { .. }) => open_error(errno),
                _ => e,
            })?;
            (fd, Some(probe))
        }
    };
    link_with(prog, event)
}

/// The tracefs group of every event sonde creates.
const GROUP: &str = "sonde";

/// Numbers this process's tracefs events.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// A kprobe or uprobe event sonde created in tracefs (`sonde/sonde_<pid>_<n>`); removed on drop.
#[derive(Debug)]
pub(crate) struct TracefsProbe {
    events: PathBuf,
    tracefs: Tracefs,
    name: String,
}

enum CreateError {
    /// Writing the definition failed with this errno: the kernel refused the probe.
    Write(i32),
    Other(KernelError),
}

impl TracefsProbe {
    fn create(
        tracefs: &Tracefs,
        kind: Kind,
        line: impl Fn(&str) -> String,
    ) -> std::result::Result<TracefsProbe, CreateError> {
        let name = format!(
            "sonde_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let events = tracefs.root().join(kind.events_file());
        append(&events, &line(&name)).map_err(|e| match e.raw_os_error() {
            Some(errno) => CreateError::Write(errno),
            None => CreateError::Other(KernelError::Io {
                path: events.display().to_string(),
                source: e,
            }),
        })?;
        Ok(TracefsProbe {
            events,
            tracefs: tracefs.clone(),
            name,
        })
    }

    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// Open the event as a tracepoint perf event.
    fn open(&self, pid: i32, cpu: i32) -> Result<OwnedFd> {
        let id = self.tracefs.tracepoint_id(GROUP, &self.name)?;
        let mut attr = PerfEventAttr {
            type_: sys::PERF_TYPE_TRACEPOINT,
            config: id,
            ..Default::default()
        };
        sys::perf_event_open(&mut attr, pid, cpu)
            .map_err(KernelError::sys("perf_event_open(PERF_TYPE_TRACEPOINT)"))
    }
}

impl Drop for TracefsProbe {
    fn drop(&mut self) {
        // The perf event on it was closed just before; the kernel may still hold it for a moment.
        let _ = remove_event(&self.events, &self.name, Duration::from_secs(1));
    }
}

/// Append one definition to a tracefs events file. Never truncate: opening without O_APPEND
/// would clear every probe on the system.
fn append(file: &Path, line: &str) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().append(true).open(file)?;
    f.write_all(format!("{line}\n").as_bytes())
}

/// `-:sonde/NAME`, retrying while the kernel says the event is busy. Gone already counts as done.
fn remove_event(events: &Path, name: &str, patience: Duration) -> std::io::Result<()> {
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

/// Remove the tracefs probe events left by sonde runs that died without cleaning up (SIGKILL):
/// every `sonde/sonde_<pid>_<n>` in `kprobe_events` and `uprobe_events` whose pid no longer runs.
/// Returns how many were removed. Uses tracefs only if it is mounted (if it is not, no sonde run
/// made events since boot, as sonde mounts it to make them); see [`cleanup_dead_runs_in`].
pub fn cleanup_dead_runs() -> Result<usize> {
    match Tracefs::find() {
        Some(t) => cleanup_dead_runs_in(&t),
        None => Ok(0),
    }
}

/// [`cleanup_dead_runs`] in a given tracefs.
pub fn cleanup_dead_runs_in(tracefs: &Tracefs) -> Result<usize> {
    let mut removed = 0;
    for kind in [Kind::Kprobe, Kind::Uprobe] {
        let events = tracefs.root().join(kind.events_file());
        let text = match std::fs::read_to_string(&events) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(KernelError::Io {
                    path: events.display().to_string(),
                    source: e,
                })
            }
        };
        for (name, pid) in text.lines().filter_map(sonde_event) {
            if Path::new(&format!("/proc/{pid}")).exists() {
                continue;
            }
            match remove_event(&events, name, Duration::ZERO) {
                Ok(()) => removed += 1,
                // In use: a live process with the same pid in another namespace, or a tracer that
                // opened it. Leave it.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => {
                    return Err(KernelError::Io {
                        path: events.display().to_string(),
                        source: e,
                    })
                }
            }
        }
    }
    Ok(removed)
}

/// `p:sonde/sonde_123_4 do_sys_open` (or `r16:sonde/...`) to ("sonde_123_4", 123).
fn sonde_event(line: &str) -> Option<(&str, u32)> {
    let head = line.split_whitespace().next()?;
    let (_, event) = head.split_once(':')?;
    let (group, name) = event.split_once('/')?;
    if group != GROUP {
        return None;
    }
    let (pid, n) = name.strip_prefix("sonde_")?.split_once('_')?;
    n.parse::<u32>().ok()?;
    Some((name, pid.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmu_format_bits_parse() {
        assert_eq!(parse_config_bit("config:0\n"), Some(1));
        assert_eq!(parse_config_bit("config:5"), Some(32));
        assert_eq!(parse_config_bit("config1:0"), None);
        assert_eq!(parse_config_bit("config:64"), None);
    }

    #[test]
    fn only_sonde_events_are_recognised() {
        assert_eq!(
            sonde_event("p:sonde/sonde_123_4 do_sys_open"),
            Some(("sonde_123_4", 123))
        );
        assert_eq!(
            sonde_event("r16:sonde/sonde_9_0 /bin/bash:0x0000000000001234"),
            Some(("sonde_9_0", 9))
        );
        assert_eq!(sonde_event("p:kprobes/sonde_123_4 do_sys_open"), None);
        assert_eq!(sonde_event("p:sonde/other_1_2 x"), None);
        assert_eq!(sonde_event("p:sonde/sonde_x_2 x"), None);
        assert_eq!(sonde_event(""), None);
    }

    #[test]
    fn kprobe_targets_are_written_the_way_tracefs_reads_them() {
        assert_eq!(KprobeSpec::entry("vfs_read").display(), "vfs_read");
        let at = KprobeSpec {
            offset: 16,
            ..KprobeSpec::entry("vfs_read")
        };
        assert_eq!(at.display(), "vfs_read+0x10");
        assert_eq!(
            KprobeSpec::address(0xffffffff81000000).display(),
            "0xffffffff81000000"
        );
    }
}
