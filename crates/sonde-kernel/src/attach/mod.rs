//! Attaching loaded programs. `link` (what keeps a program attached, and `detach_all`) is at
//! the bottom, then `perf_attach` (a program on a perf event fd), `pmu` (the kprobe and uprobe
//! PMUs), then each kind: `tracepoint`, `perf_event`, `kprobe`, `uprobe`, `kprobe_multi`,
//! `fentry`, `breakpoint`, `iter`.

pub mod breakpoint;
pub mod fentry;
pub mod iter;
pub mod kprobe;
pub mod kprobe_multi;
pub mod link;
pub mod perf_attach;
pub mod perf_event;
pub mod pmu;
pub mod tracepoint;
pub mod uprobe;
