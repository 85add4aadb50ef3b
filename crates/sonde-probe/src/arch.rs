//! x86-64's registers as kprobe_events names them, and where function arguments are.

/// The System V calling convention's argument registers, in order (kernel and user alike).
pub const ARG_REGS: [&str; 6] = ["di", "si", "dx", "cx", "r8", "r9"];

/// Names `regs_query_register_offset` accepts on x86-64.
const REGS: [&str; 22] = [
    "ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11", "r12", "r13", "r14",
    "r15", "ip", "flags", "cs", "ss", "orig_ax", "ds",
];

/// The kernel's name for a register the user wrote (`rax` and `ax` both mean `ax`).
pub fn register(name: &str) -> Option<&'static str> {
    let short = match name.strip_prefix('r') {
        Some(s) if !s.starts_with(|c: char| c.is_ascii_digit()) => s,
        _ => name,
    };
    REGS.iter().copied().find(|r| *r == short || *r == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_names() {
        assert_eq!(register("ax"), Some("ax"));
        assert_eq!(register("rax"), Some("ax"));
        assert_eq!(register("r12"), Some("r12"));
        assert_eq!(register("rip"), Some("ip"));
        assert_eq!(register("eax"), None);
        assert_eq!(register("foo"), None);
    }
}
