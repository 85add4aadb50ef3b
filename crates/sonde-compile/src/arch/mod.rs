//! Register layouts, by architecture: where a probe's arguments and return value sit in the
//! `struct pt_regs` a kprobe or uprobe program is handed (as ply keeps them in `arch/`). sonde
//! targets x86-64 today; aarch64's `user_pt_regs` would sit beside it.

pub mod x86_64;
