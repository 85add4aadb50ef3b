//! Step 1 of every run: what must hold before the kernel is touched.

use crate::error::Failure;
use crate::signals;

/// What a face reaches in the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// BPF programs and maps (the language, `sonde trace`, `sonde serve`).
    Bpf,
    /// tracefs' event and tracer files (`sonde probe`, `sonde graph`).
    Tracefs,
}

/// What a user without the privileges hears, before any kernel interface refuses them.
pub const NEEDS_ROOT: &str = "needs root (or the capabilities CAP_BPF and CAP_PERFMON, with read access to tracefs): \
sonde loads BPF programs into the kernel and attaches them to kernel events, which only a privileged user may do";

/// The same for the faces that write tracefs' files.
pub const NEEDS_ROOT_TRACEFS: &str = "needs root (or the capability CAP_SYS_ADMIN, with write access to tracefs): \
sonde creates kernel trace events and sets the kernel's tracers through tracefs, which only a privileged user may do";

/// Catches signals, checks privileges (one sentence) and raises the open-file limit.
pub fn prepare(needs: Needs) -> Result<(), Failure> {
    signals::install();
    check_privileges(needs)?;
    sonde_kernel::sys::nofile::raise();
    Ok(())
}

pub fn check_privileges(needs: Needs) -> Result<(), Failure> {
    let allowed = match needs {
        Needs::Bpf => sonde_kernel::sys::has_bpf_capabilities(),
        Needs::Tracefs => sonde_kernel::sys::has_sys_admin(),
    };
    match (allowed, needs) {
        (true, _) => Ok(()),
        (false, Needs::Bpf) => Err(Failure::Setup(NEEDS_ROOT.into())),
        (false, Needs::Tracefs) => Err(Failure::Setup(NEEDS_ROOT_TRACEFS.into())),
    }
}

/// Probe events, tracefs instances and tracer settings that SIGKILLed sonde runs (of any face)
/// left behind (sonde-kernel's `tracefs::leftovers`), removed at every start of sonde that may
/// remove them, and said in one line. Only tracefs holds such things: BPF objects die with their
/// last descriptor. A failure leaves them for a run that can; this run's own set-up reports what
/// it cannot do.
pub fn clean_dead_runs() {
    if !sonde_kernel::sys::has_sys_admin() {
        return;
    }
    let Some(tracefs) = sonde_kernel::tracefs::Tracefs::find() else { return };
    if let Ok(cleaned) = sonde_kernel::tracefs::leftovers::clean_dead_runs(&tracefs) {
        if !cleaned.is_empty() {
            eprintln!("sonde: {cleaned}");
        }
    }
}
