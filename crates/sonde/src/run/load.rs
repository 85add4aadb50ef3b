//! Compiled maps and programs -> kernel objects, through `sonde-load` (shared with the golden
//! verifier lane); a refusal becomes a report that names the probe and the source line. A stop
//! signal ends the loading at once, even inside the kernel's verifier.

use crate::error::Failure;
use sonde_compile::Compiled;
use sonde_kernel::object::map::Map;
use sonde_kernel::object::prog::Program;
use sonde_kernel::KernelError;
use sonde_load::Ready;
use sonde_syntax::diag::SourceFile;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by `-d`: programs are loaded asking the verifier for its statistics, which
/// [`verifier_report`] prints.
pub static VERIFIER_STATS: AtomicBool = AtomicBool::new(false);

pub fn create_maps(c: &Compiled) -> Result<Vec<Map>, Failure> {
    sonde_load::create_maps(c).map_err(Failure::kernel)
}

/// Every program, the largest on a thread of its own (see [`load_two_ways`]); the first
/// refusal, in the program's order, is the one reported.
pub fn load_programs(
    c: &Compiled,
    maps: &[Map],
    source: &SourceFile,
) -> Result<Vec<Program>, Failure> {
    let ready: Vec<Ready> = c.programs.iter().map(|p| sonde_load::ready(p, maps)).collect();
    load_two_ways(&ready)
        .into_iter()
        .zip(&c.programs)
        .map(|(r, p)| r.map_err(|e| crate::error::verifier_failure(e, p, source)))
        .collect()
}

/// From this many instructions on, the largest program is verified beside the others: the
/// kernel verifies each load on the CPU that asked, and `sonde trace`'s entry program takes as
/// long as all its others together (a few ms each).
const BESIDE_FROM: usize = 256;

/// Loads the programs, the largest on a second thread where it is large enough (else, or with no
/// thread to be had, one after another here).
fn load_two_ways(ready: &[Ready]) -> Vec<Result<Program, KernelError>> {
    let stop = Some(crate::signals::stopping as fn() -> bool);
    let stats = VERIFIER_STATS.load(Ordering::Relaxed);
    let largest = (0..ready.len()).max_by_key(|&i| ready[i].len());
    let beside = largest.filter(|&i| ready.len() > 1 && ready[i].len() >= BESIDE_FROM);
    std::thread::scope(|s| {
        let thread = beside.and_then(|i| {
            std::thread::Builder::new().spawn_scoped(s, move || ready[i].load(stop, stats)).ok()
        });
        let away = beside.filter(|_| thread.is_some());
        let mut out: Vec<Option<Result<Program, KernelError>>> = ready
            .iter()
            .enumerate()
            .map(|(i, r)| (Some(i) != away).then(|| r.load(stop, stats)))
            .collect();
        if let (Some(i), Some(t)) = (away, thread) {
            out[i] = Some(t.join().unwrap_or_else(|_| ready[i].load(stop, stats)));
        }
        out.into_iter().flatten().collect()
    })
}

/// One line a program: its size and what the verifier spent on it (when it was asked).
pub fn verifier_report(c: &Compiled, programs: &[Program]) -> Vec<String> {
    let line = |(def, prog): (&sonde_compile::ProgramDef, &Program)| {
        let s = prog.stats()?;
        let time = s.time_us.map_or(String::new(), |us| format!(" in {us} us"));
        Some(format!(
            "{}: {} instructions, verified{time} ({} processed, {} states, {} stack bytes)",
            def.name,
            def.insns.len(),
            s.processed,
            s.states,
            s.stack
        ))
    };
    c.programs.iter().zip(programs).filter_map(line).collect()
}
