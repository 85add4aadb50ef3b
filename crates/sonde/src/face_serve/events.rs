//! What a served program prints (printf, print...) and the user-space actions it asks for
//! (clear): its ring buffer read into the language face's `Output`, to stdout.

use super::program::Loaded;
use crate::error::Failure;
use crate::output::{Action, Output};
use sonde_compile::provider::AttachPoint;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_symbols::Symbolizer;

/// One program's ring buffer and the writer its records go to.
pub struct Events<'a> {
    file: &'a str,
    ring: RingBuf,
    output: Output<'a>,
    exit_said: bool,
}

impl<'a> Events<'a> {
    pub fn new(p: &'a Loaded) -> Result<Events<'a>, Failure> {
        let c = &p.prepared.compiled;
        let ring = p.kernel.ring()?;
        let text = &p.prepared.source.text;
        let format = crate::cli::Format::Text;
        let output = Output::new(format, None, text, c, &p.kernel.maps, Symbolizer::new(None))
            .source_name(&p.prepared.file);
        Ok(Events { file: &p.prepared.file, ring, output, exit_said: false })
    }

    pub fn for_all(served: &'a [Loaded]) -> Result<Vec<Events<'a>>, Failure> {
        served.iter().map(Events::new).collect()
    }

    pub fn drain(&mut self) -> Result<(), Failure> {
        let (output, exit_said, file) = (&mut self.output, &mut self.exit_said, self.file);
        self.ring
            .drain(|rec| {
                if let Action::Exit(_) = output.record(rec) {
                    if !std::mem::replace(exit_said, true) {
                        eprintln!(
                            "sonde: {file}: exit() is ignored: `sonde serve` runs until it is stopped"
                        );
                    }
                }
            })
            .map_err(Failure::kernel)?;
        self.output.flush();
        Ok(())
    }
}

/// Runs `p`'s BEGIN or END probes and reads what they print.
pub fn run_special(p: &Loaded, point: &AttachPoint) -> Result<(), Failure> {
    let c = &p.prepared.compiled;
    let mut events = Events::new(p)?;
    p.kernel.run_special(c, point)?;
    events.drain()
}
