//! x86-64: `struct pt_regs` offsets.

/// The function-call ABI's argument registers di, si, dx, cx, r8, r9.
pub const ARG_REGS: [usize; 6] = [112, 104, 96, 88, 72, 64];
/// ax, the return value.
pub const RET_REG: usize = 80;
/// The syscall ABI's argument registers: di, si, dx, r10, r8, r9.
pub const SYSCALL_ARG_REGS: [usize; 6] = [112, 104, 96, 56, 72, 64];
