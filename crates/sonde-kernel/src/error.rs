//! Everything the kernel can refuse, as values with fields (which operation, which errno, the
//! verifier's log) whose `Display` is one plain sentence ending in what to do about it.

pub type Result<T> = std::result::Result<T, KernelError>;

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// A syscall failed. `op` names it the way a person would look it up: `bpf(BPF_MAP_CREATE)`,
    /// `perf_event_open`, `ioctl(PERF_EVENT_IOC_SET_BPF)`.
    #[error("{}", syscall_sentence(op, *errno))]
    Syscall { op: &'static str, errno: i32 },

    /// The verifier refused a program; `log` is its full log (log_level 1).
    #[error("the kernel's verifier rejected program `{prog}` ({}): {}", errno_name(*errno), last_line(log))]
    Verifier {
        prog: String,
        errno: i32,
        log: String,
    },

    #[error(
        "tracefs is not mounted and mounting it at /sys/kernel/tracing failed ({}): run `mount -t tracefs nodev /sys/kernel/tracing` as root",
        errno_name(*mount_errno)
    )]
    NoTracefs { mount_errno: i32 },

    #[error("this kernel has no tracepoint {category}:{name}: list the available ones with `sonde -l '{category}:*'`")]
    UnknownTracepoint { category: String, name: String },

    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },

    #[error("cannot parse {path} (`{text}`): the kernel wrote something this version of sonde does not understand")]
    Parse { path: String, text: String },

    /// A caller passed a key or value of the wrong size: a bug in the caller, caught before the kernel
    /// could read past the buffer.
    #[error("{what} is {got} bytes but `{object}` expects {expected}: this is a bug in sonde")]
    Size {
        object: String,
        what: &'static str,
        expected: usize,
        got: usize,
    },

    #[error("{what} is not supported by this kernel: {hint}")]
    Unsupported {
        what: &'static str,
        hint: &'static str,
    },
}

impl KernelError {
    /// The errno behind this error, if the kernel gave one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            KernelError::Syscall { errno, .. } | KernelError::Verifier { errno, .. } => {
                Some(*errno)
            }
            KernelError::NoTracefs { mount_errno } => Some(*mount_errno),
            KernelError::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    pub(crate) fn sys(op: &'static str) -> impl FnOnce(i32) -> KernelError {
        move |errno| KernelError::Syscall { op, errno }
    }

    pub(crate) fn io(path: impl Into<String>) -> impl FnOnce(std::io::Error) -> KernelError {
        let path = path.into();
        move |source| KernelError::Io { path, source }
    }
}

fn syscall_sentence(op: &str, errno: i32) -> String {
    let name = errno_name(errno);
    match errno {
        libc::EPERM | libc::EACCES => {
            let mut s = format!("permission denied using {op} ({name}): run as root (or with CAP_BPF and CAP_PERFMON)");
            if op.starts_with("perf_event_open") {
                s.push_str(", and check /proc/sys/kernel/perf_event_paranoid");
            }
            s
        }
        _ => format!("{op} failed ({name}): {}", hint(errno)),
    }
}

/// What an errno usually means for the bpf/perf calls this crate makes.
fn hint(errno: i32) -> &'static str {
    match errno {
        libc::ENOENT => "the kernel has no such object; check that the tracepoint or function exists",
        libc::E2BIG => "the request is bigger than this kernel accepts (too many entries, instructions or a newer attribute)",
        libc::EINVAL => "the kernel rejected the arguments; it may be too old for this feature",
        libc::ENOSPC => "the kernel ran out of room (a full map or a too-small buffer)",
        libc::ENOMEM => "the kernel is out of memory; try smaller maps",
        libc::EBUSY => "the object is already in use by another program or tracer",
        libc::EEXIST => "the object already exists",
        libc::EMFILE | libc::ENFILE => "too many open files; raise the limit with `ulimit -n`",
        libc::ENOSYS => "this kernel was built without bpf(2) or perf events",
        libc::EOPNOTSUPP | 524 => "this kernel does not support it",
        libc::ENODEV => "the device or event type does not exist on this machine",
        libc::EBADF => "a file descriptor was not valid (an object was closed too early)",
        _ => "see the errno for details",
    }
}

fn last_line(log: &str) -> &str {
    log.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("processed "))
        .unwrap_or("(empty log)")
}

/// Errno name for messages ("EPERM").
pub fn errno_name(e: i32) -> &'static str {
    match e {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::ESRCH => "ESRCH",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::E2BIG => "E2BIG",
        libc::EBADF => "EBADF",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::EMFILE => "EMFILE",
        libc::ENOSPC => "ENOSPC",
        libc::ERANGE => "ERANGE",
        libc::ENOSYS => "ENOSYS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        524 => "ENOTSUPP",
        _ => "errno",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eperm_on_bpf_reads_as_one_sentence_with_a_hint() {
        let e = KernelError::Syscall {
            op: "bpf(BPF_MAP_CREATE)",
            errno: libc::EPERM,
        };
        assert_eq!(
            e.to_string(),
            "permission denied using bpf(BPF_MAP_CREATE) (EPERM): run as root (or with CAP_BPF and CAP_PERFMON)"
        );
    }

    #[test]
    fn verifier_error_quotes_the_reason_not_the_statistics() {
        let log = "0: (bf) r0 = r2\nR2 !read_ok\nprocessed 1 insns (limit 1000000)\n";
        let e = KernelError::Verifier {
            prog: "p".into(),
            errno: libc::EACCES,
            log: log.into(),
        };
        assert_eq!(
            e.to_string(),
            "the kernel's verifier rejected program `p` (EACCES): R2 !read_ok"
        );
    }
}
