//! Loading programs: the verifier's refusals and BEGIN/END through BPF_PROG_TEST_RUN.

mod common;

use sonde_bpf::insn::encode;
use sonde_bpf::{Insn, Reg};
use sonde_kernel::error::KernelError;
use sonde_kernel::object::prog::{ProgSpec, ProgType, Program};

#[test]
fn begin_program_runs_with_test_run_and_writes_its_map() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::store_value(&map, 42);
    assert_eq!(common::read_counter(&map), 0);
    assert_eq!(prog.test_run(&[]).unwrap(), 0);
    assert_eq!(common::read_counter(&map), 42);
}

#[test]
fn reading_an_uninitialized_register_is_a_verifier_error_with_a_log() {
    if common::skip_unless_root() {
        return;
    }
    let insns = encode(&[Insn::mov64_reg(Reg::R0, Reg::R2), Insn::exit()]);
    let err = Program::load(&ProgSpec {
        prog_type: ProgType::Tracepoint,
        insns: &insns,
        license: "GPL",
        name: "test_bad",
        expected_attach_type: None,
        attach_btf_id: None,
    })
    .unwrap_err();
    let KernelError::Verifier { prog, errno, log } = &err else {
        panic!("not a verifier error: {err:?}")
    };
    assert_eq!(prog, "test_bad");
    assert_eq!(*errno, libc::EACCES);
    assert!(log.contains("R2 !read_ok"), "log: {log}");
    assert!(err.to_string().contains("R2 !read_ok"), "{err}");
}

#[test]
fn a_program_that_is_not_whole_instructions_is_refused() {
    let err = Program::load(&ProgSpec {
        prog_type: ProgType::Tracepoint,
        insns: &[0x95, 0, 0],
        license: "GPL",
        name: "test_short",
        expected_attach_type: None,
        attach_btf_id: None,
    })
    .unwrap_err();
    assert!(matches!(err, KernelError::Size { .. }), "{err:?}");
}

#[test]
fn loaded_programs_are_listed_with_their_names() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::store_value(&map, 1);
    let id = prog.id().unwrap();
    assert!(sonde_kernel::object::prog::loaded_ids().unwrap().contains(&id));
    assert_eq!(sonde_kernel::object::prog::name_by_id(id).unwrap().as_deref(), Some("test_begin"));
}

#[test]
fn a_log_bigger_than_the_first_buffer_is_retried_with_a_bigger_one() {
    if common::skip_unless_root() {
        return;
    }
    // log_level 1 prints every instruction on the failing path: ~100k lines, well over 1 MiB.
    let mut insns = vec![Insn::mov64_imm(Reg::R0, 0); 100_000];
    insns.extend([Insn::mov64_reg(Reg::R0, Reg::R2), Insn::exit()]);
    let err = Program::load(&ProgSpec {
        prog_type: ProgType::Tracepoint,
        insns: &encode(&insns),
        license: "GPL",
        name: "test_long_log",
        expected_attach_type: None,
        attach_btf_id: None,
    })
    .unwrap_err();
    let KernelError::Verifier { log, .. } = &err else { panic!("not a verifier error: {err:?}") };
    assert!(log.len() > 1 << 20, "log is {} bytes", log.len());
    assert!(log.contains("R2 !read_ok"), "the reason survives: {}", &log[log.len() - 300..]);
}

#[test]
fn a_helper_probe_says_no_only_for_an_unknown_helper() {
    if common::skip_unless_root() {
        return;
    }
    use sonde_kernel::features::has_helper;
    // An id no kernel has: "invalid func".
    assert!(!has_helper(ProgType::Kprobe, 100_000));
    // bpf_get_current_pid_tgid: present everywhere, and the probe's call is valid.
    assert!(has_helper(ProgType::Kprobe, sonde_bpf::helper::GET_CURRENT_PID_TGID));
    // bpf_for_each_map_elem (5.13): the probe's arguments are wrong for it (no map, no callback),
    // which must not read as "absent" on kernels that have it.
    let release = sonde_kernel::sys::version::kernel_release();
    let mut parts = release.split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    let want = (major, minor) >= (5, 13);
    assert_eq!(
        has_helper(ProgType::Kprobe, sonde_bpf::helper::FOR_EACH_MAP_ELEM),
        want,
        "{release}"
    );
}

#[test]
fn run_statistics_count_each_run_while_enabled() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::store_value(&map, 1);
    let guard = match sonde_kernel::object::prog::enable_run_stats() {
        Ok(g) => g,
        Err(e) => {
            println!("skipped: BPF_ENABLE_STATS: {e}");
            return;
        }
    };
    let (before, _) = prog.run_stats().unwrap();
    for _ in 0..5 {
        prog.test_run(&[]).unwrap();
    }
    let (after, ns) = prog.run_stats().unwrap();
    assert_eq!(after - before, 5);
    assert!(ns > 0);
    drop(guard);
}
