//! Ctrl-C, SIGTERM and SIGHUP end tracing cleanly: the handler only sets a flag the main loop reads.
//!
//! Before sonde has put anything into the kernel (parsing, checking, looking up names, compiling)
//! there is nothing to clean up and no loop reading the flag, so a signal ends sonde at once: a
//! long compile never makes Ctrl-C wait. `arm` switches to the clean stop just before the first
//! kernel object is made.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static STOP: AtomicI32 = AtomicI32::new(0);
static ARMED: AtomicBool = AtomicBool::new(false);
static RELOAD: AtomicBool = AtomicBool::new(false);

/// Exit status of a run interrupted before it traced anything.
const INTERRUPTED: i32 = 1;

/// What such a run says (also `Failure::Interrupted`, a stop while loading or attaching).
pub const INTERRUPTED_MESSAGE: &str = "interrupted; nothing was attached";

extern "C" fn on_signal(sig: libc::c_int) {
    if !ARMED.load(Ordering::SeqCst) {
        const MSG: &[u8] = b"sonde: interrupted; nothing was attached\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe; MSG is a static buffer. A held
        // `-c` command is killed by the kernel when sonde dies (its parent-death signal).
        unsafe {
            libc::write(2, MSG.as_ptr().cast(), MSG.len());
            libc::_exit(INTERRUPTED);
        }
    }
    STOP.store(sig, Ordering::SeqCst);
}

/// Catch the stop signals; until `arm`, one ends sonde at once.
pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only stores to an atomic or exits.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
    // Writing to a closed pipe (`sonde ... | head`) must end output, not kill sonde mid-cleanup.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

/// From now on a signal asks for a clean stop (END, maps, detach) instead of ending sonde: called
/// before the first map, program or probe event is created.
pub fn arm() {
    ARMED.store(true, Ordering::SeqCst);
}

static PRINT: AtomicBool = AtomicBool::new(false);

extern "C" fn on_print(_: libc::c_int) {
    PRINT.store(true, Ordering::SeqCst);
}

/// The language face: SIGUSR1 asks for the maps to be printed, as bpftrace's does (from `arm` on;
/// before it, the signal's default ends sonde like any other).
pub fn usr1_prints() {
    flag_on(libc::SIGUSR1, on_print);
}

/// Catch `sig` with `handler`, which only stores to an atomic.
fn flag_on(sig: libc::c_int, handler: extern "C" fn(libc::c_int)) {
    // SAFETY: installing a handler that only stores to an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
}

/// Whether a SIGUSR1 came since the last call (see `usr1_prints`).
pub fn print_requested() -> bool {
    PRINT.swap(false, Ordering::SeqCst)
}

extern "C" fn on_hangup(_: libc::c_int) {
    RELOAD.store(true, Ordering::SeqCst);
}

/// `sonde serve`: SIGHUP asks for a reload of the programs instead of a stop (after `install`).
pub fn hangup_reloads() {
    flag_on(libc::SIGHUP, on_hangup);
}

/// Whether a SIGHUP came since the last call (see `hangup_reloads`).
pub fn reload_requested() -> bool {
    RELOAD.swap(false, Ordering::SeqCst)
}

/// Whether a stop was asked (for the kernel's loader: a plain function).
pub fn stopping() -> bool {
    stop_requested().is_some()
}

/// The signal that asked us to stop, if any.
pub fn stop_requested() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}
