//! The record a run keeps of the tracefs files it changed outside an instance of its own (the
//! top-level tracer, `max_graph_depth`), so that the next run can put them back if this one is
//! SIGKILLed: `/run/sonde/graph-<pid>`, one `PATH<TAB>OLD VALUE` line per file, appended before
//! the file's first write. The directory is made mode 0700; records are trusted only in a
//! directory owned by this user and writable by no one else, and a record restores only files
//! under tracefs. Live runs remove their own record when they drop.

use crate::host::run_dir;
use std::fs::File;
use std::io::{ErrorKind, Write};
use std::path::{Component, Path, PathBuf};

const PREFIX: &str = "graph-";

/// A directory of run records.
#[derive(Clone, Debug)]
pub(crate) struct Records {
    dir: PathBuf,
}

impl Records {
    pub(crate) fn system() -> Records {
        Records::at(run_dir::RUN_DIR)
    }

    pub(crate) fn at(dir: impl Into<PathBuf>) -> Records {
        Records { dir: dir.into() }
    }

    /// Start this process's record (emptied if a dead run with the same pid left one). None if
    /// it cannot be made (not root): the run goes on, unrecorded.
    pub(crate) fn create(&self) -> Option<RunRecord> {
        let path = run_dir::private_dir(&self.dir)?.join(format!("{PREFIX}{}", std::process::id()));
        File::create(&path).ok()?;
        Some(RunRecord { path })
    }

    /// Every record as (pid, path); none from a directory someone else could have written.
    pub(crate) fn list(&self) -> Vec<(u32, PathBuf)> {
        if !run_dir::trusted(&self.dir) {
            return Vec::new();
        }
        let Ok(dir) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut records: Vec<(u32, PathBuf)> = dir
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let pid = name.strip_prefix(PREFIX)?;
                pid.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
                Some((pid.parse().ok()?, e.path()))
            })
            .collect();
        records.sort();
        records
    }
}

/// This run's record; the caller removes it once everything is restored.
#[derive(Debug)]
pub(crate) struct RunRecord {
    path: PathBuf,
}

impl RunRecord {
    /// Note `file`'s value before this run's first write to it.
    pub(crate) fn note(&self, file: &Path, old: &str) {
        let line = format!("{}\t{}\n", file.display(), old.trim().replace('\n', " "));
        let _ = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(line.as_bytes()));
    }

    pub(crate) fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The (file, old value) pairs of a record, in the order written; None if it names a file
/// outside `root` (tracefs): such a record is not one this tracefs can restore.
pub(crate) fn read(record: &Path, root: &Path) -> Option<Vec<(PathBuf, String)>> {
    let text = std::fs::read_to_string(record).ok()?;
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(file, old)| (PathBuf::from(file), old.to_string()))
        .map(|(file, old)| under(&file, root).then_some((file, old)))
        .collect()
}

fn under(file: &Path, root: &Path) -> bool {
    file.starts_with(root)
        && file != root
        && file.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)))
}

/// Put saved values back, last first. The tracer is stopped first (`tracing_on` 0, then
/// `current_tracer` nop, where saved): an emptied `set_graph_function` under function_graph
/// would trace every function in the kernel.
pub(crate) fn restore(saved: &[(PathBuf, String)]) {
    for (stop, value) in [("tracing_on", "0"), ("current_tracer", "nop")] {
        for (path, _) in saved.iter().filter(|(p, _)| p.file_name().is_some_and(|n| n == stop)) {
            let _ = write(path, value);
        }
    }
    for (path, old) in saved.iter().rev() {
        let _ = write(path, &restorable(old));
    }
}

/// A value as read, made writable again: list files say "no pid" or "#### all functions
/// enabled ####" when empty, and write back as an empty list; lists go back one line.
fn restorable(old: &str) -> String {
    let t = old.trim();
    if t.starts_with('#') || t == "no pid" {
        String::new()
    } else {
        t.replace('\n', " ")
    }
}

/// Write an existing file as `echo VALUE > FILE` would (never creating one).
fn write(path: &Path, value: &str) -> std::io::Result<()> {
    let v = if value.is_empty() { String::new() } else { format!("{value}\n") };
    match std::fs::OpenOptions::new().write(true).truncate(true).open(path) {
        Ok(mut f) => f.write_all(v.as_bytes()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_lists_restore_as_empty() {
        assert_eq!(restorable("#### all functions enabled ####\n"), "");
        assert_eq!(restorable("no pid\n"), "");
        assert_eq!(restorable("vfs_read\nvfs_write\n"), "vfs_read vfs_write");
        assert_eq!(restorable("0\n"), "0");
    }

    #[test]
    fn a_record_restores_only_files_under_tracefs() {
        let root = Path::new("/sys/kernel/tracing");
        assert!(under(&root.join("current_tracer"), root));
        assert!(under(&root.join("options/funcgraph-proc"), root));
        assert!(!under(root, root));
        assert!(!under(Path::new("/etc/passwd"), root));
        assert!(!under(&root.join("../../../etc/passwd"), root));
        assert!(!under(Path::new("sys/kernel/tracing/current_tracer"), root));
    }
}
