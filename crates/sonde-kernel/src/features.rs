//! Cheap probes of what this kernel can do, each answered by trying the smallest thing that needs it.

use crate::map::{Map, MapSpec, MapType};
use std::path::Path;

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
