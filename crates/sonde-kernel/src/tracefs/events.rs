//! Tracepoints in tracefs: the id perf_event_open takes, the format file, the list of events.

use super::Tracefs;
use crate::error::{KernelError, Result};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

impl Tracefs {
    /// The id perf_event_open takes as `config` for PERF_TYPE_TRACEPOINT.
    pub fn tracepoint_id(&self, category: &str, name: &str) -> Result<u64> {
        let path = self.event_file(category, name, "id")?;
        let text = self.read(&path, category, name)?;
        text.trim()
            .parse()
            .map_err(|_| KernelError::Parse { path: path.display().to_string(), text })
    }

    /// The raw text of the tracepoint's `format` file (field names, types, offsets).
    pub fn tracepoint_format(&self, category: &str, name: &str) -> Result<String> {
        let path = self.event_file(category, name, "format")?;
        self.read(&path, category, name)
    }

    /// Every (category, name) pair, from `available_events`, or by walking `events/` if that file
    /// cannot be read.
    pub fn list_tracepoints(&self) -> Result<Vec<(String, String)>> {
        let path = self.root.join("available_events");
        if let Ok(text) = std::fs::read_to_string(&path) {
            let mut list: Vec<(String, String)> = text
                .lines()
                .filter_map(|l| l.split_once(':'))
                .map(|(c, n)| (c.to_string(), n.to_string()))
                .collect();
            list.sort();
            return Ok(list);
        }
        self.walk_events()
    }

    fn walk_events(&self) -> Result<Vec<(String, String)>> {
        let events = self.root.join("events");
        let mut list = Vec::new();
        for cat in
            std::fs::read_dir(&events).map_err(KernelError::io(events.display().to_string()))?
        {
            let Ok(cat) = cat else { continue };
            let Ok(names) = std::fs::read_dir(cat.path()) else {
                continue;
            };
            for ev in names.flatten() {
                // Event directories have an `id`; the category's own enable/filter files do not.
                if ev.path().join("id").is_file() {
                    list.push((
                        cat.file_name().to_string_lossy().into_owned(),
                        ev.file_name().to_string_lossy().into_owned(),
                    ));
                }
            }
        }
        list.sort();
        Ok(list)
    }

    fn event_file(&self, category: &str, name: &str, file: &str) -> Result<PathBuf> {
        // Names come from user scripts: never let them climb out of events/.
        let ok = |s: &str| !s.is_empty() && s != "." && s != ".." && !s.contains('/');
        if !ok(category) || !ok(name) {
            return Err(unknown(category, name));
        }
        Ok(self.root.join("events").join(category).join(name).join(file))
    }

    fn read(&self, path: &Path, category: &str, name: &str) -> Result<String> {
        std::fs::read_to_string(path).map_err(|e| match e.kind() {
            ErrorKind::NotFound => unknown(category, name),
            _ => KernelError::Io { path: path.display().to_string(), source: e },
        })
    }
}

fn unknown(category: &str, name: &str) -> KernelError {
    KernelError::UnknownTracepoint { category: category.to_string(), name: name.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_escape_the_events_directory() {
        let t = Tracefs::at("/nonexistent");
        assert!(matches!(t.tracepoint_id("..", "x"), Err(KernelError::UnknownTracepoint { .. })));
        assert!(matches!(
            t.tracepoint_format("a/b", "c"),
            Err(KernelError::UnknownTracepoint { .. })
        ));
    }

    #[test]
    fn a_missing_event_is_unknown_not_an_io_error() {
        let t = Tracefs::at("/nonexistent");
        assert!(matches!(
            t.tracepoint_id("syscalls", "nope"),
            Err(KernelError::UnknownTracepoint { .. })
        ));
    }
}
