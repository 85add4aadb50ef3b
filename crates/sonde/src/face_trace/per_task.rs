//! strace's `-ff -o PREFIX`: each task's lines in a file of its own, `PREFIX.TID`, created (or
//! emptied) at its first line. A task that ended has its file closed; a write that fails is
//! the run's output failure, as the single output's would be.

use sonde_output::file::FileError;
use sonde_output::sink::Health;
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

pub struct PerTask {
    prefix: String,
    open: HashMap<u32, BufWriter<File>>,
    /// Tasks whose file was created in this run (written again in append mode).
    created: HashSet<u32>,
    health: Health,
}

impl PerTask {
    pub fn new(prefix: String, health: Health) -> PerTask {
        PerTask { prefix, open: HashMap::new(), created: HashSet::new(), health }
    }

    fn path(&self, tid: u32) -> PathBuf {
        PathBuf::from(format!("{}.{tid}", self.prefix))
    }

    /// `line` (and its newline) at the end of `tid`'s file.
    pub fn write(&mut self, tid: u32, line: &str) {
        if self.health.failure().is_some() {
            return;
        }
        let path = self.path(tid);
        let written = match self.open.get_mut(&tid) {
            Some(f) => writeln!(f, "{line}"),
            None => {
                let first = self.created.insert(tid);
                let file = OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(first)
                    .append(!first)
                    .open(&path);
                file.and_then(|f| {
                    let mut f = BufWriter::new(f);
                    let r = writeln!(f, "{line}");
                    self.open.insert(tid, f);
                    r
                })
            }
        };
        if let Err(error) = written {
            self.health.record_file(&FileError { path, error });
        }
    }

    /// `tid` ended: its file is flushed and closed.
    pub fn close(&mut self, tid: u32) {
        if let Some(mut f) = self.open.remove(&tid) {
            if let Err(error) = f.flush() {
                self.health.record_file(&FileError { path: self.path(tid), error });
            }
        }
    }

    /// Every file's lines written so far.
    pub fn flush(&mut self) {
        let tids: Vec<u32> = self.open.keys().copied().collect();
        for tid in tids {
            if let Some(Err(error)) = self.open.get_mut(&tid).map(|f| f.flush()) {
                self.health.record_file(&FileError { path: self.path(tid), error });
            }
        }
    }
}
