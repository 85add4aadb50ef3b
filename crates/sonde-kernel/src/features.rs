//! What this kernel can do, each answered by trying the smallest thing that needs it. The top
//! layer of the crate: it may use every module below, and none of them uses it (the answers
//! attaching needs itself live with the attaching code, and are only made public here).

use crate::map::{Map, MapSpec, MapType};
use crate::prog::{ProgSpec, Program, RETURN_ZERO};
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
    crate::btf::vmlinux_available()
}

/// kprobes by either route (the PMU, or tracefs `kprobe_events` if tracefs is mounted).
pub fn has_kprobes() -> bool {
    crate::pmu::kprobes_available()
}

/// kprobe_multi links (5.18+ with CONFIG_FPROBE); see `kprobe_multi.rs`. Cached per process.
pub fn has_kprobe_multi() -> bool {
    crate::kprobe_multi::supported()
}

/// fentry/fexit, as far as loading tells: kernel BTF exists and the verifier accepts a TRACING
/// program on a common kernel function. An architecture without trampolines can still refuse the
/// attach; that error maps to [`crate::KernelError::NoTrampolines`] too. Cached per process.
pub fn has_trampolines() -> bool {
    static CACHE: OnceLock<bool> = OnceLock::new();
    *CACHE.get_or_init(|| {
        let Some(id) = ["bpf_fentry_test1", "do_sys_openat2", "vfs_read"]
            .into_iter()
            .find_map(|f| crate::btf::find_func_in("vmlinux", f).ok())
            .map(|f| f.btf_id)
        else {
            return false;
        };
        Program::load(&ProgSpec::fentry(&RETURN_ZERO, "probe_fentry", id)).is_ok()
    })
}
