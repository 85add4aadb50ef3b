//! Where a face's output goes (stdout, or `-o FILE`), behind whatever writer formats it. The
//! first write error is kept, so the run can stop on it: a closed pipe (`sonde ... | head -1`)
//! ends the run quietly, a full disk with one sentence, and nothing after it is written.

use std::cell::RefCell;
use std::io::{self, ErrorKind, Write};
use std::rc::Rc;

/// The first write error a [`Sink`] met, shared with the run that reads it.
#[derive(Clone, Default)]
pub struct Health(Rc<RefCell<Option<WriteFailure>>>);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteFailure {
    pub kind: ErrorKind,
    /// The error as the system said it ("No space left on device").
    pub message: String,
}

impl WriteFailure {
    /// The reader went away: the normal end of `sonde ... | head`.
    pub fn closed_pipe(&self) -> bool {
        self.kind == ErrorKind::BrokenPipe
    }
}

impl Health {
    pub fn failure(&self) -> Option<WriteFailure> {
        self.0.borrow().clone()
    }

    fn record(&self, e: &io::Error) {
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            let message = e.to_string();
            // "Broken pipe (os error 32)" → "Broken pipe": the sentence reads as the system's.
            let message = message.split(" (os error").next().unwrap_or(&message).to_string();
            *slot = Some(WriteFailure { kind: e.kind(), message });
        }
    }
}

pub struct Sink {
    inner: Box<dyn Write>,
    health: Health,
}

impl Sink {
    pub fn new(inner: Box<dyn Write>) -> (Sink, Health) {
        let health = Health::default();
        (Sink { inner, health: health.clone() }, health)
    }

    pub fn stdout() -> (Sink, Health) {
        Sink::new(Box::new(io::stdout()))
    }

    /// After the first error nothing more is written: the rest would be cut anyway.
    fn check<T>(&self, r: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &r {
            if e.kind() != ErrorKind::Interrupted {
                self.health.record(e);
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
}
