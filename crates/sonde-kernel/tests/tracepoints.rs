//! Tracepoints on the real kernel: exact counts, every CPU, both ways of attaching, ring buffers.

mod common;

use common::{getpid_id, getpid_syscall, gettid, read_counter};
use sonde_kernel::attach::perf_attach::PerfAttach;
use sonde_kernel::attach::tracepoint::{
    attach_raw_tracepoint, attach_tracepoint, attach_tracepoint_with,
};
use sonde_kernel::error::KernelError;
use sonde_kernel::object::map::{Map, MapSpec, MapType};
use sonde_kernel::object::prog::ProgType;
use sonde_kernel::object::ringbuf::RingBuf;

#[test]
fn counts_every_getpid_of_this_thread_exactly() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::Tracepoint, &map, gettid());
    let link = attach_tracepoint(&prog, getpid_id()).unwrap();
    getpid_syscall(1000);
    drop(link);
    getpid_syscall(10); // detached: not counted
    assert_eq!(read_counter(&map), 1000);
}

#[test]
fn both_attach_methods_count_exactly() {
    if common::skip_unless_root() {
        return;
    }
    for how in [PerfAttach::Link, PerfAttach::Ioctl] {
        let map = common::counter_map();
        let prog = common::thread_counter(ProgType::Tracepoint, &map, gettid());
        // Before 5.15 a perf event takes no BPF link: that is said, and Auto takes the ioctl.
        if how == PerfAttach::Link && !common::kernel_has_perf_links() {
            let err = attach_tracepoint_with(&prog, getpid_id(), how).unwrap_err();
            assert!(matches!(err, KernelError::NeedsKernel { version: "5.15", .. }), "{err:?}");
            assert!(attach_tracepoint(&prog, getpid_id()).is_ok_and(|l| !l.is_bpf_link()));
            continue;
        }
        let link = attach_tracepoint_with(&prog, getpid_id(), how).unwrap();
        assert_eq!(link.is_bpf_link(), how == PerfAttach::Link);
        getpid_syscall(300);
        drop(link);
        assert_eq!(read_counter(&map), 300, "{how:?}");
    }
}

/// One perf event opened on CPU 0 runs the program wherever the tracepoint fires.
#[test]
fn tracepoint_fires_on_every_cpu() {
    if common::skip_unless_root() {
        return;
    }
    let cpus = sonde_kernel::host::cpus::online_cpus().unwrap();
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::Tracepoint, &map, gettid());
    let _link = attach_tracepoint(&prog, getpid_id()).unwrap();
    for &cpu in &cpus {
        pin_to(cpu);
        assert_eq!(unsafe { libc::sched_getcpu() }, cpu as i32);
        getpid_syscall(100);
    }
    unpin(&cpus);
    assert_eq!(read_counter(&map), 100 * cpus.len() as u64);
}

#[test]
fn ringbuf_delivers_every_record_with_its_bytes() {
    if common::skip_unless_root() {
        return;
    }
    let ring = Map::create(&MapSpec {
        map_type: MapType::RingBuf,
        key_size: 0,
        value_size: 0,
        max_entries: 1 << 16,
        name: "test_events",
        flags: 0,
    })
    .unwrap();
    let mut reader = RingBuf::new(&ring).unwrap();
    let prog = common::ringbuf_sender(&ring, gettid());
    // Before attaching: std::process::id() is itself a getpid(2).
    let expected = ((std::process::id() as u64) << 32 | gettid() as u64).to_le_bytes();
    let link = attach_tracepoint(&prog, getpid_id()).unwrap();
    let mut seen = 0;
    for _ in 0..5 {
        getpid_syscall(100);
        reader.poll(100).unwrap();
        seen += reader
            .drain(|rec| {
                assert_eq!(rec, &expected);
            })
            .unwrap();
    }
    drop(link);
    seen += reader.drain(|rec| assert_eq!(rec, &expected)).unwrap();
    assert_eq!(seen, 500);
    assert_eq!(reader.drain(|_| panic!("nothing left")).unwrap(), 0);
}

#[test]
fn raw_tracepoint_attaches_by_name() {
    if common::skip_unless_root() {
        return;
    }
    // raw_syscalls' sys_enter is a real tracepoint; count this thread's entries.
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::RawTracepoint, &map, gettid());
    let link = attach_raw_tracepoint(&prog, "sys_enter").unwrap();
    getpid_syscall(200);
    drop(link);
    let n = read_counter(&map);
    assert!((200..210).contains(&n), "{n}");
}

#[test]
fn unknown_tracepoints_are_named_in_the_error() {
    if common::skip_unless_root() {
        return;
    }
    let err = common::tracefs().tracepoint_id("syscalls", "sys_enter_nonesuch").unwrap_err();
    assert!(matches!(err, KernelError::UnknownTracepoint { .. }), "{err:?}");
    assert!(err.to_string().contains("syscalls:sys_enter_nonesuch"), "{err}");
}

#[test]
fn formats_and_the_event_list_come_from_tracefs() {
    if common::skip_unless_root() {
        return;
    }
    let t = common::tracefs();
    let fmt = t.tracepoint_format("syscalls", "sys_enter_getpid").unwrap();
    assert!(fmt.contains("name: sys_enter_getpid"), "{fmt}");
    let all = t.list_tracepoints().unwrap();
    assert!(all.iter().any(|(c, n)| c == "sched" && n == "sched_switch"));
}

fn pin_to(cpu: u32) {
    set_affinity(&[cpu]);
}

fn unpin(cpus: &[u32]) {
    set_affinity(cpus);
}

fn set_affinity(cpus: &[u32]) {
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c as usize, &mut set);
        }
        assert_eq!(libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set), 0);
    }
}
