//! fentry/fexit: finding functions in BTF, loading TRACING programs for them and attaching through
//! BPF trampolines, with exact counts; or, on a kernel without trampolines, the clear error.

mod common;

use common::{gettid, read_counter};
use sonde_bpf::insn::encode;
use sonde_kernel::attach::fentry::attach_tracing;
use sonde_kernel::error::KernelError;
use sonde_kernel::features;
use sonde_kernel::object::btf::{find_func, kernel_btf_fd};
use sonde_kernel::object::prog::{AttachType, ProgSpec, ProgType, Program};

#[test]
fn kernel_functions_are_found_in_vmlinux_btf() {
    if common::skip_unless_root() || !features::btf_vmlinux_available() {
        return;
    }
    let f = find_func("do_sys_openat2").unwrap();
    assert!(f.btf_id > 0);
    assert_eq!(f.module, None);
    assert!(f.obj_fd().is_none());
    let err = find_func("sonde_no_such_function").unwrap_err();
    assert!(matches!(err, KernelError::NoBtfFunction { .. }), "{err:?}");
    assert!(err.to_string().contains("`sonde_no_such_function`"), "{err}");
    // The kernel's own BTF object is found by name among the loaded ones (as modules' are).
    // Before 5.11 it has no id (and modules no BTF), so there is none to find.
    let has_id = sonde_kernel::sys::version::running().is_some_and(|v| v >= (5, 11));
    assert_eq!(kernel_btf_fd("vmlinux").unwrap().is_some(), has_id);
    assert!(kernel_btf_fd("sonde_no_such_module").unwrap().is_none());
}

/// fentry on getpid(2)'s function and fexit on do_sys_openat2, counted for this thread. Where the
/// kernel has no trampolines, both say so in one sentence instead.
#[test]
fn fentry_and_fexit_count_exactly_or_say_there_are_no_trampolines() {
    if common::skip_unless_root() || !features::btf_vmlinux_available() {
        return;
    }
    let map = common::counter_map();
    // 6.18's BTF has the syscall body (__do_sys_getpid, an alias of __x64_sys_getpid) only.
    let getpid = find_func("__x64_sys_getpid").or_else(|_| find_func("__do_sys_getpid")).unwrap();
    let entry = common::thread_counter_insns(&map, gettid());
    let spec = ProgSpec::fentry(&[], "test_fentry", getpid.btf_id);
    assert_eq!(spec.prog_type, ProgType::Tracing);
    assert_eq!(spec.expected_attach_type, Some(AttachType::TraceFentry.id()));
    let bytes = encode(&entry);
    let prog = match Program::load(&ProgSpec { insns: &bytes, ..spec }) {
        Ok(p) => p,
        // The host these tests first ran on denies TRACING programs to root by policy (a BPF LSM).
        Err(e) if e.errno() == Some(libc::EPERM) => {
            assert!(e.to_string().contains("a security policy forbids it"), "{e}");
            assert!(!features::has_trampolines());
            eprintln!("skipped: {e}");
            return;
        }
        Err(e) => {
            assert!(matches!(e, KernelError::NoTrampolines { .. }), "{e:?}");
            return;
        }
    };
    assert!(features::has_trampolines());
    let link = match attach_tracing(&prog) {
        Ok(l) => l,
        Err(e) => {
            assert!(matches!(e, KernelError::NoTrampolines { .. }), "{e:?}");
            assert_eq!(
                e.to_string(),
                "fentry needs BPF trampolines, which this kernel lacks: use kprobe:"
            );
            return;
        }
    };
    common::getpid_syscall(500);
    drop(link);
    common::getpid_syscall(10);
    assert_eq!(read_counter(&map), 500);

    let map = common::counter_map();
    let openat2 = find_func("do_sys_openat2").unwrap();
    let prog = common::load_spec(
        ProgSpec::fexit(&[], "test_fexit", openat2.btf_id),
        &common::thread_counter_insns(&map, gettid()),
    );
    let link = attach_tracing(&prog).unwrap();
    open_dev_null(200);
    drop(link);
    open_dev_null(10);
    assert_eq!(read_counter(&map), 200);
}

#[test]
fn attach_tracing_refuses_a_program_not_loaded_for_fentry() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::RawTracepoint, &map);
    let err = attach_tracing(&prog).unwrap_err();
    assert!(matches!(err, KernelError::WrongAttachType { .. }), "{err:?}");
}

pub fn open_dev_null(n: u64) {
    for _ in 0..n {
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY) };
        assert!(fd >= 0);
        unsafe { libc::close(fd) };
    }
}
