//! Cheap probes of what this kernel can do, each answered by trying the smallest thing that needs it.

use crate::map::{Map, MapSpec, MapType};
use crate::prog::{ProgSpec, Program};
use std::path::Path;
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

/// Kernel BTF, needed for tp_btf/fentry programs and typed struct access.
pub fn btf_vmlinux_available() -> bool {
    Path::new("/sys/kernel/btf/vmlinux").is_file()
}

/// kprobes through tracefs (CONFIG_KPROBE_EVENTS).
pub fn kprobe_events_available(tracefs: &crate::tracefs::Tracefs) -> bool {
    tracefs.root().join("kprobe_events").exists()
}

/// uprobes through tracefs (CONFIG_UPROBE_EVENTS).
pub fn uprobe_events_available(tracefs: &crate::tracefs::Tracefs) -> bool {
    tracefs.root().join("uprobe_events").exists()
}

/// The kprobe PMU (4.17+, CONFIG_KPROBE_EVENTS): kprobes as perf events, freed with their fd.
pub fn has_kprobe_pmu() -> bool {
    Path::new("/sys/bus/event_source/devices/kprobe/type").is_file()
}

/// The uprobe PMU (4.17+, CONFIG_UPROBE_EVENTS).
pub fn has_uprobe_pmu() -> bool {
    Path::new("/sys/bus/event_source/devices/uprobe/type").is_file()
}

/// kprobes by either route (the PMU, or tracefs `kprobe_events` if tracefs is mounted).
pub fn has_kprobes() -> bool {
    has_kprobe_pmu() || crate::tracefs::Tracefs::find().is_some_and(|t| kprobe_events_available(&t))
}

/// `mov r0, 0; exit`, encoded: the smallest valid program.
pub(crate) const RETURN_ZERO: [u8; 16] = [
    0xb7, 0, 0, 0, 0, 0, 0, 0, //
    0x95, 0, 0, 0, 0, 0, 0, 0,
];

/// kprobe_multi links (5.18+ with CONFIG_FPROBE). Probed once per process by asking for a link on
/// a symbol that does not exist: a kernel that has them looks the symbol up and says ESRCH; one
/// without says EOPNOTSUPP or EINVAL. Nothing is attached either way.
pub fn has_kprobe_multi() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let spec = ProgSpec::kprobe_multi(&RETURN_ZERO, "probe_kpm");
        let Ok(prog) = Program::load(&spec) else {
            return false;
        };
        matches!(
            crate::attach::kprobe_multi_link(&prog, &["sonde_no_such_function_for_probing"], false),
            Err(libc::ESRCH)
        )
    })
}

/// fentry/fexit, as far as loading tells: kernel BTF exists and the verifier accepts a TRACING
/// program on a common kernel function. An architecture without trampolines can still refuse the
/// attach; that error maps to [`crate::KernelError::NoTrampolines`] too. Cached per process.
pub fn has_trampolines() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let Ok(btf) = crate::btf::Btf::vmlinux() else {
            return false;
        };
        let Some(id) = ["bpf_fentry_test1", "do_sys_openat2", "vfs_read"]
            .into_iter()
            .find_map(|f| btf.func_id(f))
        else {
            return false;
        };
        Program::load(&ProgSpec::fentry(&RETURN_ZERO, "probe_fentry", id)).is_ok()
    })
}
