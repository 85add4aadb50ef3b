//! Files written whole or not at all (flame graphs, folded stacks, `sonde probe -o` scripts):
//! written to a temporary name beside the destination and renamed over it once complete, so a
//! full disk or a failed write leaves the old file (or none), never a cut one. A destination that
//! is no regular file (`/dev/stdout`, a FIFO) cannot be replaced and is written directly.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that could not be written; its `Display` is the sentence: `cannot write PATH: WHY`.
#[derive(Debug)]
pub struct FileError {
    pub path: PathBuf,
    pub error: io::Error,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.path.display(), plain(&self.error))
    }
}

impl std::error::Error for FileError {}

/// The system's words for `e`, without Rust's " (os error N)".
pub fn plain(e: &io::Error) -> String {
    let text = e.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}

/// Writes `path` with `write`, whole or not at all: through a temporary file in the same
/// directory, flushed, synced and renamed over `path`. On any failure the temporary is removed
/// and `path` is as it was.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let failed = |error| FileError { path: path.to_path_buf(), error };
    if let Some(special) = not_regular(path) {
        let mut out = BufWriter::new(special);
        return write(&mut out).and_then(|_| out.flush()).map_err(failed);
    }
    let target = final_target(path);
    let (temp, file) = create_temp(&target).map_err(failed)?;
    let done = fill(file, &target, write).and_then(|_| std::fs::rename(&temp, &target));
    if let Err(e) = done {
        let _ = std::fs::remove_file(&temp);
        return Err(failed(e));
    }
    Ok(())
}

/// Says now, before the run, whether `path` could be written: a temporary file is made beside
/// it and removed (the destination itself is not touched).
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    let failed = |error| FileError { path: path.to_path_buf(), error };
    if not_regular(path).is_some() {
        return Ok(());
    }
    let (temp, _) = create_temp(&final_target(path)).map_err(failed)?;
    let _ = std::fs::remove_file(temp);
    Ok(())
}

/// `path` opened for writing if it exists and is not a regular file (a device, a FIFO).
fn not_regular(path: &Path) -> Option<File> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() || meta.is_dir() {
        return None;
    }
    OpenOptions::new().write(true).open(path).ok()
}

/// The file a symbolic link names, so the link stays and its file is replaced.
fn final_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// A new file beside `target`, named after it and this process.
fn create_temp(target: &Path) -> io::Result<(PathBuf, File)> {
    let name = target.file_name().ok_or_else(|| io::Error::from(io::ErrorKind::IsADirectory))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".sonde-{}.tmp", std::process::id()));
    let temp = dir.join(temp_name);
    let file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
    Ok((temp, file))
}

/// Writes the whole content into `file`, keeps `target`'s permissions if it exists, and syncs.
fn fill(
    file: File,
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = BufWriter::new(file);
    write(&mut out)?;
    let file = out.into_inner().map_err(|e| e.into_error())?;
    if let Ok(meta) = std::fs::metadata(target) {
        file.set_permissions(meta.permissions())?;
    }
    // Errors a filesystem reports only when the data reaches it come here, not after rename.
    file.sync_all()
}

#[cfg(test)]
mod tests;
