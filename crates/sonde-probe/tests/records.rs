//! `--json` records from recorded trace_pipe lines (kprobes and uprobes as the VM lane's kernels
//! print them, tracepoints and a stack as this host printed them): each line's record exactly,
//! and every record valid against docs/schema/records.schema.json.

use sonde_probe::record::record;
use sonde_schema::Schema;

fn labels() -> Vec<(String, String)> {
    [
        ("sonde_12_0", "do_filp_open"),
        ("sonde_12_1", "do_sys_openat2%return"),
        ("sonde_13_0", "ip_rcv"),
        ("sonde_14_0", "/bin/sonde-workload:sonde_workload_target"),
        ("sonde_14_1", "/bin/sonde-workload:sonde_workload_target%return"),
        ("sys_enter_getpid", "syscalls/sys_enter_getpid"),
        ("sched_process_exit", "sched/sched_process_exit"),
    ]
    .map(|(e, l)| (e.to_string(), l.to_string()))
    .to_vec()
}

const WANT: &[&str] = &[
    r#"{"type": "probe_event", "data": {"args": {"dfd": -100, "name": "/etc/hostname"}, "comm": "cat", "cpu": 0, "pid": 299, "probe": "do_filp_open", "site": "do_filp_open+0x0/0x160", "time": 11.449}}"#,
    r#"{"type": "probe_event", "data": {"args": {"ret": -2}, "comm": "cat", "cpu": 0, "pid": 299, "probe": "do_sys_openat2%return", "site": "do_sys_openat2+0x9a/0x110 <- do_filp_open", "time": 11.44912}}"#,
    r#"{"type": "probe_event", "data": {"args": {"B16_port": "0x50", "b16_seq": 1, "ip_src": "127.0.0.1", "proto": 1}, "comm": "ping", "cpu": 1, "pid": 412, "probe": "ip_rcv", "site": "ip_rcv+0x0/0x1a0", "time": 20.100001}}"#,
    r#"{"type": "probe_event", "data": {"args": {"c": "wl up", "x": 2}, "comm": "sonde-workload", "cpu": 1, "pid": 77, "probe": "/bin/sonde-workload:sonde_workload_target", "site": "0x55d0c5a0e139", "time": 30.0001}}"#,
    r#"{"type": "probe_event", "data": {"args": {"r": 4}, "comm": "sonde-workload", "cpu": 1, "pid": 77, "probe": "/bin/sonde-workload:sonde_workload_target%return", "site": "0x55d0c5a0e1a0 <- 0x55d0c5a0e139", "time": 30.00018}}"#,
    r#"{"type": "probe_event", "data": {"args": {}, "comm": "sonde-workload", "cpu": 1, "pid": 11584, "probe": "", "site": null, "text": "sys_getpid()", "time": 1931.808231}}"#,
    r#"{"type": "probe_frame", "data": {"frame": "ftrace_syscall_enter"}}"#,
    r#"{"type": "probe_frame", "data": {"frame": "syscall_trace_enter"}}"#,
    r#"{"type": "probe_frame", "data": {"frame": "do_syscall_64"}}"#,
    r#"{"type": "probe_frame", "data": {"frame": "entry_SYSCALL_64_after_hwframe"}}"#,
    r#"{"type": "probe_event", "data": {"args": {"comm": "sonde-workload", "group_dead": "true", "pid": 11621, "prio": 120}, "comm": "sonde-workload", "cpu": 1, "pid": 11621, "probe": "sched/sched_process_exit", "site": null, "time": 1931.976211}}"#,
];

#[test]
fn every_line_is_its_record_and_every_record_is_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trace_pipe.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let schema = Schema::records().unwrap_or_else(|e| panic!("{e}"));
    let labels = labels();
    let got: Vec<String> =
        text.lines().filter_map(|l| record(l, &labels)).map(|r| r.to_string()).collect();
    for line in &got {
        schema.check_line(line).unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(got, WANT, "one record a line, none for the <stack trace> heading");
}
