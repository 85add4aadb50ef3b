//! What a served program prints (printf, print...) and the user-space actions it asks for
//! (clear): its ring buffer read into the language face's `Output`, to stdout.

use super::program::Loaded;
use crate::error::Failure;
use crate::output::{Action, Output};
use sonde_compile::provider::AttachPoint;
use sonde_compile::tir::{EventDef, EventKind};
use sonde_compile::Compiled;
use sonde_kernel::object::ringbuf::RingBuf;
use sonde_symbols::Symbolizer;

/// One program's ring buffer and the writer its records go to.
pub struct Events<'a> {
    file: &'a str,
    compiled: &'a Compiled,
    ring: RingBuf,
    output: Output<'a>,
    exit_said: bool,
    /// `clear()`s done so far, per user map (an LRU map's evictions are counted from each).
    pub clears: Vec<u64>,
}

impl<'a> Events<'a> {
    pub fn new(p: &'a Loaded) -> Result<Events<'a>, Failure> {
        let c = &p.prepared.compiled;
        let ring = p.kernel.ring()?;
        let text = &p.prepared.source.text;
        let format = crate::cli::Format::Text;
        let output = Output::new(format, None, text, c, &p.kernel.maps, Symbolizer::new(None))
            .source_name(&p.prepared.file);
        let clears = vec![0; c.user_maps.len()];
        Ok(Events { file: &p.prepared.file, compiled: c, ring, output, exit_said: false, clears })
    }

    pub fn for_all(served: &'a [Loaded]) -> Result<Vec<Events<'a>>, Failure> {
        served.iter().map(Events::new).collect()
    }

    pub fn drain(&mut self) -> Result<(), Failure> {
        let (output, exit_said, file) = (&mut self.output, &mut self.exit_said, self.file);
        let (clears, events) = (&mut self.clears, &self.compiled.events);
        self.ring
            .drain(|rec| {
                if let Some(map) = cleared(events, rec) {
                    clears[map] += 1;
                }
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

/// The user map a record asks to clear, if it does: its event id is its first 8 bytes.
fn cleared(events: &[EventDef], rec: &[u8]) -> Option<usize> {
    let id = u64::from_le_bytes(rec.get(..8)?.try_into().ok()?);
    match events.get(usize::try_from(id).ok()?)?.kind {
        // zero() keeps every element: nothing leaves the map.
        EventKind::ClearMap { map, keep_keys: false } => Some(map),
        _ => None,
    }
}

/// Runs `p`'s BEGIN or END probes and reads what they print.
pub fn run_special(p: &Loaded, point: &AttachPoint) -> Result<(), Failure> {
    let c = &p.prepared.compiled;
    let mut events = Events::new(p)?;
    p.kernel.run_special(c, point)?;
    events.drain()
}
