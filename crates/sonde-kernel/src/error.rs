//! Everything the kernel can refuse, as values with fields (which operation, which errno, the
//! verifier's log) whose `Display` is one plain sentence ending in what to do about it.

use crate::sys::memlock::Memlock;

pub type Result<T> = std::result::Result<T, KernelError>;

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// A syscall failed. `op` names it the way a person would look it up: `bpf(BPF_MAP_CREATE)`,
    /// `perf_event_open`, `ioctl(PERF_EVENT_IOC_SET_BPF)`.
    #[error("{}", syscall_sentence(op, *errno))]
    Syscall { op: &'static str, errno: i32 },

    /// The verifier refused a program; `log` is its full log (log_level 1).
    #[error("the kernel's verifier rejected program `{prog}` ({}): {}", errno_name(*errno), last_line(log))]
    Verifier { prog: String, errno: i32, log: String },

    #[error(
        "tracefs is not mounted and mounting it at /sys/kernel/tracing failed ({}): run `mount -t tracefs nodev /sys/kernel/tracing` as root",
        errno_name(*mount_errno)
    )]
    NoTracefs { mount_errno: i32 },

    #[error("tracefs ({path}) is readable only by root: sonde needs root (or CAP_BPF and CAP_PERFMON and read access to tracefs) to read tracepoint formats and attach to kernel events")]
    TracefsDenied { path: String },

    #[error("this kernel has no tracepoint {category}:{name}: list the available ones with `sonde -l '{category}:*'`")]
    UnknownTracepoint { category: String, name: String },

    /// tracefs refused a line (a probe definition, a filter); `log` is tracing/error_log's entry.
    #[error("the kernel refused `{what}` ({}){}", errno_name(*errno), log.as_deref().map(|l| format!(": {l}")).unwrap_or_default())]
    Rejected { what: String, errno: i32, log: Option<String> },

    #[error("cannot read {path}: {source}")]
    Io { path: String, source: std::io::Error },

    #[error("cannot parse {path} (`{text}`): the kernel wrote something this version of sonde does not understand")]
    Parse { path: String, text: String },

    /// The load was given up: a signal interrupted the verifier and the caller's stop check
    /// ([`crate::object::prog::LoadOptions::stop`]) said to stop.
    #[error("interrupted while the kernel verified program `{prog}`; it was not loaded")]
    Interrupted { prog: String },

    /// A caller passed a key or value of the wrong size: a bug in the caller, caught before the kernel
    /// could read past the buffer.
    #[error("{what} is {got} bytes but `{object}` expects {expected}: this is a bug in sonde")]
    Size { object: String, what: &'static str, expected: usize, got: usize },

    #[error("{what} is not supported by this kernel: {hint}")]
    Unsupported { what: &'static str, hint: &'static str },

    /// A feature newer than the running kernel: `what` needs Linux `version`.
    #[error(
        "{what} needs Linux {version} or later, and this kernel is {}",
        crate::sys::version::kernel_release()
    )]
    NeedsKernel { what: &'static str, version: &'static str },

    /// A hardware breakpoint found no free debug register (ENOSPC).
    #[error("the CPU has no free debug register for another watchpoint (x86 has 4, shared with debuggers and other watchpoints): watch fewer addresses at once")]
    NoDebugRegisters,

    /// Neither the kprobe PMU nor tracefs `kprobe_events` exists.
    #[error("this kernel has no kprobes (CONFIG_KPROBES): use tracepoints")]
    NoKprobes,

    /// Neither the uprobe PMU nor tracefs `uprobe_events` exists.
    #[error("this kernel has no uprobes (CONFIG_UPROBES, CONFIG_UPROBE_EVENTS): user-space functions cannot be traced here")]
    NoUprobes,

    /// The kernel refused a kprobe on `symbol` (ENOENT, EINVAL: unknown, inlined, notrace, or on
    /// the kprobe blacklist).
    #[error("cannot probe `{symbol}`: it is not a traceable kernel function (it may be inlined, notrace or blacklisted)")]
    NotProbeable { symbol: String, errno: i32 },

    /// The kernel refused a kprobe at `symbol+offset` of a function it can probe: the offset is
    /// not at an instruction boundary (EILSEQ), or is past the function's end.
    #[error("cannot probe `{symbol}+{offset}`: the offset is not at the start of an instruction of `{symbol}` (or is past its end); x86 instructions vary in length, so check the disassembly")]
    BadProbeOffset { symbol: String, offset: u64, errno: i32 },

    /// Several kernel functions share the name (EADDRNOTAVAIL, 6.6+): a name alone is ambiguous.
    #[error("cannot probe `{symbol}`: several kernel functions have that name, so the kernel will not guess which one to probe")]
    AmbiguousSymbol { symbol: String },

    /// A kprobe_multi link over `count` functions was refused because some of them cannot be traced.
    #[error("cannot probe these {count} kernel functions together: at least one of them is not a traceable kernel function (it may be inlined, notrace or blacklisted)")]
    MultiNotProbeable { count: usize, errno: i32 },

    /// BPF_LINK_CREATE does not know BPF_TRACE_KPROBE_MULTI (before 5.18, or no CONFIG_FPROBE).
    #[error("this kernel cannot attach one program to many kprobes at once (kprobe_multi needs Linux 5.18+ with CONFIG_FPROBE): attach each function as its own kprobe")]
    NoKprobeMulti,

    /// fentry/fexit could not get a BPF trampoline (ENOTSUPP/EOPNOTSUPP at load or attach).
    #[error("fentry needs BPF trampolines, which this kernel lacks: use kprobe:")]
    NoTrampolines { errno: i32 },

    /// There is no /sys/kernel/btf/vmlinux.
    #[error("fentry and fexit need the kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF), which this kernel lacks: use kprobe:")]
    NoBtf,

    /// No FUNC of that name in vmlinux's or any module's BTF.
    #[error("the kernel's BTF has no function `{name}` (it may be inlined or not exist): check the name, or use kprobe:{name}")]
    NoBtfFunction { name: String },

    /// The kernel's BTF is there but could not be read.
    #[error("{0}")]
    Btf(sonde_btf::BtfError),

    /// perf_event_open refused a uprobe on `path` at file offset `offset`.
    #[error("{}", uprobe_sentence(path, *offset, *errno))]
    UprobeTarget { path: String, offset: u64, errno: i32 },

    /// An attach over a list got an empty list: a bug in the caller.
    #[error("there is nothing to attach {what} to: the list of functions is empty (this is a bug in sonde)")]
    NothingToAttach { what: &'static str },

    /// A map was used as a kind it is not: a bug in the caller.
    #[error("map `{map}` is not {needed}: this is a bug in sonde")]
    WrongMapType { map: String, needed: &'static str },

    /// A program was attached in a way its load-time attach type does not allow: a bug in the caller.
    #[error("program `{prog}` was not loaded for {needed}: this is a bug in sonde")]
    WrongAttachType { prog: String, needed: &'static str },
}

impl KernelError {
    /// The errno behind this error, if the kernel gave one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            KernelError::Syscall { errno, .. }
            | KernelError::Verifier { errno, .. }
            | KernelError::NotProbeable { errno, .. }
            | KernelError::BadProbeOffset { errno, .. }
            | KernelError::MultiNotProbeable { errno, .. }
            | KernelError::NoTrampolines { errno }
            | KernelError::UprobeTarget { errno, .. } => Some(*errno),
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
    syscall_sentence_as(op, errno, crate::sys::has_bpf_capabilities())
}

/// `privileged`: whether we hold CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN), in which case a
/// refusal is a security policy, not missing privilege.
fn syscall_sentence_as(op: &str, errno: i32, privileged: bool) -> String {
    let name = errno_name(errno);
    if let (libc::EPERM, true, Memlock::Limited { bytes }) =
        (errno, op.starts_with("bpf("), crate::sys::memlock::ensure())
    {
        return memlock_sentence(op, bytes);
    }
    match errno {
        libc::EPERM | libc::EACCES if privileged => format!(
            "permission denied using {op} ({name}) even with CAP_BPF and CAP_PERFMON: a security policy forbids it (kernel lockdown, SELinux or a BPF LSM program)"
        ),
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

fn uprobe_sentence(path: &str, offset: u64, errno: i32) -> String {
    let name = errno_name(errno);
    match errno {
        libc::ENOENT | libc::ENOTDIR => format!("cannot probe `{path}`: no such file ({name})"),
        libc::EPERM | libc::EACCES => format!(
            "permission denied putting a uprobe on `{path}` ({name}): run as root (or with CAP_PERFMON)"
        ),
        libc::EINVAL | libc::EILSEQ | libc::EOPNOTSUPP | 524 => format!(
            "cannot put a uprobe at `{path}`+{offset:#x} ({name}): it is not a regular file, or the offset is not at an instruction the kernel can probe"
        ),
        _ => format!("cannot put a uprobe at `{path}`+{offset:#x} ({name}): {}", hint(errno)),
    }
}

/// EPERM from bpf(2) where the kernel charges BPF memory to a limit sonde could not raise.
fn memlock_sentence(op: &str, bytes: u64) -> String {
    format!(
        "{op} failed (EPERM): this kernel (before 5.11) charges BPF maps and programs to the locked-memory limit, which is {} KiB and could not be raised: run as root, or raise it first with `ulimit -l unlimited`",
        bytes / 1024
    )
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
        libc::ESRCH => "no such process or symbol (a process may have exited)",
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
        libc::ENOTDIR => "ENOTDIR",
        libc::EILSEQ => "EILSEQ",
        libc::EADDRNOTAVAIL => "EADDRNOTAVAIL",
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
        assert_eq!(
            syscall_sentence_as("bpf(BPF_MAP_CREATE)", libc::EPERM, false),
            "permission denied using bpf(BPF_MAP_CREATE) (EPERM): run as root (or with CAP_BPF and CAP_PERFMON)"
        );
    }

    #[test]
    fn eperm_under_a_low_memlock_limit_names_the_limit_and_the_fix() {
        assert_eq!(
            memlock_sentence("bpf(BPF_MAP_CREATE)", 64 * 1024),
            "bpf(BPF_MAP_CREATE) failed (EPERM): this kernel (before 5.11) charges BPF maps and programs to the locked-memory limit, which is 64 KiB and could not be raised: run as root, or raise it first with `ulimit -l unlimited`"
        );
    }

    #[test]
    fn eperm_with_the_capabilities_blames_a_policy() {
        assert_eq!(
            syscall_sentence_as("bpf(BPF_PROG_LOAD)", libc::EPERM, true),
            "permission denied using bpf(BPF_PROG_LOAD) (EPERM) even with CAP_BPF and CAP_PERFMON: a security policy forbids it (kernel lockdown, SELinux or a BPF LSM program)"
        );
    }

    #[test]
    fn the_kprobe_sentences_say_what_to_do() {
        assert_eq!(
            KernelError::NoKprobes.to_string(),
            "this kernel has no kprobes (CONFIG_KPROBES): use tracepoints"
        );
        assert_eq!(
            KernelError::NotProbeable {
                symbol: "foo".into(),
                errno: libc::ENOENT
            }
            .to_string(),
            "cannot probe `foo`: it is not a traceable kernel function (it may be inlined, notrace or blacklisted)"
        );
        assert_eq!(
            KernelError::NoTrampolines { errno: 524 }.to_string(),
            "fentry needs BPF trampolines, which this kernel lacks: use kprobe:"
        );
    }

    #[test]
    fn verifier_error_quotes_the_reason_not_the_statistics() {
        let log = "0: (bf) r0 = r2\nR2 !read_ok\nprocessed 1 insns (limit 1000000)\n";
        let e = KernelError::Verifier { prog: "p".into(), errno: libc::EACCES, log: log.into() };
        assert_eq!(
            e.to_string(),
            "the kernel's verifier rejected program `p` (EACCES): R2 !read_ok"
        );
    }
}
