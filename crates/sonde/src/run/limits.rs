//! Descriptors a run needs, checked against the open-file limit before anything is loaded, so a
//! program with tens of thousands of probes hears "raise the limit" instead of failing halfway
//! with "Too many open files" on some unrelated file.

use crate::error::Failure;
use sonde_compile::provider::AttachPoint;
use sonde_compile::Compiled;

/// Files sonde itself keeps open beside the program's objects (stdio, tracefs, BTF, kallsyms).
const OWN_FILES: u64 = 32;

/// The fewest descriptors `c` can run with: one per map and program, one per probe that is its
/// own perf event or link (kprobes are left out: a glob of them may share one link).
pub fn needed(c: &Compiled) -> u64 {
    let sites = c
        .programs
        .iter()
        .flat_map(|p| &p.sites)
        .filter(|s| {
            !matches!(
                s.point,
                AttachPoint::Begin
                    | AttachPoint::End
                    | AttachPoint::Signal { .. }
                    | AttachPoint::Bench { .. }
                    | AttachPoint::Kprobe { .. }
            )
        })
        .count();
    (c.maps.len() + c.programs.len() + sites) as u64 + OWN_FILES
}

/// Raise the soft open-file limit to the hard one; fail if `c` still cannot fit.
pub fn check(c: &Compiled) -> Result<(), Failure> {
    let limit = sonde_kernel::sys::nofile::raise();
    let need = needed(c);
    if need <= limit {
        return Ok(());
    }
    Err(Failure::Setup(format!(
        "this program needs at least {} open files ({} maps, {} programs and their probes) but the \
         open-file limit is {}: raise it (`ulimit -n {}` as root) or trace fewer probes; nothing was loaded",
        need,
        c.maps.len(),
        c.programs.len(),
        limit,
        need
    )))
}
