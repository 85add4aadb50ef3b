//! Stack trace maps: bpf_get_stackid in a program, the stack read back by id.

mod common;

use common::elf::{libc_path, runtime_address, symbol_file_offset};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};
use sonde_kernel::attach::tracepoint::attach_tracepoint;
use sonde_kernel::attach::uprobe::{attach_uprobe, UprobeSpec};
use sonde_kernel::error::KernelError;
use sonde_kernel::object::map::{stack_flags, Map, MapSpec, BPF_ANY, PERF_MAX_STACK_DEPTH};
use sonde_kernel::object::prog::ProgType;

const HELPER_GET_STACKID: u32 = 27;

/// For thread `tid`: `result[0] = bpf_get_stackid(ctx, stacks, flags)`.
fn stackid_program(stacks: &Map, result: &Map, tid: u32, flags: i32) -> Vec<Insn> {
    let mut body = vec![Insn::mov64_reg(Reg::R1, Reg::R7)];
    body.extend(Insn::ld_map_fd(Reg::R2, stacks.fd()));
    body.extend([
        Insn::mov64_imm(Reg::R3, flags),
        Insn::call(HELPER_GET_STACKID),
        Insn::mov64_reg(Reg::R8, Reg::R0),
        Insn::store_imm(Size::W, Reg::FP, -4, 0),
    ]);
    body.extend(Insn::ld_map_fd(Reg::R1, result.fd()));
    body.extend([
        Insn::mov64_reg(Reg::R2, Reg::FP),
        Insn::alu64_imm(Alu::Add, Reg::R2, -4),
        Insn::call(common::HELPER_MAP_LOOKUP_ELEM),
        Insn::jmp_imm(Cond::Eq, Reg::R0, 0, 1),
        Insn::store(Size::DW, Reg::R0, 0, Reg::R8),
    ]);
    let mut p = vec![Insn::mov64_reg(Reg::R7, Reg::R1)];
    p.extend(common::only_thread(tid, body.len() as i16));
    p.extend(body);
    p.extend(common::ret0());
    p
}

fn result_map() -> Map {
    let m = common::counter_map();
    m.update(&0u32.to_le_bytes(), &u64::MAX.to_le_bytes(), BPF_ANY).unwrap();
    m
}

/// The stack id the program stored, checked to be one.
fn stored_id(result: &Map) -> u32 {
    let id = common::read_counter(result) as i64;
    assert_ne!(id, u64::MAX as i64, "the program never ran");
    assert!(id >= 0, "bpf_get_stackid failed: {id}");
    id as u32
}

/// A uprobe on libc's getpid takes the user stack: its first frame is getpid itself, at the
/// address where this process mapped it.
#[test]
fn user_stack_from_a_uprobe_starts_at_the_probed_function() {
    if common::skip_unless_root() {
        return;
    }
    let path = libc_path();
    let offset = symbol_file_offset(&path, "getpid").unwrap();
    let getpid_addr = runtime_address(&path, offset).unwrap();
    let stacks = Map::create(&MapSpec::stack_trace("test_stacks", 64)).unwrap();
    assert_eq!(stacks.value_size(), PERF_MAX_STACK_DEPTH as usize * 8);
    let result = result_map();
    let insns =
        stackid_program(&stacks, &result, common::gettid(), stack_flags::BPF_F_USER_STACK as i32);
    let prog = common::load(ProgType::Kprobe, "test_ustack", &insns);
    let spec = UprobeSpec { path: &path, offset, retprobe: false, pid: None };
    let link = attach_uprobe(&prog, spec).unwrap();
    unsafe { libc::getpid() };
    drop(link);
    let id = stored_id(&result);
    let frames = stacks.stack(id).unwrap().expect("the stack is in the map");
    assert!(!frames.is_empty());
    assert!(frames.iter().all(|&ip| ip != 0));
    assert_eq!(frames[0], getpid_addr, "first frame {:#x}, getpid at {getpid_addr:#x}", frames[0]);
    // Taking it deletes it.
    assert_eq!(stacks.take_stack(id).unwrap(), Some(frames));
    assert_eq!(stacks.stack(id).unwrap(), None);
}

/// A tracepoint program takes the kernel stack: every frame is a kernel address.
#[test]
fn kernel_stack_from_a_tracepoint_is_all_kernel_addresses() {
    if common::skip_unless_root() {
        return;
    }
    let stacks = Map::create(&MapSpec::stack_trace("test_kstacks", 64)).unwrap();
    let result = result_map();
    let insns = stackid_program(&stacks, &result, common::gettid(), 0);
    let prog = common::load(ProgType::Tracepoint, "test_kstack", &insns);
    let link = attach_tracepoint(&prog, common::getpid_id()).unwrap();
    common::getpid_syscall(1);
    drop(link);
    let frames = stacks.stack(stored_id(&result)).unwrap().unwrap();
    assert!(frames.len() >= 2, "{frames:x?}");
    assert!(frames.iter().all(|&ip| ip >= 0xffff_8000_0000_0000), "{frames:x?}");
}

#[test]
fn reading_a_stack_from_another_kind_of_map_is_refused() {
    if common::skip_unless_root() {
        return;
    }
    let err = common::counter_map().stack(0).unwrap_err();
    assert!(matches!(err, KernelError::WrongMapType { .. }), "{err:?}");
}
