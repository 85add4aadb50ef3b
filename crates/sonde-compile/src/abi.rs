//! What the compiled programs and the runtime that loads them agree on: the maps every program
//! has, by index in `Compiled::maps`, and the layout of the records user space decodes. The
//! runtime (sonde's session, `sonde trace`'s hand-built programs) reads these; lowering writes
//! them.

/// Index of the ring buffer every event goes through.
pub const EVENTS_MAP: usize = 0;
/// Index of the per-CPU counter of events the ring buffer had no room for.
pub const LOST_MAP: usize = 1;
/// Index of the one-element array whose first u64 user space sets when tracing stops: every
/// program but BEGIN and END returns at once while it is set, so the probes are silent from that
/// moment (END has the last word, maps can be printed) however long the kernel takes to detach
/// them (tens of milliseconds per kprobe on kernels without kprobe_multi). The u64s after the
/// flag count the runs of each `interval:` probe (see `ProgramDef::run_slot`).
pub const CONTROL_MAP: usize = 2;
/// User maps start here: user map `i` is map `FIRST_USER_MAP + i`.
pub const FIRST_USER_MAP: usize = 3;

/// A `join()` record after its event id: `JOIN_ARGS` strings of `JOIN_ARG_SIZE` bytes each,
/// bpftrace's limits (its `join_argnum`/`join_argsize`).
pub const JOIN_ARGS: usize = 16;
pub const JOIN_ARG_SIZE: usize = 1024;
