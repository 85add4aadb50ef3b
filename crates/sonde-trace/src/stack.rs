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

#[cfg(test)]
mod tests {
    use super::*;

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
