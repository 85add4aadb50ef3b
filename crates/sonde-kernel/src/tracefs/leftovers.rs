//! The one clean-up after sonde runs that died without cleaning up (SIGKILL, a crash, a power
//! cut of the tracing session): every face calls [`clean_dead_runs`] once at start. What a run
//! can leave, and how its pid is known:
//! - the top-level tracer settings a `sonde graph` changed (`current_tracer`,
//!   `set_graph_function`, `set_ftrace_pid`, `options/funcgraph-*`, `max_graph_depth`, ...):
//!   its run record, `/run/sonde/graph-<pid>` (`run_record`), says what they were;
//! - tracefs instances `instances/sonde-<pid>` and `instances/sonde-<pid>-<purpose>`;
//! - probe events `sonde/sonde_<pid>_<n>` in `kprobe_events`, `uprobe_events` and (fprobes)
//!   `dynamic_events`.
//!
//! Only what belongs to a pid that no longer runs is touched, and what is still in use (a
//! reader on an instance's pipe, a perf event open on a probe event) is left.

use crate::error::{KernelError, Result};
use crate::sys;
use crate::tracefs::instance;
use crate::tracefs::probe_event::{self, Kind};
use crate::tracefs::run_record::{self, Records};
use crate::tracefs::Tracefs;
use std::fmt;
use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

/// What [`clean_dead_runs`] removed or restored. Its `Display` is one line for stderr, e.g.
/// `removed 3 probe events and 1 tracefs instance left by dead sonde runs (pids 123, 456)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Probe events removed from `kprobe_events`, `uprobe_events` and `dynamic_events`.
    pub probe_events: usize,
    /// Tracefs instances removed.
    pub instances: usize,
    /// Runs whose top-level tracer settings were put back.
    pub tracer_settings: usize,
    /// The dead runs' pids, sorted.
    pub pids: Vec<u32>,
}

impl Cleaned {
    pub fn is_empty(&self) -> bool {
        self.probe_events == 0 && self.instances == 0 && self.tracer_settings == 0
    }

    fn add_pid(&mut self, pid: u32) {
        if let Err(i) = self.pids.binary_search(&pid) {
            self.pids.insert(i, pid);
        }
    }
}

impl fmt::Display for Cleaned {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "no dead sonde run left anything behind");
        }
        let count = |n: usize, what: &str| match n {
            0 => None,
            1 => Some(format!("1 {what}")),
            n => Some(format!("{n} {what}s")),
        };
        let removed: Vec<String> =
            [count(self.probe_events, "probe event"), count(self.instances, "tracefs instance")]
                .into_iter()
                .flatten()
                .collect();
        let mut done = Vec::new();
        if !removed.is_empty() {
            done.push(format!("removed {}", removed.join(" and ")));
        }
        if self.tracer_settings > 0 {
            done.push("restored the tracer settings".to_string());
        }
        let done = done.join(", and ");
        let pids: Vec<String> = self.pids.iter().map(u32::to_string).collect();
        let whose = match pids.len() {
            1 => format!("a dead sonde run (pid {})", pids[0]),
            _ => format!("dead sonde runs (pids {})", pids.join(", ")),
        };
        write!(f, "{done} left by {whose}")
    }
}

/// Remove or restore, in `tracefs`, everything sonde runs whose pid no longer exists left behind
/// (see the module's list), and say what. Call it once at start, before anything is created: a
/// dead `sonde graph`'s tracer is put back before a new one is set up. Needs root (tracefs and
/// `/run/sonde` are root's): without it, the error says which file could not be read.
pub fn clean_dead_runs(tracefs: &Tracefs) -> Result<Cleaned> {
    clean(tracefs, &Records::system(), &sys::process_gone)
}

/// [`clean_dead_runs`] with the records kept in `records` and `gone` telling dead pids.
pub(crate) fn clean(
    tracefs: &Tracefs,
    records: &Records,
    gone: &dyn Fn(u32) -> bool,
) -> Result<Cleaned> {
    let mut cleaned = Cleaned::default();
    // The tracer off first, then the instances (they hold their events enabled, which keeps the
    // events busy), then the events.
    restore_settings(tracefs, records, gone, &mut cleaned);
    remove_instances(tracefs, gone, &mut cleaned)?;
    remove_probe_events(tracefs, gone, &mut cleaned)?;
    Ok(cleaned)
}

fn restore_settings(
    tracefs: &Tracefs,
    records: &Records,
    gone: &dyn Fn(u32) -> bool,
    cleaned: &mut Cleaned,
) {
    for (pid, path) in records.list() {
        if !gone(pid) {
            continue;
        }
        // A record naming files elsewhere was made with tracefs mounted elsewhere: left.
        let Some(saved) = run_record::read(&path, tracefs.root()) else { continue };
        run_record::restore(&saved);
        let _ = std::fs::remove_file(&path);
        if !saved.is_empty() {
            cleaned.tracer_settings += 1;
            cleaned.add_pid(pid);
        }
    }
}

fn remove_instances(
    tracefs: &Tracefs,
    gone: &dyn Fn(u32) -> bool,
    cleaned: &mut Cleaned,
) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(tracefs.root().join("instances")) else { return Ok(()) };
    for e in entries.flatten() {
        let Some(pid) = instance::owner(&e.file_name().to_string_lossy()) else { continue };
        if !gone(pid) {
            continue;
        }
        let dir = e.path();
        if instance::remove_dead(&dir).map_err(KernelError::io(dir.display().to_string()))? {
            cleaned.instances += 1;
            cleaned.add_pid(pid);
        }
    }
    Ok(())
}

fn remove_probe_events(
    tracefs: &Tracefs,
    gone: &dyn Fn(u32) -> bool,
    cleaned: &mut Cleaned,
) -> Result<()> {
    for kind in [Kind::Kprobe, Kind::Uprobe, Kind::Fprobe] {
        let events = tracefs.root().join(kind.events_file());
        let text = match std::fs::read_to_string(&events) {
            Ok(t) => t,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(io_error(&events, e)),
        };
        // dynamic_events lists kprobes and uprobes too: from there only fprobes are taken.
        let lines = text.lines().filter(|l| kind != Kind::Fprobe || l.starts_with('f'));
        for (name, pid) in lines.filter_map(probe_event::owner) {
            if !gone(pid) {
                continue;
            }
            match probe_event::remove_event(&events, name, Duration::ZERO) {
                Ok(()) => {
                    cleaned.probe_events += 1;
                    cleaned.add_pid(pid);
                }
                // In use: a tracer opened it, or a live process of that pid in another pid
                // namespace. Leave it.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(io_error(&events, e)),
            }
        }
    }
    Ok(())
}

fn io_error(path: &Path, source: std::io::Error) -> KernelError {
    KernelError::Io { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    /// A scratch directory, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("sonde-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const DEAD: u32 = 4_000_001;
    const DEAD_GRAPH: u32 = 4_000_002;

    fn dead(pid: u32) -> bool {
        pid >= 4_000_000
    }

    fn file(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    /// A tracefs as two dead runs and one live one left it: a `sonde probe` (events, an
    /// instance) and a `sonde graph` in the top-level tracer (its record, an instance).
    fn leftovers(root: &Path, records: &Path) {
        let live = std::process::id();
        file(
            &root.join("kprobe_events"),
            &format!(
                "p:sonde/sonde_{DEAD}_0 do_sys_open\np:sonde/sonde_{live}_0 vfs_read\n\
                 p:mine/keep vfs_read\np:sonde/other_{DEAD}_1 vfs_read\n"
            ),
        );
        file(&root.join("uprobe_events"), &format!("p:sonde/sonde_{DEAD}_3 /bin/sh:0x1234\n"));
        file(
            &root.join("dynamic_events"),
            &format!("p:sonde/sonde_{DEAD}_0 do_sys_open\nf:sonde/sonde_{DEAD}_4 vfs_read\n"),
        );
        for name in [
            format!("sonde-{DEAD}"),
            format!("sonde-{DEAD_GRAPH}-graph"),
            format!("sonde-{live}"),
            format!("sonde_graph_{DEAD}"),
            "mine".to_string(),
        ] {
            std::fs::create_dir_all(root.join("instances").join(name)).unwrap();
        }
        // The top-level tracer as the dead graph left it, and its record of what was there.
        for (f, now) in [
            ("tracing_on", "1"),
            ("current_tracer", "function_graph"),
            ("set_graph_function", "vfs_read"),
            ("max_graph_depth", "5"),
        ] {
            file(&root.join(f), &format!("{now}\n"));
        }
        let r = root.display();
        file(
            &records.join(format!("graph-{DEAD_GRAPH}")),
            &format!(
                "{r}/tracing_on\t1\n{r}/current_tracer\tnop\n\
                 {r}/set_graph_function\t#### all functions enabled ####\n\
                 {r}/max_graph_depth\t0\n"
            ),
        );
        // A record made with tracefs mounted elsewhere, or naming another file.
        file(
            &records.join(format!("graph-{DEAD}")),
            &format!("{}/elsewhere\tx\n", records.display()),
        );
        file(&records.join(format!("graph-{live}")), &format!("{r}/max_graph_depth\t7\n"));
        std::fs::set_permissions(records, std::fs::Permissions::from_mode(0o700)).unwrap();
    }

    #[test]
    fn dead_runs_are_cleaned_and_live_ones_and_strangers_left() {
        let scratch = Scratch::new("leftovers");
        let (root, records) = (scratch.0.join("tracing"), scratch.0.join("run"));
        leftovers(&root, &records);
        let cleaned = clean(&Tracefs::at(&root), &Records::at(&records), &dead).unwrap();
        let live = std::process::id();

        assert_eq!(
            cleaned,
            Cleaned {
                probe_events: 3,
                instances: 2,
                tracer_settings: 1,
                pids: vec![DEAD, DEAD_GRAPH]
            }
        );
        // Removal is a `-:` line appended to the file the event was defined in.
        let appended = |f: &str| -> Vec<String> {
            read(&root.join(f)).lines().filter(|l| l.starts_with("-:")).map(String::from).collect()
        };
        assert_eq!(appended("kprobe_events"), [format!("-:sonde/sonde_{DEAD}_0")]);
        assert_eq!(appended("uprobe_events"), [format!("-:sonde/sonde_{DEAD}_3")]);
        assert_eq!(appended("dynamic_events"), [format!("-:sonde/sonde_{DEAD}_4")]);
        let mut instances: Vec<String> = std::fs::read_dir(root.join("instances"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        instances.sort();
        assert_eq!(
            instances,
            ["mine".to_string(), format!("sonde-{live}"), format!("sonde_graph_{DEAD}")]
        );
        assert_eq!(read(&root.join("tracing_on")), "1\n");
        assert_eq!(read(&root.join("current_tracer")), "nop\n");
        assert_eq!(read(&root.join("set_graph_function")), "");
        assert_eq!(read(&root.join("max_graph_depth")), "0\n");
        assert!(!records.join(format!("graph-{DEAD_GRAPH}")).exists());
        assert!(records.join(format!("graph-{live}")).exists());
        assert!(!records.join("elsewhere").exists(), "a record wrote outside tracefs");
        assert!(records.join(format!("graph-{DEAD}")).exists());
        assert_eq!(
            cleaned.to_string(),
            format!(
                "removed 3 probe events and 2 tracefs instances, and restored the tracer \
                 settings left by dead sonde runs (pids {DEAD}, {DEAD_GRAPH})"
            )
        );

        // (A file stands in for kprobe_events here: the `-:` lines do not remove anything.)
        let again = clean(&Tracefs::at(&root), &Records::at(&records), &dead).unwrap();
        assert_eq!((again.instances, again.tracer_settings), (0, 0), "{again:?}");
    }

    #[test]
    fn records_anyone_could_write_are_ignored() {
        let scratch = Scratch::new("leftovers-open");
        let (root, records) = (scratch.0.join("tracing"), scratch.0.join("run"));
        leftovers(&root, &records);
        std::fs::set_permissions(&records, std::fs::Permissions::from_mode(0o777)).unwrap();
        let cleaned = clean(&Tracefs::at(&root), &Records::at(&records), &dead).unwrap();
        assert_eq!(cleaned.tracer_settings, 0);
        assert_eq!(read(&root.join("current_tracer")), "function_graph\n");
        assert!(records.join(format!("graph-{DEAD_GRAPH}")).exists());
    }

    #[test]
    fn a_tracefs_without_leftovers_is_left_as_it_is() {
        let scratch = Scratch::new("leftovers-none");
        let cleaned =
            clean(&Tracefs::at(&scratch.0), &Records::at(scratch.0.join("run")), &dead).unwrap();
        assert!(cleaned.is_empty());
        assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 0);
    }

    #[test]
    fn the_line_names_what_was_done_and_whose() {
        let one = Cleaned { probe_events: 1, pids: vec![9], ..Cleaned::default() };
        assert_eq!(one.to_string(), "removed 1 probe event left by a dead sonde run (pid 9)");
        let graph =
            Cleaned { instances: 1, tracer_settings: 1, pids: vec![7], ..Cleaned::default() };
        assert_eq!(
            graph.to_string(),
            "removed 1 tracefs instance, and restored the tracer settings left by a dead sonde run (pid 7)"
        );
        let top = Cleaned { tracer_settings: 2, pids: vec![1, 2], ..Cleaned::default() };
        assert_eq!(
            top.to_string(),
            "restored the tracer settings left by dead sonde runs (pids 1, 2)"
        );
    }
}
