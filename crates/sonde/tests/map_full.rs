//! End-to-end: a full map is no silent miss (issue 22 §3). Updates the kernel refuses because a
//! map holds its 4096 entries are counted per map in the kernel and reported: at the end, as
//! the `map_full` JSON record, and each second with `-d`.

mod common;

use common::{sonde, wl};
use sonde_schema::Schema;

const WARNING_END: &str = "the map was full (4096 entries); raise its size with `let @ = hash(N);` before the probes, or keep the newest with `lruhash(N)`";

#[test]
fn more_keys_than_the_map_holds_are_counted_and_reported() {
    require_tracepoints!();
    // 10,000 calls, each its own key: 4,096 are kept, 5,904 refused; @n counts every call.
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_full", "getpid", "10000"]),
        r#"tracepoint:syscalls:sys_enter_getpid /comm == "wl_full"/ { @[nsecs] = count(); @n = count(); }"#,
    ]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 10_000, "{}", o.describe());
    let kept = o.lines().iter().filter(|l| l.starts_with("@[")).count();
    assert_eq!(kept, 4096, "{}", o.describe());
    let want = format!("sonde: warning: @: 5904 updates dropped: {WARNING_END}");
    assert!(o.stderr.lines().any(|l| l == want), "{}", o.describe());
    // A map that never fills (@n, one key) says nothing.
    assert_eq!(o.stderr.matches("dropped").count(), 1, "{}", o.describe());
}

#[test]
fn a_full_map_is_a_json_record() {
    require_tracepoints!();
    let o = sonde(&[
        "-f",
        "json",
        "-c",
        &wl(&["comm", "wl_fullj", "getpid", "5000"]),
        r#"tracepoint:syscalls:sys_enter_getpid /comm == "wl_fullj"/ { @x[nsecs] = count(); }"#,
    ]);
    o.assert_ok();
    let schema = Schema::records().unwrap_or_else(|e| panic!("{e}"));
    let full: Vec<&str> = o.lines().into_iter().filter(|l| l.contains("\"map_full\"")).collect();
    assert_eq!(
        full,
        [r#"{"type": "map_full", "data": {"dropped": 904, "map": "@x", "max_entries": 4096}}"#],
        "{}",
        o.describe()
    );
    schema.check_line(full[0]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn with_d_a_full_map_is_reported_each_second() {
    require_tracepoints!();
    // 904 refused at once, then 1,000 more after 2.5 s: the second's report says the first
    // count, the end the rest.
    let cmd = wl(&["comm", "wl_fulld", "getpid", "5000", "sleep", "2500", "getpid", "1000"]);
    let o = sonde(&[
        "-d",
        "-c",
        &cmd,
        r#"tracepoint:syscalls:sys_enter_getpid /comm == "wl_fulld"/ { @[nsecs] = count(); }"#,
    ]);
    o.assert_ok();
    let counts: Vec<u64> = o
        .stderr
        .lines()
        .filter_map(|l| l.strip_prefix("sonde: warning: @: "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(counts.len() >= 2, "one report a second, one at the end: {}", o.describe());
    assert_eq!(counts.iter().sum::<u64>(), 1904, "{}", o.describe());
}
