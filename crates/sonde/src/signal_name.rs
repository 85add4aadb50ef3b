//! bpftrace's `signal_name(n)`: strsignal(3)'s text as glibc writes it on Linux.

/// glibc's descriptions of signals 1 to 31.
const DESCRIPTIONS: [&str; 31] = [
    "Hangup",
    "Interrupt",
    "Quit",
    "Illegal instruction",
    "Trace/breakpoint trap",
    "Aborted",
    "Bus error",
    "Floating point exception",
    "Killed",
    "User defined signal 1",
    "Segmentation fault",
    "User defined signal 2",
    "Broken pipe",
    "Alarm clock",
    "Terminated",
    "Stack fault",
    "Child exited",
    "Continued",
    "Stopped (signal)",
    "Stopped",
    "Stopped (tty input)",
    "Stopped (tty output)",
    "Urgent I/O condition",
    "CPU time limit exceeded",
    "File size limit exceeded",
    "Virtual timer expired",
    "Profiling timer expired",
    "Window changed",
    "I/O possible",
    "Power failure",
    "Bad system call",
];

/// glibc's SIGRTMIN (the kernel's 32 and 33 are the threading library's) and the kernel's
/// last signal.
const RT_MIN: i64 = 34;
const LAST: i64 = 64;

/// The text for signal `n`: its description, `Real-time signal K`, `Unknown signal N` within
/// the kernel's range, and bpftrace's `N/A` beyond it.
pub fn strsignal(n: i64) -> String {
    match n {
        1..=31 => DESCRIPTIONS[n as usize - 1].to_string(),
        RT_MIN..=LAST => format!("Real-time signal {}", n - RT_MIN),
        0..=LAST => format!("Unknown signal {}", n),
        _ => "N/A".to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_as_glibc_does() {
        assert_eq!(super::strsignal(2), "Interrupt");
        assert_eq!(super::strsignal(0), "Unknown signal 0");
        assert_eq!(super::strsignal(35), "Real-time signal 1");
        assert_eq!(super::strsignal(1024), "N/A");
        assert_eq!(super::strsignal(-1), "N/A");
    }
}
