//! Shared by the real-kernel tests: tiny hand-assembled programs and the maps they write.
#![allow(dead_code)]

pub mod elf;

use sonde_bpf::insn::encode;
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};
use sonde_kernel::object::map::{Map, MapSpec, MapType};
use sonde_kernel::object::prog::{ProgSpec, ProgType, Program};
use sonde_kernel::tracefs::Tracefs;
use std::sync::OnceLock;

pub const HELPER_MAP_LOOKUP_ELEM: u32 = 1;
pub const HELPER_MAP_UPDATE_ELEM: u32 = 2;
pub const HELPER_GET_CURRENT_PID_TGID: u32 = 14;
pub const HELPER_RINGBUF_OUTPUT: u32 = 130;

/// These tests load real programs: without root they say so and pass vacuously.
pub fn skip_unless_root() -> bool {
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("skipped: needs root for bpf(2)");
    }
    !root
}

/// tracefs, mounted once per test binary (tests run on parallel threads).
pub fn tracefs() -> &'static Tracefs {
    static T: OnceLock<Tracefs> = OnceLock::new();
    T.get_or_init(|| Tracefs::find_or_mount().expect("tracefs"))
}

pub fn getpid_id() -> u64 {
    tracefs().tracepoint_id("syscalls", "sys_enter_getpid").unwrap()
}

/// getpid(2) without libc's caching, so every call enters the kernel.
pub fn getpid_syscall(n: u64) {
    for _ in 0..n {
        unsafe { libc::syscall(libc::SYS_getpid) };
    }
}

pub fn gettid() -> u32 {
    unsafe { libc::syscall(libc::SYS_gettid) as u32 }
}

/// A one-slot u64 array: the counter the programs below bump.
pub fn counter_map() -> Map {
    Map::create(&MapSpec {
        map_type: MapType::Array,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
        name: "test_counter",
        flags: 0,
    })
    .unwrap()
}

pub fn read_counter(map: &Map) -> u64 {
    let v = map.lookup(&0u32.to_le_bytes()).unwrap().unwrap();
    u64::from_le_bytes(v.try_into().unwrap())
}

/// `if (u32)bpf_get_current_pid_tgid() != tid return 0;` with the full pid_tgid left in r6.
pub fn only_thread(tid: u32, skip: i16) -> Vec<Insn> {
    vec![
        Insn::call(HELPER_GET_CURRENT_PID_TGID),
        Insn::mov64_reg(Reg::R6, Reg::R0),
        Insn::alu64_imm(Alu::Lsh, Reg::R0, 32),
        Insn::alu64_imm(Alu::Rsh, Reg::R0, 32),
        Insn::jmp_imm(Cond::Ne, Reg::R0, tid as i32, skip),
    ]
}

/// `counter[0] += 1` (atomic), then `return 0`.
pub fn bump(map: &Map) -> Vec<Insn> {
    let mut p = Vec::new();
    p.extend(Insn::ld_map_fd(Reg::R1, map.fd()));
    p.extend([
        Insn::store_imm(Size::W, Reg::FP, -4, 0),
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(Alu::Add, Reg::R2, -4),
        Insn::call(HELPER_MAP_LOOKUP_ELEM),
        Insn::jmp_imm(Cond::Eq, Reg::R0, 0, 2),
        Insn::mov64_imm(Reg::R1, 1),
        Insn::atomic_add64(Reg::R0, 0, Reg::R1),
    ]);
    p
}

pub fn ret0() -> [Insn; 2] {
    [Insn::mov64_imm(Reg::R0, 0), Insn::exit()]
}

pub fn load(prog_type: ProgType, name: &str, insns: &[Insn]) -> Program {
    Program::load(&ProgSpec {
        prog_type,
        insns: &encode(insns),
        license: "GPL",
        name,
        expected_attach_type: None,
        attach_btf_id: None,
    })
    .unwrap_or_else(|e| panic!("{e}\n{e:?}"))
}

/// The body of [`thread_counter`], for loading with another spec.
pub fn thread_counter_insns(map: &Map, tid: u32) -> Vec<Insn> {
    let body = bump(map);
    let mut p = only_thread(tid, body.len() as i16);
    p.extend(body);
    p.extend(ret0());
    p
}

/// The body of [`counter`]: count every event.
pub fn counter_insns(map: &Map) -> Vec<Insn> {
    let mut p = bump(map);
    p.extend(ret0());
    p
}

/// Load `insns` with `spec`'s other fields.
pub fn load_spec(spec: ProgSpec, insns: &[Insn]) -> Program {
    let bytes = encode(insns);
    Program::load(&ProgSpec { insns: &bytes, ..spec }).unwrap_or_else(|e| panic!("{e}\n{e:?}"))
}

/// True (with a note) when this kernel has no kprobes: the positive kprobe tests run only in the
/// qemu guests.
pub fn skip_without_kprobes() -> bool {
    let missing = !std::path::Path::new("/sys/bus/event_source/devices/kprobe").exists();
    if missing {
        eprintln!("skipped: this kernel has no kprobe PMU (runs in the qemu guest)");
    }
    missing
}

/// Counts events from thread `tid` into `map`.
pub fn thread_counter(prog_type: ProgType, map: &Map, tid: u32) -> Program {
    let body = bump(map);
    let mut p = only_thread(tid, body.len() as i16);
    p.extend(body);
    p.extend(ret0());
    load(prog_type, "test_count", &p)
}

/// Counts every event into `map`.
pub fn counter(prog_type: ProgType, map: &Map) -> Program {
    let mut p = bump(map);
    p.extend(ret0());
    load(prog_type, "test_count_all", &p)
}

/// Sends the 8-byte pid_tgid of thread `tid`'s events to the ring buffer `ring`.
pub fn ringbuf_sender(ring: &Map, tid: u32) -> Program {
    let mut body = vec![Insn::store(Size::DW, Reg::FP, -8, Reg::R6)];
    body.extend(Insn::ld_map_fd(Reg::R1, ring.fd()));
    body.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(Alu::Add, Reg::R2, -8),
        Insn::mov64_imm(Reg::R3, 8),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call(HELPER_RINGBUF_OUTPUT),
    ]);
    let mut p = only_thread(tid, body.len() as i16);
    p.extend(body);
    p.extend(ret0());
    load(ProgType::Tracepoint, "test_ringbuf", &p)
}

/// A BEGIN-style program: `map[0] = value`.
pub fn store_value(map: &Map, value: i32) -> Program {
    let mut p = Vec::new();
    p.extend(Insn::ld_map_fd(Reg::R1, map.fd()));
    p.extend([
        Insn::store_imm(Size::W, Reg::FP, -4, 0),
        Insn::store_imm(Size::DW, Reg::FP, -16, value),
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(Alu::Add, Reg::R2, -4),
        Insn::mov64_reg(Reg::R3, Reg::FP),
        Insn::alu64_imm(Alu::Add, Reg::R3, -16),
        Insn::mov64_imm(Reg::R4, 0),
        Insn::call(HELPER_MAP_UPDATE_ELEM),
    ]);
    p.extend(ret0());
    load(ProgType::RawTracepoint, "test_begin", &p)
}

/// BPF links on perf events came in 5.15; before, only the ioctl attaches.
pub fn kernel_has_perf_links() -> bool {
    sonde_kernel::sys::version::running().is_some_and(|v| v >= (5, 15))
}

/// A link where the kernel has them, else the ioctl.
pub fn perf_link_or_ioctl() -> sonde_kernel::attach::perf_attach::PerfAttach {
    if kernel_has_perf_links() {
        sonde_kernel::attach::perf_attach::PerfAttach::Link
    } else {
        sonde_kernel::attach::perf_attach::PerfAttach::Ioctl
    }
}
