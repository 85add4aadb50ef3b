//! End-to-end: every face keeps the run lifecycle's promises (crates/sonde/src/run), because they
//! live in one place: the privilege sentence before any kernel interface refuses, a clean stop on
//! SIGINT and SIGTERM with nothing left attached, the exit-status rule.

mod common;

use common::{BpfObjects, Sonde};
use std::time::Duration;

const NEEDS_ROOT_BPF: &str = "sonde: needs root (or the capabilities CAP_BPF and CAP_PERFMON, with read access to tracefs): \
sonde loads BPF programs into the kernel and attaches them to kernel events, which only a privileged user may do\n";

const NEEDS_ROOT_TRACEFS: &str = "sonde: needs root (or the capability CAP_SYS_ADMIN, with write access to tracefs): \
sonde creates kernel trace events and sets the kernel's tracers through tracefs, which only a privileged user may do\n";

#[test]
fn every_face_says_the_privilege_sentence_first() {
    let serve_dir = common::temp_path("serve-nobody");
    std::fs::create_dir_all(&serve_dir).unwrap();
    let program = serve_dir.join("count.bt");
    std::fs::write(&program, "tracepoint:syscalls:sys_enter_getpid { @calls = count(); }\n")
        .unwrap();
    // World-readable, so `nobody` gets as far as the privilege check.
    let _ = std::process::Command::new("chmod").args(["-R", "a+rX"]).arg(&serve_dir).status();
    let program = program.to_str().unwrap();
    let faces: [(&[&str], &str); 5] = [
        (&["tracepoint:syscalls:sys_enter_getpid { @ = count(); }"], NEEDS_ROOT_BPF),
        (&["trace", "-e", "getpid", "--", "true"], NEEDS_ROOT_BPF),
        (&["serve", "--listen", "127.0.0.1:0", program], NEEDS_ROOT_BPF),
        (&["probe", "p vfs_read"], NEEDS_ROOT_TRACEFS),
        (&["graph", "vfs_read", "--", "true"], NEEDS_ROOT_TRACEFS),
    ];
    for (args, sentence) in faces {
        let Some(o) = common::as_nobody("", args) else { return };
        o.assert_code(1);
        assert_eq!(o.stderr, sentence, "{}", o.describe());
    }
    let _ = std::fs::remove_dir_all(&serve_dir);
}

/// SIGINT and SIGTERM stop each BPF face cleanly on this host: the normal exit status, and no
/// BPF program of the run left in the kernel.
#[test]
fn sigint_and_sigterm_stop_every_bpf_face_cleanly() {
    if common::trace::skip() {
        return;
    }
    let faces: [&[&str]; 2] = [
        &["tracepoint:syscalls:sys_enter_getppid { @ = count(); }"],
        &["trace", "-e", "getppid", "-o", "/dev/null", "--", "sleep", "30"],
    ];
    for args in faces {
        for sig in [libc::SIGINT, libc::SIGTERM] {
            let before = BpfObjects::now();
            let run = Sonde::new(args).timeout(Duration::from_secs(30)).spawn();
            wait_for_programs(&before);
            run.signal(sig);
            let o = run.wait();
            o.assert_ok();
            // Raw tracepoint links free their programs after a grace period: give it that.
            let left = common::leftover_bpf_objects(&before);
            assert!(
                left.as_ref().is_none_or(|l| l.progs.is_empty()),
                "{args:?} left {left:?}\n{}",
                o.describe()
            );
        }
    }
}

/// A program whose `system()` commands fire its own probe again (each command's processes switch
/// the CPU) never runs dry; SIGINT still ends it at once, its queued commands not run, and END
/// runs (bpftrace's `sigint under heavy load`).
#[test]
fn sigint_ends_a_run_whose_system_commands_refill_its_queue() {
    if let Some(reason) = common::skip_reason_tracepoints() {
        eprintln!("skipped: {}", reason);
        return;
    }
    let before = BpfObjects::now();
    let program = r#"tracepoint:sched:sched_switch { system("echo foo"); } END { print("end"); }"#;
    let run = Sonde::new(&["--unsafe", program]).timeout(Duration::from_secs(60)).spawn();
    wait_for_programs(&before);
    std::thread::sleep(Duration::from_millis(700));
    let asked = std::time::Instant::now();
    run.signal(libc::SIGINT);
    let o = run.wait();
    o.assert_ok();
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "took {:?}\n{}",
        asked.elapsed(),
        o.describe()
    );
    assert!(o.stdout.contains("foo\n") && o.stdout.contains("end\n"), "{}", o.describe());
    assert!(
        o.stderr.contains("the system() commands still queued are not run"),
        "{}",
        o.describe()
    );
}

/// Waits until a BPF program appeared since `before` (the face has loaded and is attaching).
fn wait_for_programs(before: &BpfObjects) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while BpfObjects::now().new_since(before).progs.is_empty() {
        assert!(std::time::Instant::now() < deadline, "no program was loaded in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    // `Attached` follows loading within milliseconds; the signal should find the loop running.
    std::thread::sleep(Duration::from_millis(300));
}

/// BEGIN runs before the probes attach, as bpftrace's does: what it sets is there for the
/// first event any probe sees (sonde's own write of its attach line, at the latest).
#[test]
fn begin_runs_before_the_probes_attach() {
    if let Some(reason) = common::skip_reason_tracepoints() {
        eprintln!("skipped: {}", reason);
        return;
    }
    let program = "BEGIN { @begun = 1; } \
        tracepoint:syscalls:sys_enter_write /@first == 0/ { @first = 1; @seen_begun = @begun; } \
        interval:ms:100 { exit(); }";
    let o = Sonde::new(&[program]).timeout(Duration::from_secs(30)).run();
    o.assert_ok();
    assert!(o.stdout.contains("@seen_begun: 1\n"), "{}", o.describe());
}

/// bpftrace's `self:signal:SIGUSR1` probes run, in the program's order, when sonde receives
/// SIGUSR1 (which then does not print the maps).
#[test]
fn sigusr1_runs_the_programs_signal_probes_in_order() {
    if let Some(reason) = common::skip_reason() {
        eprintln!("skipped: {}", reason);
        return;
    }
    let before = BpfObjects::now();
    let program = "BEGIN { @m = 1; } self:signal:SIGUSR1 { printf(\"first\"); } \
        self:signal:SIGUSR1 { printf(\" second\\n\"); exit(); }";
    let run = Sonde::new(&[program]).timeout(Duration::from_secs(30)).spawn();
    wait_for_programs(&before);
    run.signal(libc::SIGUSR1);
    let o = run.wait();
    o.assert_ok();
    assert!(o.stdout.starts_with("first second\n"), "{}", o.describe());
    // The maps print once, at the end.
    assert_eq!(o.stdout.matches("@m: 1").count(), 1, "{}", o.describe());
}
