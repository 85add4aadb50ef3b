//! Programs: load through the verifier, run BEGIN/END with BPF_PROG_TEST_RUN, and list what the
//! kernel holds (for tests that prove teardown).

use crate::error::{KernelError, Result};
use crate::object::verifier_stats::{self, VerifierStats};
use crate::sys::{
    self, cmd, EnableStatsAttr, IdAttr, InfoAttr, ProgInfo, ProgLoadAttr, TestRunAttr,
};
use std::ffi::CString;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgType {
    #[doc(alias = "BPF_PROG_TYPE_KPROBE")]
    Kprobe,
    #[doc(alias = "BPF_PROG_TYPE_TRACEPOINT")]
    Tracepoint,
    #[doc(alias = "BPF_PROG_TYPE_PERF_EVENT")]
    PerfEvent,
    #[doc(alias = "BPF_PROG_TYPE_RAW_TRACEPOINT")]
    RawTracepoint,
    #[doc(alias = "BPF_PROG_TYPE_TRACING")]
    Tracing,
}

impl ProgType {
    /// The uapi `enum bpf_prog_type` value.
    pub fn id(self) -> u32 {
        match self {
            ProgType::Kprobe => 2,
            ProgType::Tracepoint => 5,
            ProgType::PerfEvent => 7,
            ProgType::RawTracepoint => 17,
            ProgType::Tracing => 26,
        }
    }
}

/// The uapi `enum bpf_attach_type` values a program can be loaded for (`expected_attach_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachType {
    #[doc(alias = "BPF_TRACE_RAW_TP")]
    TraceRawTp,
    /// A TRACING program run on entry to a kernel function (fentry).
    #[doc(alias = "BPF_TRACE_FENTRY")]
    TraceFentry,
    /// A TRACING program run on return from a kernel function (fexit).
    #[doc(alias = "BPF_TRACE_FEXIT")]
    TraceFexit,
    /// A TRACING program run for each object a BPF iterator visits (`iter:task`).
    #[doc(alias = "BPF_TRACE_ITER")]
    TraceIter,
    #[doc(alias = "BPF_PERF_EVENT")]
    PerfEvent,
    /// A KPROBE program for [`crate::attach::kprobe_multi::attach_kprobe_multi`].
    #[doc(alias = "BPF_TRACE_KPROBE_MULTI")]
    TraceKprobeMulti,
}

impl AttachType {
    /// The uapi value.
    pub fn id(self) -> u32 {
        match self {
            AttachType::TraceRawTp => 23,
            AttachType::TraceFentry => 24,
            AttachType::TraceFexit => 25,
            AttachType::TraceIter => 28,
            AttachType::PerfEvent => 41,
            AttachType::TraceKprobeMulti => 42,
        }
    }

    pub fn from_id(id: u32) -> Option<AttachType> {
        [
            AttachType::TraceRawTp,
            AttachType::TraceFentry,
            AttachType::TraceFexit,
            AttachType::TraceIter,
            AttachType::PerfEvent,
            AttachType::TraceKprobeMulti,
        ]
        .into_iter()
        .find(|t| t.id() == id)
    }
}

/// What to load. Build one with [`ProgSpec::new`] (or [`ProgSpec::kprobe_multi`],
/// [`ProgSpec::fentry`], [`ProgSpec::fexit`]) rather than a struct literal, so new fields do not
/// break callers.
#[derive(Clone, Copy, Debug)]
pub struct ProgSpec<'a> {
    pub prog_type: ProgType,
    /// Encoded 8-byte `struct bpf_insn`s, map fds already patched in.
    pub insns: &'a [u8],
    pub license: &'a str,
    /// Truncated and sanitized to the kernel's 15 chars of `[A-Za-z0-9_.]`.
    pub name: &'a str,
    pub expected_attach_type: Option<u32>,
    pub attach_btf_id: Option<u32>,
}

impl<'a> ProgSpec<'a> {
    /// A GPL-licensed program with no attach type: kprobes, uprobes, tracepoints, raw tracepoints
    /// and perf events.
    pub fn new(prog_type: ProgType, insns: &'a [u8], name: &'a str) -> ProgSpec<'a> {
        ProgSpec {
            prog_type,
            insns,
            // The program's licence, not sonde's: the kernel's GPL-only helpers need a GPL program.
            license: "GPL",
            name,
            expected_attach_type: None,
            attach_btf_id: None,
        }
    }

    /// A KPROBE program for [`crate::attach::kprobe_multi::attach_kprobe_multi`] (expected_attach_type
    /// BPF_TRACE_KPROBE_MULTI). It sees `struct pt_regs` like any kprobe program.
    pub fn kprobe_multi(insns: &'a [u8], name: &'a str) -> ProgSpec<'a> {
        ProgSpec::new(ProgType::Kprobe, insns, name).with_attach_type(AttachType::TraceKprobeMulti)
    }

    /// A TRACING program run on entry to the kernel function whose BTF FUNC id is `btf_id` (see
    /// [`crate::object::btf::find_func`]); for a module function also pass its BTF object to
    /// [`Program::load_with`]. Attach it with [`crate::attach::fentry::attach_tracing`].
    pub fn fentry(insns: &'a [u8], name: &'a str, btf_id: u32) -> ProgSpec<'a> {
        ProgSpec::new(ProgType::Tracing, insns, name)
            .with_attach_type(AttachType::TraceFentry)
            .with_attach_btf_id(btf_id)
    }

    /// A BTF-typed raw tracepoint (`tp_btf`): `btf_id` is the `btf_trace_NAME` typedef; the
    /// program sees the tracepoint's C arguments as u64s, as fentry sees a function's.
    pub fn tp_btf(insns: &'a [u8], name: &'a str, btf_id: u32) -> ProgSpec<'a> {
        ProgSpec::new(ProgType::Tracing, insns, name)
            .with_attach_type(AttachType::TraceRawTp)
            .with_attach_btf_id(btf_id)
    }

    /// A TRACING program for the BPF iterator whose `bpf_iter_NAME` FUNC has BTF id `btf_id`:
    /// its context is `struct bpf_iter__NAME`. Attach it with [`crate::attach::iter::attach_iter`].
    pub fn iter(insns: &'a [u8], name: &'a str, btf_id: u32) -> ProgSpec<'a> {
        ProgSpec::new(ProgType::Tracing, insns, name)
            .with_attach_type(AttachType::TraceIter)
            .with_attach_btf_id(btf_id)
    }

    /// Like [`ProgSpec::fentry`], on return (the program also sees the return value).
    pub fn fexit(insns: &'a [u8], name: &'a str, btf_id: u32) -> ProgSpec<'a> {
        ProgSpec::new(ProgType::Tracing, insns, name)
            .with_attach_type(AttachType::TraceFexit)
            .with_attach_btf_id(btf_id)
    }

    pub fn with_attach_type(mut self, t: AttachType) -> ProgSpec<'a> {
        self.expected_attach_type = Some(t.id());
        self
    }

    pub fn with_attach_btf_id(mut self, id: u32) -> ProgSpec<'a> {
        self.attach_btf_id = Some(id);
        self
    }

    pub fn with_license(mut self, license: &'a str) -> ProgSpec<'a> {
        self.license = license;
        self
    }

    fn is_fentry_or_fexit(&self) -> bool {
        self.prog_type == ProgType::Tracing
            && matches!(
                self.expected_attach_type.and_then(AttachType::from_id),
                Some(AttachType::TraceFentry | AttachType::TraceFexit)
            )
    }
}

/// Load attributes that are not plain values: kernel objects the load refers to.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions<'a> {
    /// Asked before each attempt and whenever the verifier gives up on a pending signal
    /// (EAGAIN): true ends the load with [`KernelError::Interrupted`]. Without it (or while it
    /// says no) an interrupted verification is tried again, as libbpf does.
    pub stop: Option<fn() -> bool>,
    /// For fentry/fexit on a module function: the module's BTF object, in which `attach_btf_id`
    /// is numbered ([`crate::object::btf::BtfFunc::obj_fd`]). None for vmlinux.
    pub attach_btf_obj_fd: Option<BorrowedFd<'a>>,
    /// The first instruction of each helper callback (subprograms after the main program, for
    /// `bpf_for_each_map_elem`): the load then carries the BTF func info they need
    /// ([`crate::object::func_info`]). Empty for programs without callbacks.
    pub callbacks: &'a [u32],
    /// The program's global functions ([`crate::object::func_info::GlobalFunc`]).
    pub globals: &'a [crate::object::func_info::GlobalFunc],
    /// Ask the verifier for its statistics ([`Program::stats`]): what the load cost.
    pub stats: bool,
}

/// A loaded program. Dropping it closes the fd; the kernel frees it once no link holds it.
#[derive(Debug)]
pub struct Program {
    fd: OwnedFd,
    name: String,
    prog_type: ProgType,
    expected_attach_type: Option<AttachType>,
    stats: Option<VerifierStats>,
}

/// First retry buffer and the cap: a failing log rarely needs more than 1 MiB, a pathological one is
/// cut at 16 MiB (newer kernels keep its tail, older ones its head).
const LOG_START: usize = 1 << 20;

/// `mov r0, 0; exit`, encoded: the smallest valid program (for feature probes).
pub(crate) const RETURN_ZERO: [u8; 16] = [
    0xb7, 0, 0, 0, 0, 0, 0, 0, //
    0x95, 0, 0, 0, 0, 0, 0, 0,
];

/// The text the kernel wrote into a log buffer (up to its NUL).
fn log_text(log: &[u8]) -> String {
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    String::from_utf8_lossy(&log[..end]).into_owned()
}

/// The kernel-internal ENOTSUPP that bpf(2) lets escape to user space.
pub(crate) const ENOTSUPP: i32 = 524;
const LOG_MAX: usize = 16 << 20;

/// Loads tried again after the verifier gave up on a signal that was not a stop (libbpf's 5).
const EAGAIN_TRIES: usize = 5;

impl Program {
    /// Load without a log (the verifier runs faster without one); only if that fails, load again
    /// with log_level 1 to explain why.
    pub fn load(spec: &ProgSpec) -> Result<Program> {
        Program::load_with(spec, &LoadOptions::default())
    }

    /// [`Program::load`] with the extra attributes in `opts`.
    pub fn load_with(spec: &ProgSpec, opts: &LoadOptions) -> Result<Program> {
        if spec.insns.is_empty() || !spec.insns.len().is_multiple_of(8) {
            return Err(KernelError::Size {
                object: spec.name.to_string(),
                what: "the program",
                expected: spec.insns.len().next_multiple_of(8).max(8),
                got: spec.insns.len(),
            });
        }
        let license = CString::new(spec.license.replace('\0', "")).unwrap_or_default();
        let (func_btf, func_info) = if opts.callbacks.is_empty() && opts.globals.is_empty() {
            (None, Vec::new())
        } else {
            let (btf, records) = crate::object::func_info::build(opts.callbacks, opts.globals);
            (Some(crate::object::func_info::load(&btf)?), records)
        };
        let func_info_bytes: Vec<u8> = func_info.iter().flat_map(|v| v.to_le_bytes()).collect();
        let attempt = |log: &mut [u8], log_level: u32| {
            let mut attr = ProgLoadAttr {
                prog_type: spec.prog_type.id(),
                insn_cnt: (spec.insns.len() / 8) as u32,
                insns: sys::addr(spec.insns),
                license: sys::addr_cstr(&license),
                log_level,
                log_size: log.len() as u32,
                log_buf: sys::addr_mut(log),
                prog_name: crate::object::name::obj_name(spec.name),
                expected_attach_type: spec.expected_attach_type.unwrap_or(0),
                attach_btf_id: spec.attach_btf_id.unwrap_or(0),
                attach_prog_fd: opts.attach_btf_obj_fd.map_or(0, |fd| fd.as_raw_fd() as u32),
                prog_btf_fd: func_btf.as_ref().map_or(0, |fd| fd.as_raw_fd() as u32),
                func_info_rec_size: if func_info.is_empty() { 0 } else { 8 },
                func_info: sys::addr(&func_info_bytes),
                func_info_cnt: (func_info.len() / 2) as u32,
                ..Default::default()
            };
            sys::bpf_fd(cmd::PROG_LOAD, &mut attr)
        };
        let program = |fd, stats| Program {
            fd,
            name: spec.name.to_string(),
            prog_type: spec.prog_type,
            expected_attach_type: spec.expected_attach_type.and_then(AttachType::from_id),
            stats,
        };
        if spec.is_fentry_or_fexit() && !crate::object::btf::vmlinux_available() {
            return Err(KernelError::NoBtf);
        }
        let interrupted = || KernelError::Interrupted { prog: spec.name.to_string() };
        let stopping = || opts.stop.is_some_and(|stop| stop());
        // The verifier returns EAGAIN when a signal is pending: a stop, or any other signal
        // (SIGCHLD, a timer), after which the same load is tried again.
        let load = |log: &mut [u8], level: u32| {
            for _ in 0..EAGAIN_TRIES {
                if stopping() {
                    return Err(None);
                }
                match attempt(log, level) {
                    Err(libc::EAGAIN) => continue,
                    r => return r.map_err(Some),
                }
            }
            Err(Some(libc::EAGAIN))
        };
        // Without a log the verifier runs fastest; statistics alone cost it nothing more.
        let (level, mut first_log) = match opts.stats {
            true => (verifier_stats::LOG_LEVEL_STATS, vec![0u8; verifier_stats::LOG_BYTES]),
            false => (0, Vec::new()),
        };
        let errno = match load(&mut first_log, level) {
            Ok(fd) => return Ok(program(fd, VerifierStats::parse(&log_text(&first_log)))),
            Err(None) => return Err(interrupted()),
            // No BPF trampoline for this architecture or kernel.
            Err(Some(e @ (libc::EOPNOTSUPP | ENOTSUPP))) if spec.is_fentry_or_fexit() => {
                return Err(KernelError::NoTrampolines { errno: e })
            }
            // No log would explain a missing capability.
            Err(Some(e @ (libc::EPERM | libc::EMFILE | libc::ENFILE))) => {
                return Err(KernelError::Syscall { op: "bpf(BPF_PROG_LOAD)", errno: e })
            }
            // The statistics did not fit their buffer (the kernel then refuses the load):
            // loaded again without them.
            Err(Some(libc::ENOSPC)) if opts.stats => {
                return Program::load_with(spec, &LoadOptions { stats: false, ..*opts })
            }
            Err(Some(e)) => e,
        };
        let mut log = vec![0u8; LOG_START];
        loop {
            match load(&mut log, 1) {
                Ok(fd) => return Ok(program(fd, None)),
                Err(None) => return Err(interrupted()),
                Err(Some(libc::ENOSPC)) if log.len() < LOG_MAX => log = vec![0u8; log.len() * 4],
                Err(Some(e)) => {
                    let text = log_text(&log);
                    if text.trim().is_empty() {
                        // Refused before the verifier ran (a bad attr): the errno is all there is.
                        return Err(KernelError::Syscall { op: "bpf(BPF_PROG_LOAD)", errno });
                    }
                    return Err(KernelError::Verifier {
                        prog: spec.name.to_string(),
                        errno: e,
                        log: text,
                    });
                }
            }
        }
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The verifier's statistics, when the load asked for them ([`LoadOptions::stats`]).
    pub fn stats(&self) -> Option<VerifierStats> {
        self.stats
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn prog_type(&self) -> ProgType {
        self.prog_type
    }

    /// The attach type it was loaded for, if any (and if this crate knows it).
    pub fn expected_attach_type(&self) -> Option<AttachType> {
        self.expected_attach_type
    }

    /// Run the program once in the kernel with `ctx` as its context and return r0. This is how BEGIN
    /// and END run: RAW_TRACEPOINT programs accept an empty ctx (or up to 12 u64 arguments).
    pub fn test_run(&self, ctx: &[u8]) -> Result<u32> {
        let mut attr = TestRunAttr {
            prog_fd: self.fd() as u32,
            ctx_size_in: ctx.len() as u32,
            ctx_in: sys::addr(ctx),
            ..Default::default()
        };
        sys::bpf(cmd::PROG_TEST_RUN, &mut attr)
            .map_err(KernelError::sys("bpf(BPF_PROG_TEST_RUN)"))?;
        Ok(attr.retval)
    }

    /// The kernel's id for this program (what bpftool shows).
    pub fn id(&self) -> Result<u32> {
        Ok(info_by_fd(&self.fd)?.0.id)
    }

    /// Runs the kernel skipped because the program fired while a BPF program was already
    /// running on that CPU (`recursion_misses`); None before 5.12, which does not count them.
    pub fn recursion_misses(&self) -> Result<Option<u64>> {
        let (info, len) = info_by_fd(&self.fd)?;
        let known = std::mem::offset_of!(ProgInfo, recursion_misses) + 8 <= len;
        Ok(known.then_some(info.recursion_misses))
    }

    /// The kernel's (runs, total run time in ns) of this program. The kernel counts them only
    /// while its BPF statistics are on (`kernel.bpf_stats_enabled`, 5.1+); else they stay put.
    pub fn run_stats(&self) -> Result<(u64, u64)> {
        let (info, _) = info_by_fd(&self.fd)?;
        Ok((info.run_cnt, info.run_time_ns))
    }
}

/// While this lives, the kernel counts every program's runs and run time ([`Program::run_stats`]),
/// as `sysctl kernel.bpf_stats_enabled=1` would, and stops when the last holder lets go.
pub struct RunStatsGuard(#[allow(dead_code)] OwnedFd);

/// Turns the kernel's run statistics on (BPF_ENABLE_STATS: 5.8+, CAP_SYS_ADMIN).
pub fn enable_run_stats() -> Result<RunStatsGuard> {
    let mut attr = EnableStatsAttr { stat_type: 0 };
    let fd = sys::bpf_fd(cmd::ENABLE_STATS, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_ENABLE_STATS)"))?;
    Ok(RunStatsGuard(fd))
}

/// Ids of every program loaded in the kernel, by anyone (BPF_PROG_GET_NEXT_ID).
pub fn loaded_ids() -> Result<Vec<u32>> {
    let mut ids = Vec::new();
    let mut attr = IdAttr::default();
    loop {
        match sys::bpf(cmd::PROG_GET_NEXT_ID, &mut attr) {
            Ok(_) => ids.push(attr.next_id),
            Err(libc::ENOENT) => return Ok(ids),
            Err(e) => {
                return Err(KernelError::Syscall { op: "bpf(BPF_PROG_GET_NEXT_ID)", errno: e })
            }
        }
        attr.id = attr.next_id;
    }
}

/// The name of the program with kernel id `id`, or None if it is gone.
pub fn name_by_id(id: u32) -> Result<Option<String>> {
    let mut attr = IdAttr { id, ..Default::default() };
    let fd = match sys::bpf_fd(cmd::PROG_GET_FD_BY_ID, &mut attr) {
        Ok(fd) => fd,
        Err(libc::ENOENT) => return Ok(None),
        Err(e) => return Err(KernelError::Syscall { op: "bpf(BPF_PROG_GET_FD_BY_ID)", errno: e }),
    };
    let (info, _) = info_by_fd(&fd)?;
    let end = info.name.iter().position(|&b| b == 0).unwrap_or(info.name.len());
    Ok(Some(String::from_utf8_lossy(&info.name[..end]).into_owned()))
}

/// The program's info and how many of its bytes this kernel filled in (older kernels know a
/// shorter struct; a longer one is accepted as long as its tail is zero).
fn info_by_fd(fd: &OwnedFd) -> Result<(ProgInfo, usize)> {
    let mut info = ProgInfo::default();
    let mut attr = InfoAttr {
        bpf_fd: fd.as_raw_fd() as u32,
        info_len: std::mem::size_of::<ProgInfo>() as u32,
        info: sys::addr_info(&mut info),
    };
    sys::bpf(cmd::OBJ_GET_INFO_BY_FD, &mut attr)
        .map_err(KernelError::sys("bpf(BPF_OBJ_GET_INFO_BY_FD)"))?;
    Ok((info, attr.info_len as usize))
}
