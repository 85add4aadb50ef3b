//! After everything is dropped, nothing this test loaded is left in the kernel or in our fd table.
//! Its own binary: other tests' objects would come and go in the same /proc/self/fd.

mod common;

use sonde_kernel::attach::perf_attach::PerfAttach;
use sonde_kernel::attach::perf_event::{attach_on_every_cpu, attach_perf_event, PerfEventSpec};
use sonde_kernel::attach::pmu::ProbeVia;
use sonde_kernel::attach::tracepoint::{attach_raw_tracepoint, attach_tracepoint_with};
use sonde_kernel::attach::uprobe::{attach_uprobe_with, UprobeSpec};
use sonde_kernel::object::map::{Map, MapSpec, MapType};
use sonde_kernel::object::prog::{self, ProgType};
use sonde_kernel::object::ringbuf::RingBuf;
use std::time::{Duration, Instant};

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

#[test]
fn dropping_everything_leaves_no_program_or_fd_behind() {
    if common::skip_unless_root() {
        return;
    }
    let tp = common::getpid_id();
    let libc = common::elf::libc_path();
    let getpid = common::elf::symbol_file_offset(&libc, "getpid").unwrap();
    let uprobe = |retprobe| UprobeSpec { path: &libc, offset: getpid, retprobe, pid: None };
    let uprobe_events =
        || std::fs::read_to_string(common::tracefs().root().join("uprobe_events")).unwrap();
    let mut tracefs_events = Vec::new();
    let fds_before = open_fds();
    let mut ids = Vec::new();
    {
        let counter = common::counter_map();
        let ring = Map::create(&MapSpec {
            map_type: MapType::RingBuf,
            key_size: 0,
            value_size: 0,
            max_entries: 4096,
            name: "t",
            flags: 0,
        })
        .unwrap();
        let reader = RingBuf::new(&ring).unwrap();
        let a = common::thread_counter(ProgType::Tracepoint, &counter, common::gettid());
        let b = common::counter(ProgType::PerfEvent, &counter);
        let c = common::thread_counter(ProgType::RawTracepoint, &counter, common::gettid());
        let d = common::ringbuf_sender(&ring, common::gettid());
        let e = common::thread_counter(ProgType::Kprobe, &counter, common::gettid());
        for p in [&a, &b, &c, &d, &e] {
            ids.push(p.id().unwrap());
        }
        let mut links = vec![
            attach_tracepoint_with(&a, tp, common::perf_link_or_ioctl()).unwrap(),
            attach_tracepoint_with(&d, tp, PerfAttach::Ioctl).unwrap(),
            attach_perf_event(&b, PerfEventSpec::cpu_clock(1_000_000, 0)).unwrap(),
            attach_raw_tracepoint(&c, "sys_enter").unwrap(),
            attach_uprobe_with(&e, uprobe(false), ProbeVia::Pmu).unwrap(),
            attach_uprobe_with(&e, uprobe(true), ProbeVia::Pmu).unwrap(),
            attach_uprobe_with(&e, uprobe(false), ProbeVia::Tracefs).unwrap(),
            attach_uprobe_with(&e, uprobe(true), ProbeVia::Tracefs).unwrap(),
        ];
        links.extend(attach_on_every_cpu(&b, PerfEventSpec::cpu_clock_freq(99, 0)).unwrap());
        tracefs_events.extend(links.iter().filter_map(|l| l.tracefs_event().map(String::from)));
        assert_eq!(tracefs_events.len(), 2);
        common::getpid_syscall(10);
        unsafe { libc::getpid() };
        assert!(open_fds() > fds_before);
        drop(links);
        drop(reader);
    }
    assert_eq!(open_fds(), fds_before, "every fd we opened is closed");
    let left = uprobe_events();
    for name in &tracefs_events {
        assert!(!left.contains(name.as_str()), "{name} left in uprobe_events");
    }
    // The kernel frees programs after an RCU grace period: give it a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let live = prog::loaded_ids().unwrap();
        let left: Vec<u32> = ids.iter().copied().filter(|id| live.contains(id)).collect();
        if left.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "programs still loaded: {left:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
