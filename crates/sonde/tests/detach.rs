//! End-to-end: sonde leaves no BPF program, map or link behind, however it ends.
//!
//! BPF objects are kernel-global, so this file holds a single test that runs sonde
//! serially (cargo runs test binaries one after another, so no other sonde runs
//! meanwhile). Objects other software loads or frees meanwhile are tolerated: only
//! ids that appeared during a run and remain after it count as leaks.
//!
//! This relies on `cargo test` running test binaries one at a time. Under
//! cargo-nextest, which runs binaries in parallel, run this one alone
//! (`cargo nextest run --test detach`) or give it `threads-required =
//! "num-test-threads"` in .config/nextest.toml.

mod common;

use std::time::Duration;

use common::{assert_no_bpf_objects_left, run_workload, sonde, wl, BpfObjects, Sonde};

const GETPID: &str = "tracepoint:syscalls:sys_enter_getpid";

#[test]
fn no_bpf_objects_remain() {
    require_tracepoints!();

    // 1. A program that ends itself.
    let before = BpfObjects::now();
    let o = sonde(&[r#"BEGIN { @x = count(); exit(); } END { printf("end\n"); }"#]);
    o.assert_ok();
    assert_no_bpf_objects_left("BEGIN { exit(); }", &before, &o);

    // 2. -c: ends when the command does.
    let before = BpfObjects::now();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_dc", "getpid", "10"]),
        &format!(r#"{GETPID} /comm == "wl_dc"/ {{ @[comm] = count(); @h = hist(pid); }}"#),
    ]);
    o.assert_ok();
    assert_no_bpf_objects_left("-c", &before, &o);

    // 3. Ended by each signal, while attached. Also checks that the programs were
    //    really there while it ran (so the id listing works).
    for (sig, name) in
        [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")]
    {
        let before = BpfObjects::now();
        let mut s = Sonde::new(&[&format!(
            r#"{GETPID} /comm == "wl_ds"/ {{ @n = count(); printf("hit\n"); }} interval:100ms {{ @i = count(); }}"#
        )])
        .spawn();
        s.wait_attached();
        let t0 = std::time::Instant::now();
        while BpfObjects::now().new_since(&before).progs.is_empty() {
            assert!(
                t0.elapsed() < Duration::from_secs(5),
                "no new BPF program while sonde was attached ({name})\n{}",
                s.stderr_so_far()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        run_workload(&["comm", "wl_ds", "getpid", "3"]);
        s.signal(sig);
        let o = s.wait();
        o.assert_ok();
        assert_no_bpf_objects_left(name, &before, &o);
    }

    // 4. Dry run: loads into the verifier, attaches nothing, keeps nothing.
    let before = BpfObjects::now();
    let o = Sonde::new(&["-e", &format!("{GETPID} {{ @n = count(); }}")])
        .timeout(Duration::from_secs(30))
        .run();
    o.assert_ok();
    assert_no_bpf_objects_left("--dry-run", &before, &o);

    // 5. Failures: an attach the kernel refuses after the first probe is attached
    //    (ftrace's own events exist in tracefs but take no BPF program) and a
    //    compile error.
    let before = BpfObjects::now();
    let o = sonde(&[&format!(
        "{GETPID} {{ @a = count(); }} tracepoint:ftrace:print {{ @n = count(); }}"
    )]);
    o.assert_code(1);
    assert_no_bpf_objects_left("a failed attach", &before, &o);

    let before = BpfObjects::now();
    let o = sonde(&[r#"tracepoint:syscalls:sys_enter_openat { printf("%d\n", args->nosuch); }"#]);
    o.assert_code(2);
    assert_no_bpf_objects_left("a compile error", &before, &o);

    // 6. Killed with SIGKILL: the kernel must free everything with the process
    //    (sonde must not pin objects in bpffs or leave them to a helper process).
    let before = BpfObjects::now();
    let mut s = Sonde::new(&[&format!("{GETPID} {{ @n = count(); }}")]).spawn();
    s.wait_attached();
    s.signal(libc::SIGKILL);
    let o = s.wait();
    assert_no_bpf_objects_left("SIGKILL", &before, &o);
}
