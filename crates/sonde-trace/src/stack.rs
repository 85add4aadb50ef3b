//! `--max-stack N`: the frames of a call's stacks, as perf trace prints them under its line.
//! The frames come named from the binary's one `Symbolizer` (kernel frames as kallsyms names
//! them, user frames `name+0xoff (file)`), one a line; this keeps the first N, kernel frames
//! first as perf's callchains have them, and lays them out.

/// The frames of the kernel and user stack texts (one frame a line, blank lines and
/// `[stack unavailable]` ignored), the first `max` of them.
pub fn frames(kernel: &str, user: &str, max: usize) -> Vec<String> {
    let lines = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && *l != "[stack unavailable]")
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mut all = lines(kernel);
    all.extend(lines(user));
    all.truncate(max);
    all
}

/// Under a perf-layout line: each frame indented (sonde's stack indentation, as in maps).
pub fn perf_lines(frames: &[String]) -> Vec<String> {
    frames.iter().map(|f| format!("        {f}")).collect()
}

/// Under a strace-layout line: ` > frame`, as strace -k prints them.
pub fn strace_lines(frames: &[String]) -> Vec<String> {
    frames.iter().map(|f| format!(" > {f}")).collect()
}

/// A user frame as its mappings name it, for strace's `-k`.
pub struct UserFrame<'a> {
    pub file: &'a str,
    pub symbol: Option<&'a str>,
    /// Into the symbol.
    pub offset: u64,
    /// Into the file (strace's `true_offset`).
    pub file_offset: u64,
}

/// A frame of `-k` as strace writes it after ` > `: `/lib/libc.so.6(__open64+0x51) [0xf8011]`,
/// `/usr/bin/cat() [0x2752]` without a symbol, and an address in no mapping (or of a process
/// gone before its records were read) as strace's unwinder error.
pub fn strace_frame(frame: Option<UserFrame>, addr: u64) -> String {
    match frame {
        Some(UserFrame { file, symbol: Some(s), offset, file_offset }) => {
            format!("{file}({s}+{offset:#x}) [{file_offset:#x}]")
        }
        Some(UserFrame { file, symbol: None, file_offset, .. }) => {
            format!("{file}() [{file_offset:#x}]")
        }
        None => format!("unexpected_backtracing_error [{addr:#x}]"),
    }
}

/// The addresses of a stack printed raw (`ustack(raw)`: one hex address a line).
pub fn raw_addresses(text: &str) -> Vec<u64> {
    text.lines().filter_map(|l| u64::from_str_radix(l.trim(), 16).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strace_s_frames() {
        let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
        let f = |symbol, offset| UserFrame { file: libc, symbol, offset, file_offset: 0x101829 };
        assert_eq!(
            strace_frame(Some(f(Some("syscall"), 0x19)), 1),
            format!("{libc}(syscall+0x19) [0x101829]")
        );
        assert_eq!(strace_frame(Some(f(None, 0)), 1), format!("{libc}() [0x101829]"));
        assert_eq!(strace_frame(None, 0x7f00), "unexpected_backtracing_error [0x7f00]");
        assert_eq!(
            raw_addresses("\n        7f4bc2e68829\n        [stack unavailable]\n"),
            [0x7f4bc2e68829]
        );
    }

    #[test]
    fn kernel_then_user_frames_cut_to_the_depth() {
        let k = "\n        do_syscall_64+0x5a\n        entry_SYSCALL_64+0x76\n";
        let u = "\n        syscall+0x1d (/usr/lib/libc.so.6)\n        main+0x10 (/bin/app)\n";
        assert_eq!(
            frames(k, u, 3),
            ["do_syscall_64+0x5a", "entry_SYSCALL_64+0x76", "syscall+0x1d (/usr/lib/libc.so.6)"]
        );
        assert_eq!(frames("\n        [stack unavailable]\n", u, 9).len(), 2);
        assert_eq!(perf_lines(&frames("", u, 1)), ["        syscall+0x1d (/usr/lib/libc.so.6)"]);
        assert_eq!(strace_lines(&frames("", u, 1)), [" > syscall+0x1d (/usr/lib/libc.so.6)"]);
    }
}
