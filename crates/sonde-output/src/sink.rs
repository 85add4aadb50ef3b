//! Where a face's output goes (stdout, or `-o FILE`), behind whatever writer formats it. The
//! first write error is kept, so the run can stop on it: a closed pipe (`sonde ... | head -1`)
//! ends the run quietly, a full disk with one sentence, and nothing after it is written. A pipe
//! whose reader went away is noticed while nothing is written too ([`Health::reader_gone`]).

use crate::file::{plain, FileError};
use std::cell::RefCell;
use std::io::{self, ErrorKind, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The first write error a [`Sink`] met, shared with the run that reads it.
#[derive(Clone, Default)]
pub struct Health {
    failure: Rc<RefCell<Option<WriteFailure>>>,
    /// Stdout, when it is a pipe or a socket whose reader can go away.
    pipe: Option<RawFd>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteFailure {
    pub kind: ErrorKind,
    /// The error as the system said it ("No space left on device").
    pub message: String,
    /// The file that could not be written; None for stdout.
    pub file: Option<String>,
}

impl WriteFailure {
    /// The reader went away: the normal end of `sonde ... | head -1`.
    pub fn closed_pipe(&self) -> bool {
        self.kind == ErrorKind::BrokenPipe && self.file.is_none()
    }

    /// The sentence said for it: `cannot write FILE: WHY` (`the output` for stdout).
    pub fn sentence(&self) -> String {
        let what = self.file.as_deref().unwrap_or("the output");
        format!("cannot write {what}: {}", self.message)
    }
}

impl Health {
    pub fn failure(&self) -> Option<WriteFailure> {
        self.failure.borrow().clone()
    }

    fn record(&self, e: &io::Error, file: Option<&Path>) {
        let mut slot = self.failure.borrow_mut();
        if slot.is_none() {
            let file = file.map(|p| p.display().to_string());
            *slot = Some(WriteFailure { kind: e.kind(), message: plain(e), file });
        }
    }

    /// A file written beside the stream (a flame graph) could not be written: the run's
    /// output failed, as if the stream had.
    pub fn record_file(&self, e: &FileError) {
        self.record(&e.error, Some(&e.path));
    }

    /// Has the reader of the stdout pipe gone away, though nothing was written since? Kept as
    /// a closed pipe if so, so the run ends without waiting for its next line.
    pub fn reader_gone(&self) -> bool {
        let Some(fd) = self.pipe else { return false };
        let mut p = libc::pollfd { fd, events: 0, revents: 0 };
        // SAFETY: one valid pollfd, no wait.
        let n = unsafe { libc::poll(&mut p, 1, 0) };
        if n == 1 && p.revents & libc::POLLERR != 0 {
            self.record(&io::Error::from(ErrorKind::BrokenPipe), None);
            return true;
        }
        false
    }
}

pub struct Sink {
    inner: Box<dyn Write>,
    health: Health,
    /// The file written, for the sentence of a failure; None for stdout.
    file: Option<PathBuf>,
}

impl Sink {
    pub fn new(inner: Box<dyn Write>) -> (Sink, Health) {
        let health = Health::default();
        (Sink { inner, health: health.clone(), file: None }, health)
    }

    /// Stdout; a pipe's reader is watched ([`Health::reader_gone`]).
    pub fn stdout() -> (Sink, Health) {
        let fd = io::stdout().as_raw_fd();
        let health = Health { pipe: is_pipe(fd).then_some(fd), ..Health::default() };
        (Sink { inner: Box::new(io::stdout()), health: health.clone(), file: None }, health)
    }

    /// `-o FILE`: created (or emptied) now, its name in the sentence of a failure.
    pub fn file(path: &Path) -> io::Result<(Sink, Health)> {
        let file = std::fs::File::create(path)?;
        let (mut sink, health) = Sink::new(Box::new(file));
        sink.file = Some(path.to_path_buf());
        Ok((sink, health))
    }

    /// After the first error nothing more is written: the rest would be cut anyway.
    fn check<T>(&self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            if e.kind() != ErrorKind::Interrupted {
                self.health.record(e, self.file.as_deref());
            }
        }
        r
    }

    fn failed(&self) -> Option<io::Error> {
        self.health.failure().map(|f| io::Error::new(f.kind, f.message))
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = self.failed() {
            return Err(e);
        }
        let r = self.inner.write(buf);
        self.check(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(e) = self.failed() {
            return Err(e);
        }
        let r = self.inner.flush();
        self.check(r)
    }
}

/// A pipe or a socket: a reader that can go away.
fn is_pipe(fd: RawFd) -> bool {
    // SAFETY: fstat fills the zeroed struct or fails.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return false;
    }
    matches!(st.st_mode & libc::S_IFMT, libc::S_IFIFO | libc::S_IFSOCK)
}

#[cfg(test)]
mod tests {
    use super::Sink;
    use std::io::{ErrorKind, Write};

    #[test]
    fn the_first_error_is_kept_and_nothing_is_written_after_it() {
        let (mut full, health) =
            Sink::new(Box::new(std::fs::File::options().write(true).open("/dev/full").unwrap()));
        assert!(health.failure().is_none());
        assert!(writeln!(full, "x").and_then(|_| full.flush()).is_err());
        let f = health.failure().unwrap();
        assert_eq!(f.message, "No space left on device");
        assert!(!f.closed_pipe());
        assert!(full.write(b"more").is_err());
    }

    #[test]
    fn a_closed_pipe_is_told_apart() {
        let (r, w) = std::io::pipe().unwrap();
        drop(r);
        // Rust's runtime ignores SIGPIPE, as sonde's signal set-up does: the write says EPIPE.
        let (mut sink, health) = Sink::new(Box::new(w));
        assert!(sink.write_all(b"x").is_err());
        assert_eq!(health.failure().unwrap().kind, ErrorKind::BrokenPipe);
        assert!(health.failure().unwrap().closed_pipe());
    }

    #[test]
    fn a_file_is_named_in_the_sentence() {
        let (mut sink, health) = Sink::file(std::path::Path::new("/dev/full")).unwrap();
        assert!(sink.write_all(b"x").is_err());
        let f = health.failure().unwrap();
        assert_eq!(f.sentence(), "cannot write /dev/full: No space left on device");
        assert!(!f.closed_pipe());
    }
}
