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

/// `struct pt_regs`'s registers by the names bpftrace's `reg()` takes (the kernel's field
/// names, and bpftrace's `pc` for ip), and their offsets: the layout is the kernel's ABI on
/// x86-64.
pub const REGISTERS: [(&str, usize); 22] = [
    ("r15", 0),
    ("r14", 8),
    ("r13", 16),
    ("r12", 24),
    ("bp", 32),
    ("bx", 40),
    ("r11", 48),
    ("r10", 56),
    ("r9", 64),
    ("r8", 72),
    ("ax", 80),
    ("cx", 88),
    ("dx", 96),
    ("si", 104),
    ("di", 112),
    ("orig_ax", 120),
    ("ip", 128),
    ("pc", 128),
    ("cs", 136),
    ("flags", 144),
    ("sp", 152),
    ("ss", 160),
];
