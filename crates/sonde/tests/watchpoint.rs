//! End-to-end: `watchpoint:` hardware breakpoints. `sonde-workload poke N ADDR` maps a page at
//! ADDR, writes it N times and reads it N times, so counts are exact. The tests run one at a
//! time: the CPU has 4 debug registers, shared by every watchpoint on the machine.

mod common;

use common::{run_workload, sonde, wl, Gated, Sonde};
use std::sync::Mutex;
use std::time::Duration;

static DEBUG_REGISTERS: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    DEBUG_REGISTERS.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn writes_and_accesses_of_the_command_are_counted_exactly() {
    require_bpf!();
    let _g = one_at_a_time();
    let o = sonde(&[
        "-c",
        &wl(&["poke", "7", "0x10000000"]),
        "watchpoint:0x10000000:8:w { @w = count(); } w:0x10000000:8:rw { @rw = count(); }",
    ]);
    o.assert_ok();
    assert!(o.stderr.contains("Attached 2 probes"), "{}", o.describe());
    assert_eq!((o.int("@w"), o.int("@rw")), (7, 14), "{}", o.describe());
}

#[test]
fn a_pid_is_watched_in_its_existing_threads() {
    require_bpf!();
    let _g = one_at_a_time();
    let mut gated = Gated::spawn(&[("wl_wp_pid", &["poke", "3", "0x10000000"])]);
    let pid = gated.pid(0).to_string();
    let mut s = Sonde::new(&["-p", &pid, "watchpoint:0x10000000:8:w { @[comm] = count(); }"])
        .timeout(Duration::from_secs(30))
        .spawn();
    s.wait_attached();
    gated.go();
    gated.wait_all();
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.keyed("@", "wl_wp_pid"), "3", "{}", o.describe());
}

#[test]
fn without_a_process_every_cpu_is_watched() {
    require_bpf!();
    let _g = one_at_a_time();
    let prog = r#"watchpoint:0x10000000:8:w /comm == "wl_wp_cpu"/ { @ = count(); }"#;
    let mut s = Sonde::new(&[prog]).timeout(Duration::from_secs(30)).spawn();
    s.wait_attached();
    run_workload(&["comm", "wl_wp_cpu", "poke", "4", "0x10000000"]);
    s.signal(libc::SIGINT);
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.int("@"), 4, "{}", o.describe());
}

#[test]
fn a_fifth_watchpoint_is_refused_in_one_sentence() {
    require_bpf!();
    let _g = one_at_a_time();
    let five: String = (0..5).map(|i| format!("w:{:#x}:8:w {{ }} ", 0x10000000 + 8 * i)).collect();
    let o = sonde(&["-c", &wl(&["poke", "1", "0x10000000"]), &five]);
    o.assert_code(1);
    assert!(o.stderr.contains("no free debug register"), "{}", o.describe());
    assert!(!o.stderr.contains("panicked"), "{}", o.describe());
}

#[test]
fn a_misaligned_address_is_refused_in_one_sentence() {
    require_bpf!();
    let _g = one_at_a_time();
    let o = sonde(&["-c", &wl(&["poke", "1", "0x10000000"]), "w:0x10000003:4:w { }"]);
    o.assert_code(1);
    assert!(o.stderr.contains("multiple of the length"), "{}", o.describe());
}
