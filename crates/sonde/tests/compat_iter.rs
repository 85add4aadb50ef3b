//! The compatibility lane's typed syscall pointers, map iteration, script-level types and
//! positional parameters in probe specs: tests/compat/{typed_args,map_for,script_types,
//! probe_params}.bt (our own scripts in bpftrace's syntax) run against the workload with exact
//! output.

mod common;

use common::{sonde, wl};

fn script(name: &str) -> String {
    format!("{}/../../tests/compat/{}", env!("CARGO_MANIFEST_DIR"), name)
}

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
