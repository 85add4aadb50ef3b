//! The compatibility lane's typed syscall pointers, map iteration, script-level types and
//! positional parameters in probe specs: tests/compat/{typed_args,map_for,script_types,
//! probe_params}.bt (our own scripts in bpftrace's syntax) run against the workload with exact
//! output.

mod common;

use common::{sonde, wl};

use common::compat_script as script;

#[test]
fn typed_syscall_pointers_run() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_typed", "sleep", "1250"]);
    let o = sonde(&["-c", &cmd, &script("typed_args.bt")]);
    o.assert_ok();
    // The timespec the workload passed: 1 s and 250 ms, read through `->`, `.`, a map and a variable.
    assert!(o.stdout.contains("slept 1.250\n"), "{}", o.describe());
    assert_eq!(o.int("@sec"), 1, "{}", o.describe());
    assert_eq!(o.int("@nsec"), 250_000_000, "{}", o.describe());
}

#[test]
fn map_iteration_runs() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_mapfor", "getppid", "7"]);
    let o = sonde(&["-c", &cmd, &script("map_for.bt")]);
    o.assert_ok();
    // begin sums the values 1 + 4 + 9 through a variable the body updates.
    assert!(o.stdout.contains("sum=14\n"), "{}", o.describe());
    // Each of the 7 calls visits the 3 elements once: aggregations and variables in the body.
    for k in 1..=3 {
        assert!(o.stdout.contains(&format!("@visits[{}]: 7\n", k)), "{}", o.describe());
    }
    assert_eq!(o.int("@twos"), 7, "{}", o.describe());
    assert_eq!(o.int("@seen"), 3, "{}", o.describe());
    // end: a two-key map's key as a tuple; `return` in the body leaves the probe.
    assert!(o.stdout.contains("wl_mapfor getppid 7\nfound 2\n"), "{}", o.describe());
    assert!(!o.stdout.contains("not reached"), "{}", o.describe());
}

#[test]
fn script_types_run() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_structs", "sleep", "1250"]);
    let o = sonde(&["-c", &cmd, &script("script_types.bt")]);
    o.assert_ok();
    // The workload's timespec through the script's `struct ts *`; enum constants divide.
    assert!(o.stdout.contains("sec=1 ms=250 us=250000\n"), "{}", o.describe());
    // C's layout: struct wrap is int@0, char[3]@4, pointer@8, short@16, 24 bytes in all.
    assert!(o.stdout.contains("@sizes: (16, 24, 8)\n"), "{}", o.describe());
    // Enumerators count on from the last value, negative ones too; they print by name, as
    // bpftrace's do, and as numbers with %d.
    assert!(o.stdout.contains("units 1 60 61 -2 -1\n"), "{}", o.describe());
    assert!(o.stdout.contains("@units: (SEC, MIN, NEXT, NEG, AFTER)\n"), "{}", o.describe());
}

#[test]
fn positional_parameters_in_probe_specs_run() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_pspec", "getppid", "7"]);
    let path = script("probe_params.bt");
    let o = sonde(&["-c", &cmd, &path, "wl_pspec", "getppid"]);
    o.assert_ok();
    // `tracepoint:syscalls:sys_enter_$2` is sys_enter_getppid: the workload's 7 calls.
    assert_eq!(o.int("@calls"), 7, "{}", o.describe());
    // str($1 + K): "wl_pspec" from byte 3, from byte 7, and empty at its end.
    assert!(o.stdout.contains("pspec|c|\n"), "{}", o.describe());
    // Without the second parameter the spec cannot be completed: refused before anything loads.
    let o = sonde(&["-e", &path, "wl_pspec"]);
    assert!(!o.status.success(), "{}", o.describe());
    assert!(
        o.stderr.contains("the probe spec uses `$2`, but 1 positional parameter was given"),
        "{}",
        o.describe()
    );
}

#[test]
fn aggregations_read_in_probes_combine_their_cpus() {
    require_tracepoints!();
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        eprintln!("skipped: needs two CPUs");
        return;
    }
    let cmd = wl(&["comm", "wl_aggread", "cpu", "0", "getppid", "3", "cpu", "1", "getppid", "4"]);
    let o = sonde(&["-c", &cmd, &script("agg_read.bt")]);
    o.assert_ok();
    // One CPU's values alone never reach 5 (the fifth call is CPU 1's second) or 7.
    assert!(o.stdout.contains("fifth call\n"), "{}", o.describe());
    assert!(o.stdout.contains("n=7 bytes=70 lo=1 hi=7\n"), "{}", o.describe());
    assert!(o.stdout.contains("for 7 70\n"), "{}", o.describe());
}
