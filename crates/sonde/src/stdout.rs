//! Whole texts to stdout (`--show`, `-l`, `--dump`, `-T`, `--version`): a reader that goes away
//! early (`| head`) ends the printing quietly, any other failure is one sentence and status 1,
//! never the panic `println!` gives when stdout fails.

use crate::error::Failure;
use std::io::{ErrorKind, Write};

pub fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(Failure::Setup(format!(
            "cannot write the output: {}",
            sonde_output::file::plain(&e)
        ))),
        _ => Ok(()),
    }
}

/// [`print`] with a newline after the text.
pub fn println(text: &str) -> Result<(), Failure> {
    print(&format!("{text}\n"))
}
