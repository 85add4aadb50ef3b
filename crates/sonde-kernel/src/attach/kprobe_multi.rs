//! kprobe_multi links: one KPROBE program on many kernel functions through one fprobe.

use crate::attach::link::Link;
use crate::error::{KernelError, Result};
use crate::object::prog::{AttachType, ProgSpec, Program};
use crate::sys::{self, cmd, KprobeMultiLinkAttr};
use std::ffi::CString;
use std::os::fd::OwnedFd;
use std::sync::OnceLock;

/// `link_create.kprobe_multi.flags`: run at function return instead of entry.
pub const BPF_F_KPROBE_MULTI_RETURN: u32 = 1;

/// Attach one KPROBE program (loaded with [`crate::object::prog::ProgSpec::kprobe_multi`]) to every
/// function in `symbols` at once, at entry or (`retprobe`) at return: one BPF link, one fprobe,
/// attached in milliseconds however many functions (5.18+, CONFIG_FPROBE; see
/// [`crate::features::has_kprobe_multi`]). Duplicate names are dropped. Nothing is left behind if
/// sonde dies: the kernel removes the probes when the link's fd closes.
pub fn attach_kprobe_multi(prog: &Program, symbols: &[&str], retprobe: bool) -> Result<Link> {
    if prog.expected_attach_type() != Some(AttachType::TraceKprobeMulti) {
        return Err(KernelError::WrongAttachType {
            prog: prog.name().to_string(),
            needed: "kprobe_multi (expected_attach_type BPF_TRACE_KPROBE_MULTI)",
        });
    }
    let mut syms: Vec<&str> = symbols.to_vec();
    syms.sort_unstable();
    syms.dedup();
    if syms.is_empty() {
        return Err(KernelError::NothingToAttach { what: "a kprobe_multi link" });
    }
    if let Some(bad) = syms.iter().find(|s| s.is_empty() || s.contains('\0')) {
        return Err(KernelError::NotProbeable { symbol: bad.to_string(), errno: libc::EINVAL });
    }
    match kprobe_multi_link(prog, &syms, retprobe) {
        Ok(fd) => Ok(Link::bpf(fd)),
        Err(e @ (libc::ESRCH | libc::ENOENT)) if syms.len() == 1 => {
            Err(KernelError::NotProbeable { symbol: syms[0].to_string(), errno: e })
        }
        Err(e @ (libc::ESRCH | libc::ENOENT)) => {
            Err(KernelError::MultiNotProbeable { count: syms.len(), errno: e })
        }
        Err(libc::EOPNOTSUPP | crate::object::prog::ENOTSUPP)
            if !crate::attach::pmu::kprobes_available() =>
        {
            Err(KernelError::NoKprobes)
        }
        Err(libc::EOPNOTSUPP | crate::object::prog::ENOTSUPP) => Err(KernelError::NoKprobeMulti),
        // Before 5.18 the attach type is unknown: EINVAL.
        Err(libc::EINVAL) if !supported() => Err(KernelError::NoKprobeMulti),
        Err(e) => {
            Err(KernelError::Syscall { op: "bpf(BPF_LINK_CREATE) for kprobe_multi", errno: e })
        }
    }
}

/// BPF_LINK_CREATE with BPF_TRACE_KPROBE_MULTI on `syms` (no checks: see attach_kprobe_multi).
fn kprobe_multi_link(
    prog: &Program,
    syms: &[&str],
    retprobe: bool,
) -> std::result::Result<OwnedFd, sys::Errno> {
    let names: Vec<CString> = syms
        .iter()
        .map(|s| CString::new(*s).map_err(|_| libc::EINVAL))
        .collect::<std::result::Result<_, _>>()?;
    // `addrs` must outlive the call: the kernel copies the pointers, then the strings.
    let addrs = sys::cstr_addrs(&names);
    let mut attr = KprobeMultiLinkAttr {
        prog_fd: prog.fd() as u32,
        attach_type: AttachType::TraceKprobeMulti.id(),
        kprobe_flags: if retprobe { BPF_F_KPROBE_MULTI_RETURN } else { 0 },
        cnt: addrs.len() as u32,
        syms: sys::addr_u64s(&addrs),
        ..Default::default()
    };
    sys::bpf_fd(cmd::LINK_CREATE, &mut attr)
}

/// kprobe_multi links (5.18+ with CONFIG_FPROBE). Probed once per process by asking for a link on
/// a symbol that does not exist: a kernel that has them looks the symbol up and says ESRCH; one
/// without says EOPNOTSUPP or EINVAL. Nothing is attached either way. Public as
/// [`crate::features::has_kprobe_multi`]; here because attaching needs the answer too.
pub(crate) fn supported() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let spec = ProgSpec::kprobe_multi(&crate::object::prog::RETURN_ZERO, "probe_kpm");
        let Ok(prog) = Program::load(&spec) else {
            return false;
        };
        matches!(
            kprobe_multi_link(&prog, &["sonde_no_such_function_for_probing"], false),
            Err(libc::ESRCH)
        )
    })
}
