//! kprobes, kretprobes and kprobe_multi. On a kernel without kprobes (the 6.18 host these tests were
//! written on) every attach must fail with the one plain sentence; where kprobes exist (the qemu
//! guests) they must count exactly.

mod common;

use common::{gettid, read_counter};
use sonde_kernel::attach::kprobe::{attach_kprobe, attach_kprobe_with, KprobeSpec};
use sonde_kernel::attach::kprobe_multi::attach_kprobe_multi;
use sonde_kernel::attach::pmu::ProbeVia;
use sonde_kernel::error::KernelError;
use sonde_kernel::features;
use sonde_kernel::object::prog::{ProgSpec, ProgType};

const NO_KPROBES: &str = "this kernel has no kprobes (CONFIG_KPROBES): use tracepoints";

fn open_dev_null(n: u64) {
    for _ in 0..n {
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY) };
        assert!(fd >= 0);
        unsafe { libc::close(fd) };
    }
}

fn getppid_syscall(n: u64) {
    for _ in 0..n {
        unsafe { libc::syscall(libc::SYS_getppid) };
    }
}

/// Tracefs kprobe_events, if this kernel has it (tracefs mounted by `common::tracefs`).
fn has_kprobe_events() -> bool {
    common::tracefs().root().join("kprobe_events").exists()
}

#[test]
fn without_kprobes_every_kprobe_attach_says_so_in_one_sentence() {
    if common::skip_unless_root() {
        return;
    }
    common::tracefs(); // mounted, so the fallback is really looked for
    if features::has_kprobes() {
        eprintln!("skipped: this kernel has kprobes");
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    for spec in [
        KprobeSpec::entry("__x64_sys_getpid"),
        KprobeSpec::ret("do_sys_openat2"),
        KprobeSpec::address(0xffff_ffff_8100_0000),
    ] {
        for via in [ProbeVia::Auto, ProbeVia::Pmu, ProbeVia::Tracefs] {
            let err = attach_kprobe_with(&prog, spec, via).unwrap_err();
            assert!(matches!(err, KernelError::NoKprobes), "{spec:?} {via:?}: {err:?}");
            assert_eq!(err.to_string(), NO_KPROBES);
        }
    }
    assert!(!features::has_kprobe_multi());
    let multi =
        common::load_spec(ProgSpec::kprobe_multi(&[], "test_kpm"), &common::counter_insns(&map));
    let err =
        attach_kprobe_multi(&multi, &["__x64_sys_getpid", "do_sys_openat2"], false).unwrap_err();
    assert_eq!(err.to_string(), NO_KPROBES, "{err:?}");
}

#[test]
fn kprobe_multi_needs_a_program_loaded_for_it() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let plain = common::counter(ProgType::Kprobe, &map);
    let err = attach_kprobe_multi(&plain, &["__x64_sys_getpid"], false).unwrap_err();
    assert!(matches!(err, KernelError::WrongAttachType { .. }), "{err:?}");
    let multi =
        common::load_spec(ProgSpec::kprobe_multi(&[], "test_kpm"), &common::counter_insns(&map));
    let err = attach_kprobe_multi(&multi, &[], false).unwrap_err();
    assert!(matches!(err, KernelError::NothingToAttach { .. }), "{err:?}");
}

#[test]
fn kprobe_counts_every_getpid_of_this_thread_exactly() {
    if common::skip_unless_root() || common::skip_without_kprobes() {
        return;
    }
    let mut routes = vec![ProbeVia::Pmu];
    if has_kprobe_events() {
        routes.push(ProbeVia::Tracefs);
    }
    for via in routes {
        let map = common::counter_map();
        let prog = common::thread_counter(ProgType::Kprobe, &map, gettid());
        let link = attach_kprobe_with(&prog, KprobeSpec::entry("__x64_sys_getpid"), via)
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        assert_eq!(link.tracefs_event().is_some(), via == ProbeVia::Tracefs);
        let event = link.tracefs_event().map(str::to_string);
        common::getpid_syscall(1000);
        drop(link);
        common::getpid_syscall(10);
        assert_eq!(read_counter(&map), 1000, "{via:?}");
        if let Some(name) = event {
            let events =
                std::fs::read_to_string(common::tracefs().root().join("kprobe_events")).unwrap();
            assert!(!events.contains(&format!("sonde/{name} ")), "{name} left behind");
        }
    }
}

#[test]
fn kretprobe_counts_every_openat_of_this_thread_exactly() {
    if common::skip_unless_root() || common::skip_without_kprobes() {
        return;
    }
    let mut routes = vec![ProbeVia::Pmu];
    if has_kprobe_events() {
        routes.push(ProbeVia::Tracefs);
    }
    for via in routes {
        let map = common::counter_map();
        let prog = common::thread_counter(ProgType::Kprobe, &map, gettid());
        let link = attach_kprobe_with(&prog, KprobeSpec::ret("do_sys_openat2"), via)
            .unwrap_or_else(|e| panic!("{via:?}: {e}"));
        open_dev_null(300);
        drop(link);
        open_dev_null(10);
        assert_eq!(read_counter(&map), 300, "{via:?}");
    }
}

#[test]
fn an_unknown_function_is_not_probeable_in_one_sentence() {
    if common::skip_unless_root() || common::skip_without_kprobes() {
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::Kprobe, &map);
    let err = attach_kprobe(&prog, KprobeSpec::entry("sonde_no_such_function")).unwrap_err();
    assert!(matches!(err, KernelError::NotProbeable { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "cannot probe `sonde_no_such_function`: it is not a traceable kernel function (it may be inlined, notrace or blacklisted)"
    );
}

#[test]
fn kprobe_multi_counts_entries_and_returns_of_several_functions_exactly() {
    if common::skip_unless_root() || common::skip_without_kprobes() {
        return;
    }
    if !features::has_kprobe_multi() {
        eprintln!("skipped: this kernel has kprobes but no kprobe_multi");
        return;
    }
    for retprobe in [false, true] {
        let map = common::counter_map();
        let prog = common::load_spec(
            ProgSpec::kprobe_multi(&[], "test_kpm"),
            &common::thread_counter_insns(&map, gettid()),
        );
        // A duplicate is dropped, not attached twice.
        let syms = ["__x64_sys_getpid", "__x64_sys_getppid", "__x64_sys_getpid"];
        let link = attach_kprobe_multi(&prog, &syms, retprobe).unwrap_or_else(|e| panic!("{e}"));
        common::getpid_syscall(300);
        getppid_syscall(200);
        drop(link);
        common::getpid_syscall(10);
        assert_eq!(read_counter(&map), 500, "retprobe {retprobe}");
    }
}

#[test]
fn kprobe_multi_with_an_unknown_function_names_the_problem() {
    if common::skip_unless_root() || common::skip_without_kprobes() || !features::has_kprobe_multi()
    {
        return;
    }
    let map = common::counter_map();
    let prog =
        common::load_spec(ProgSpec::kprobe_multi(&[], "test_kpm"), &common::counter_insns(&map));
    let err = attach_kprobe_multi(&prog, &["__x64_sys_getpid", "sonde_no_such_function"], false)
        .unwrap_err();
    assert!(matches!(err, KernelError::MultiNotProbeable { count: 2, .. }), "{err:?}");
    let err = attach_kprobe_multi(&prog, &["sonde_no_such_function"], false).unwrap_err();
    assert!(matches!(err, KernelError::NotProbeable { .. }), "{err:?}");
}
