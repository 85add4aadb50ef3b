//! A run's lifecycle, the same for every face (ply's `ply_load`, `ply_start`, `ply_loop`,
//! `ply_stop`, `ply_unload`):
//!
//! 1. [`prepare`]: signals caught, privileges checked (one sentence), limits raised, what dead
//!    sonde runs left in the kernel removed;
//! 2. [`Target::new`]: the `-p` processes checked, the command started and held before its exec;
//! 3. load and attach ([`bpf`] for the BPF faces; tracefs faces write their events);
//! 4. [`Target::release`], then [`poll::until_stopped`]: events read and written until a signal,
//!    the target's end, the program's `exit()`, a limit, lost events or a failed output;
//! 5. stop: the probes silenced, what the kernel already holds drained and written;
//! 6. finish: everything detached (in the background while the last output is written), losses
//!    and misses reported, and the exit status from [`status::exit_status`].
//!
//! Every guarantee lives here once, so every face has it.

pub mod attach;
pub mod bpf;
pub mod limits;
pub mod load;
pub mod poll;
pub mod prepare;
pub mod status;
pub mod target;

pub use poll::{Events, Reason};
pub use prepare::{prepare, Needs};
pub use target::Target;

/// Step 6's last words, the same in every face: the command ended (or reaped), a failed output
/// taking precedence over what stopped the loop, the ending said in one line if it needs one,
/// and the exit status.
pub fn conclude(
    reason: Reason,
    target: &mut Target,
    output: &sonde_output::sink::Health,
    lost: u64,
    keep_going: bool,
) -> i32 {
    target.finish();
    let reason = output.failure().map(Reason::Output).unwrap_or(reason);
    poll::report(&reason, target);
    let command = target.command_status();
    status::exit_status(&status::Outcome { reason, lost, keep_going, command })
}
