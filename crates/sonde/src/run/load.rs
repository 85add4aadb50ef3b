//! Compiled maps and programs -> kernel objects, through `sonde-load` (shared with the golden
//! verifier lane); a refusal becomes a report that names the probe and the source line. A stop
//! signal ends the loading at once, even inside the kernel's verifier.

use crate::error::Failure;
use sonde_compile::Compiled;
use sonde_kernel::object::map::Map;
use sonde_kernel::object::prog::Program;
use sonde_syntax::diag::SourceFile;

pub fn create_maps(c: &Compiled) -> Result<Vec<Map>, Failure> {
    sonde_load::create_maps(c).map_err(Failure::kernel)
}

pub fn load_programs(
    c: &Compiled,
    maps: &[Map],
    source: &SourceFile,
) -> Result<Vec<Program>, Failure> {
    c.programs
        .iter()
        .map(|p| {
            sonde_load::load_program_unless(p, maps, Some(crate::signals::stopping))
                .map_err(|e| crate::error::verifier_failure(e, p, source))
        })
        .collect()
}
