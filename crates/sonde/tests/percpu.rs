//! `percpu_kaddr("sym"[, cpu])` on this host: a per-CPU kernel variable's address, found in the
//! kernel's BTF and loaded as a `ksym` for `bpf_per_cpu_ptr`/`bpf_this_cpu_ptr`.

mod common;

use common::sonde;
use std::path::Path;

fn runnable() -> bool {
    if let Some(reason) = common::skip_reason() {
        println!("skipped: {reason}");
        return false;
    }
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        println!("skipped: no kernel BTF");
        return false;
    }
    true
}

/// Does /proc/kallsyms list the kernel's variables (CONFIG_KALLSYMS_ALL)? The verifier finds a
/// variable's address there.
fn lists_variables() -> bool {
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    let listed = text.lines().any(|l| l.ends_with(" runqueues"));
    if !listed {
        println!("skipped: /proc/kallsyms lists no variables here (no CONFIG_KALLSYMS_ALL)");
    }
    listed
}

#[test]
fn the_current_cpus_copy_is_the_copy_of_the_cpu_running_the_probe() {
    if !runnable() || !lists_variables() {
        return;
    }
    let program = r#"BEGIN {
        printf("%d %d %d\n",
            *percpu_kaddr("process_counts") == *percpu_kaddr("process_counts", cpu),
            percpu_kaddr("process_counts") == percpu_kaddr("process_counts", cpu),
            percpu_kaddr("process_counts", 1000000) == 0);
        exit(); }"#;
    let o = sonde(&[program]);
    o.assert_ok();
    assert_eq!(o.stdout.trim(), "1 1 1", "{}", o.describe());
}

#[test]
fn a_struct_variable_is_typed_from_btf() {
    if !runnable() || !lists_variables() {
        return;
    }
    // Each CPU's run queue names its own CPU.
    let program = r#"BEGIN { $rq = percpu_kaddr("runqueues", 0); printf("%d %d\n", $rq->cpu, $rq != 0); exit(); }"#;
    let o = sonde(&[program]);
    o.assert_ok();
    assert_eq!(o.stdout.trim(), "0 1", "{}", o.describe());
}

#[test]
fn a_name_btf_does_not_have_is_refused() {
    if !runnable() {
        return;
    }
    let o = sonde(&[r#"BEGIN { print(percpu_kaddr("no_such_percpu_var")); exit(); }"#]);
    o.assert_code(2);
    let want = "percpu_kaddr(): the kernel's BTF has no variable `no_such_percpu_var`";
    assert!(o.stderr.contains(want), "{}", o.describe());
}

#[test]
fn a_kernel_without_its_variables_in_kallsyms_is_told_why() {
    let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
    if !runnable() || text.lines().any(|l| l.ends_with(" runqueues")) {
        return;
    }
    let o = sonde(&[r#"BEGIN { print(*percpu_kaddr("runqueues", 0)); exit(); }"#]);
    o.assert_code(2);
    let want = "percpu_kaddr(): `runqueues` is not in /proc/kallsyms, where the verifier finds a \
        kernel variable's address (this kernel lists variables only with CONFIG_KALLSYMS_ALL)";
    assert!(o.stderr.contains(want), "{}", o.describe());
}
