//! Once every program is attached, `sonde serve` keeps only the capabilities that serving and
//! a reload (which loads and attaches programs again) need, and gives up the rest for good:
//! - CAP_BPF and CAP_PERFMON: maps and programs, perf events, kprobes, tracepoints;
//! - CAP_SYS_ADMIN: a uprobe's perf_event_open(2) is refused without it (EACCES on 6.18, with
//!   CAP_BPF and CAP_PERFMON held), and it is what older kernels (before 5.8) ask instead of
//!   CAP_BPF and CAP_PERFMON;
//! - CAP_SYSLOG: kernel addresses in /proc/kallsyms, for `ksym` and `kstack`;
//! - CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH: other users' /proc/PID/maps and binaries, for
//!   `usym`, `ustack` and uprobes.
//!
//! What only the start needed goes: CAP_SYS_RESOURCE (the locked-memory limit, raised once),
//! and every other (CAP_NET_ADMIN, CAP_DAC_OVERRIDE, CAP_SETUID, CAP_KILL...). Threads started afterwards, the
//! HTTP server's among them, inherit the smaller set.

use sonde_kernel::sys::caps;

/// What a reload needs.
fn needed() -> Vec<u32> {
    vec![
        caps::CAP_BPF,
        caps::CAP_PERFMON,
        caps::CAP_SYS_ADMIN,
        caps::CAP_SYSLOG,
        caps::CAP_SYS_PTRACE,
        caps::CAP_DAC_READ_SEARCH,
    ]
}

/// Gives up every capability a reload does not need; a failure is said, and sonde serves on.
pub fn drop_unneeded() {
    if let Err(e) = caps::keep_only(&needed()) {
        eprintln!(
            "sonde: warning: cannot give up the capabilities serving does not need: {}",
            std::io::Error::from_raw_os_error(e)
        );
    }
}
