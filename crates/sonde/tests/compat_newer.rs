//! The compatibility lane for bpftrace's newer spellings: strcontains(), bools, script enums
//! printed by name, nsecs(clock), strlen(), pton(), signal_name(), macaddr() and `__builtin_` names
//! (tests/compat/newer.bt, our own script), with exact output; and `-l` of the timer and
//! software providers.

mod common;

use common::compat_script as script;
use common::sonde;

#[test]
fn newer_builtins_print_as_bpftrace_does() {
    require_bpf!();
    let o = sonde(&[&script("newer.bt")]);
    o.assert_ok();
    let want = "\
(true, true, false)
(true, true, false, false)
(true, true)
(true, false, true, false)
1 LOW 2 MAX 7
(true, 16, 0)
100007f 10.1.2.3 ::1
Interrupt|Unknown signal 0|N/A
usermode 1
Hello\\x00 hi


@c: 1

@level: HIGH

@levels[LOW, MAX]: 2

@mac[00:1A:2B:3C:4D:5E]: 1

@seen[true]: false

";
    assert_eq!(o.stdout, want, "{}", o.describe());
}

#[test]
fn bools_are_json_booleans() {
    require_bpf!();
    let o = sonde(&["-f", "json", &script("newer.bt")]);
    o.assert_ok();
    let lines = o.lines();
    assert!(
        lines.contains(&"{\"type\": \"value\", \"data\": [true,true,false]}"),
        "{}",
        o.describe()
    );
    assert!(
        lines.contains(&"{\"type\": \"value\", \"data\": [true,false,true,false]}"),
        "{}",
        o.describe()
    );
}

#[test]
fn nsecs_reads_the_tai_clock() {
    require_bpf!();
    // TAI is wall-clock time (seconds since 1970, ahead of UTC), far past the boot clock.
    let prog = "BEGIN { $tai = nsecs(tai); $boot = nsecs(boot); printf(\"%d\\n\", $tai > $boot * 1000); exit(); }";
    let o = sonde(&[prog]);
    if o.stderr.contains("needs a newer kernel") {
        println!("skipped: bpf_ktime_get_tai_ns is Linux 6.1+");
        return;
    }
    o.assert_ok();
    assert_eq!(o.stdout, "1\n\n\n", "{}", o.describe());
}

#[test]
fn enums_are_numbers_in_json() {
    require_bpf!();
    let o = sonde(&["-f", "json", "enum { FOO = 333 }; BEGIN { $f = FOO; print($f); exit(); }"]);
    o.assert_ok();
    assert!(o.lines().contains(&"{\"type\": \"value\", \"data\": 333}"), "{}", o.describe());
}

#[test]
fn list_names_timer_and_software_probes() {
    require_bpf!();
    let o = sonde(&["-l", "interval:*"]);
    o.assert_ok();
    assert_eq!(
        o.stdout,
        "interval:hz:\ninterval:ms:\ninterval:s:\ninterval:us:\n",
        "{}",
        o.describe()
    );
    let o = sonde(&["-l", "s:cpu*"]);
    o.assert_ok();
    let want = "software:cpu-clock:\nsoftware:cpu-migrations:\nsoftware:cpu:\n";
    assert_eq!(o.stdout, want, "{}", o.describe());
    let o = sonde(&["-l", "*ware:page-faults"]);
    o.assert_ok();
    assert_eq!(o.stdout, "software:page-faults:\n", "{}", o.describe());
    // bpftrace's hardware events are listed whether or not this machine's CPUs count them.
    let o = sonde(&["-l", "*ware:*cycles"]);
    o.assert_ok();
    let want =
        "hardware:bus-cycles:\nhardware:cpu-cycles:\nhardware:cycles:\nhardware:ref-cycles:\n";
    assert_eq!(o.stdout, want, "{}", o.describe());
    let o = sonde(&["-l", "h:cache-misses"]);
    o.assert_ok();
    assert_eq!(o.stdout, "hardware:cache-misses:\n", "{}", o.describe());
}
