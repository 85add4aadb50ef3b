//! What a line may say about the numbers in it: the path behind a file descriptor, the comm of a
//! pid, the working directory behind `AT_FDCWD`. The binary answers from what it saw traced
//! (the [`FdTable`](crate::fds::FdTable), the comms in the records) and from /proc at print
//! time; tests answer from tables, and [`NoNames`] answers nothing (strace's plain layout).

pub trait Names {
    /// `fd`'s path in process `pid`, if known.
    fn fd_path(&self, pid: u32, fd: i64) -> Option<String>;
    /// The comm of task `pid`, if known.
    fn comm(&self, pid: i64) -> Option<String>;
    /// The working directory of process `pid`, to show after `AT_FDCWD` (strace -y does).
    fn cwd(&self, pid: u32) -> Option<String>;
    /// strace's -Y: pids spelled `1234<sleep>`, tasks' lines `[pid  1234<sleep>] `.
    fn strace_comms(&self) -> bool {
        false
    }
    /// strace's -v: structures with every member.
    fn verbose(&self) -> bool {
        false
    }
    /// strace's -X: constants as names, numbers, or both.
    fn constants(&self) -> crate::line::xlat::Xlat {
        crate::line::xlat::Xlat::Abbrev
    }
    /// Is `fd` of process `pid` a NETLINK_ROUTE socket (its messages then decoded)?
    fn netlink_route(&self, _pid: u32, _fd: i64) -> bool {
        false
    }
}

/// No names: numbers print bare.
pub struct NoNames;

impl Names for NoNames {
    fn fd_path(&self, _: u32, _: i64) -> Option<String> {
        None
    }
    fn comm(&self, _: i64) -> Option<String> {
        None
    }
    fn cwd(&self, _: u32) -> Option<String> {
        None
    }
}

/// `3</etc/hostname>` (strace -y and perf trace's spelling), or the number alone.
pub fn fd_text(names: &dyn Names, pid: u32, fd: i64) -> String {
    match (fd >= 0).then(|| names.fd_path(pid, fd)).flatten() {
        Some(path) => format!("{fd}<{path}>"),
        None => fd.to_string(),
    }
}

/// `1234 (sleep)` (perf trace's spelling), `1234<sleep>` (strace -Y's), or the number alone.
pub fn pid_text(names: &dyn Names, pid: i64) -> String {
    match (pid > 0).then(|| names.comm(pid)).flatten() {
        Some(comm) if names.strace_comms() => format!("{pid}<{comm}>"),
        Some(comm) => format!("{pid} ({comm})"),
        None => pid.to_string(),
    }
}

/// strace -f's `[pid  1234] ` before another task's line; `[pid  1234<sleep>] ` with -Y (the
/// comm the task's record carried).
pub fn pid_prefix(names: &dyn Names, tid: u32, comm: &str) -> String {
    match names.strace_comms() && !comm.is_empty() {
        true => format!("[pid {tid:>5}<{comm}>] "),
        false => format!("[pid {tid:>5}] "),
    }
}

/// A C string's bytes up to its NUL.
pub fn until_nul(b: &[u8]) -> &[u8] {
    &b[..b.iter().position(|&c| c == 0).unwrap_or(b.len())]
}
