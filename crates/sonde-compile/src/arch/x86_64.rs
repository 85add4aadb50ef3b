//! x86-64: `struct pt_regs` offsets.

/// The function-call ABI's argument registers di, si, dx, cx, r8, r9.
pub const ARG_REGS: [usize; 6] = [112, 104, 96, 88, 72, 64];
/// ax, the return value.
pub const RET_REG: usize = 80;
/// The syscall ABI's argument registers: di, si, dx, r10, r8, r9.
pub const SYSCALL_ARG_REGS: [usize; 6] = [112, 104, 96, 56, 72, 64];
/// ip, the instruction pointer.
pub const IP_REG: usize = 128;
/// How far past the probed address a kprobe leaves ip: the int3 it replaced the first byte
/// with (or, for a kprobe on ftrace at the entry, the same by convention), one byte.
pub const KPROBE_IP_PAST: u64 = 1;
