//! What this kernel can do, each answered by trying the smallest thing that needs it. The top
//! layer of the crate: it may use every module below, and none of them uses it (the answers
//! attaching needs itself live with the attaching code, and are only made public here).
//! `kconfig` reads the kernel's build configuration, only to explain a missing feature.

pub mod kconfig;

use crate::object::map::{Map, MapSpec, MapType};
use crate::object::prog::{ProgSpec, Program, RETURN_ZERO};
use std::sync::OnceLock;

/// BPF ring buffers (5.8+): create a one-page ring buffer map.
pub fn ringbuf_supported() -> bool {
    let spec = MapSpec {
        map_type: MapType::RingBuf,
        key_size: 0,
        value_size: 0,
        max_entries: crate::sys::page_size() as u32,
        name: "probe_ringbuf",
        flags: 0,
    };
    Map::create(&spec).is_ok()
}

/// The bpf(2) syscall itself: create a one-element array map. The error says why not (no
/// CONFIG_BPF_SYSCALL, no privileges, a locked-down kernel).
pub fn bpf_syscall() -> crate::error::Result<()> {
    let spec = MapSpec {
        map_type: MapType::Array,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
        name: "probe_bpf",
        flags: 0,
    };
    Map::create(&spec).map(drop)
}

/// `net.core.bpf_jit_enable`: 0 (interpreter), 1 (JIT), 2 (JIT with debug output); `None` when
/// the file is missing (a kernel without the JIT, or /proc/sys not mounted).
pub fn jit_enable() -> Option<u32> {
    read_number("/proc/sys/net/core/bpf_jit_enable")
}

/// `kernel.unprivileged_bpf_disabled`: 0 (allowed), 1 (disabled until reboot), 2 (disabled, root
/// may re-enable).
pub fn unprivileged_bpf_disabled() -> Option<u32> {
    read_number("/proc/sys/kernel/unprivileged_bpf_disabled")
}

/// The kernel lockdown mode (`none`, `integrity`, `confidentiality`): the bracketed word of
/// securityfs's `lockdown`; `None` where that file is absent (no lockdown LSM, or securityfs not
/// mounted).
pub fn lockdown() -> Option<String> {
    let text = std::fs::read_to_string("/sys/kernel/security/lockdown").ok()?;
    let start = text.find('[')? + 1;
    let end = start + text[start..].find(']')?;
    Some(text[start..end].to_string())
}

/// uprobes by either route (the PMU, or tracefs `uprobe_events`).
pub fn has_uprobes() -> bool {
    std::path::Path::new("/sys/bus/event_source/devices/uprobe/type").is_file()
        || crate::tracefs::Tracefs::find().is_some_and(|t| t.root().join("uprobe_events").exists())
}

/// The ftrace tracers this kernel offers (`function`, `function_graph`, ...), from tracefs's
/// `available_tracers`; `None` without tracefs.
pub fn available_tracers() -> Option<Vec<String>> {
    let t = crate::tracefs::Tracefs::find()?;
    let text = std::fs::read_to_string(t.root().join("available_tracers")).ok()?;
    Some(text.split_whitespace().map(str::to_string).collect())
}

fn read_number(path: &str) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Kernel BTF, needed for tp_btf/fentry programs and typed struct access.
pub fn btf_vmlinux_available() -> bool {
    crate::object::btf::vmlinux_available()
}

/// kprobes by either route (the PMU, or tracefs `kprobe_events` if tracefs is mounted).
pub fn has_kprobes() -> bool {
    crate::attach::pmu::kprobes_available()
}

/// kprobe_multi links (5.18+ with CONFIG_FPROBE); see `kprobe_multi.rs`. Cached per process.
pub fn has_kprobe_multi() -> bool {
    crate::attach::kprobe_multi::supported()
}

/// fentry/fexit, as far as loading tells: kernel BTF exists and the verifier accepts a TRACING
/// program on a common kernel function. An architecture without trampolines can still refuse the
/// attach; that error maps to [`crate::KernelError::NoTrampolines`] too. Cached per process.
pub fn has_trampolines() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let Some(id) = ["bpf_fentry_test1", "do_sys_openat2", "vfs_read"]
            .into_iter()
            .find_map(|f| crate::object::btf::find_func_in("vmlinux", f).ok())
            .map(|f| f.btf_id)
        else {
            return false;
        };
        Program::load(&ProgSpec::fentry(&RETURN_ZERO, "probe_fentry", id)).is_ok()
    })
}

/// BPF's signed division (`BPF_SDIV`, 6.6+): load `r0 = 7; r1 = -1; r0 s/= r1; r0 = 0; exit`;
/// older verifiers refuse the division's nonzero offset field. Cached per process.
pub fn has_signed_division() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let mut insns = vec![
            0xb7, 0x00, 0, 0, 7, 0, 0, 0, // r0 = 7
            0xb7, 0x01, 0, 0, 0xff, 0xff, 0xff, 0xff, // r1 = -1
            0x3f, 0x10, 1, 0, 0, 0, 0, 0, // r0 s/= r1 (ALU64 | DIV | X, off 1)
        ];
        insns.extend_from_slice(&RETURN_ZERO);
        let spec = ProgSpec::new(crate::object::prog::ProgType::Kprobe, &insns, "probe_sdiv");
        Program::load(&spec).is_ok()
    })
}

/// Does the verifier know BPF helper `id` in programs of `prog_type`? Asked once per pair by
/// loading `call id; r0 = 0; exit` (with r1 the context, as the helpers that take one want), as
/// bpftrace's feature probes do: a helper the kernel lacks is "invalid func unknown#id". A load
/// refused for another reason (privileges) says yes, so the real program reports the real error.
pub fn has_helper(prog_type: crate::object::prog::ProgType, id: u32) -> bool {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CACHE: OnceLock<Mutex<HashMap<(u32, u32), bool>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (prog_type.id(), id);
    if let Some(known) = cache.lock().ok().and_then(|c| c.get(&key).copied()) {
        return known;
    }
    let mut insns = vec![0x85, 0, 0, 0];
    insns.extend_from_slice(&id.to_le_bytes());
    insns.extend_from_slice(&RETURN_ZERO);
    let answer = match Program::load(&ProgSpec::new(prog_type, &insns, "probe_helper")) {
        Ok(_) => true,
        // Only "invalid func" (unknown id) or "unknown func"/"cannot use helper" (not for this
        // program type) say no: a helper whose arguments the probe gets wrong (a callback, a
        // map) is there all the same.
        Err(crate::KernelError::Verifier { log, .. }) => {
            !["invalid func", "unknown func", "cannot use helper"].iter().any(|m| log.contains(m))
        }
        Err(_) => true,
    };
    if let Ok(mut c) = cache.lock() {
        c.insert(key, answer);
    }
    answer
}
