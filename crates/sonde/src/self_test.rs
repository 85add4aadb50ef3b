//! `sonde -T` (ply's `--self-test`): what this kernel offers sonde, each fact read or tried for
//! real, every provider attached (and detached) through the same path scripts take, and for
//! whatever is missing, why and what to do. Exit 0 when everything sonde needs to run works; the
//! optional features (kprobes, fentry, uprobes, ...) are reported but do not fail it.

mod facts;
mod providers;
mod report;

use crate::cli::Format;
use crate::error::Failure;
use report::Report;

pub fn run(format: Format) -> Result<i32, Failure> {
    let config = sonde_kernel::features::kconfig::KernelConfig::running();
    let mut report = Report::new(sonde_kernel::sys::version::kernel_release(), config.as_ref());
    facts::check(&mut report, config.as_ref());
    providers::check(&mut report);
    match format {
        Format::Json => crate::stdout::println(&report.json())?,
        _ => crate::stdout::print(&report.text())?,
    }
    Ok(if report.needed_ok() { 0 } else { 1 })
}
