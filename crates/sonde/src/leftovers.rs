//! What dead sonde runs left in tracefs (probe events, instances, the tracer's settings), cleaned
//! by sonde-kernel's `tracefs::leftovers`, and one line on stderr saying what was done.

use sonde_kernel::tracefs::leftovers::clean_dead_runs;
use sonde_kernel::tracefs::Tracefs;

/// Clean up after dead runs in `tracefs`. A failure (tracefs not writable: not root) leaves the
/// leftovers for a run that can; this run's own set-up reports what it cannot do.
pub fn clean(tracefs: &Tracefs) {
    if let Ok(cleaned) = clean_dead_runs(tracefs) {
        if !cleaned.is_empty() {
            eprintln!("sonde: {cleaned}");
        }
    }
}
