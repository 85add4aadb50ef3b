//! `sonde probe` on the host (tracepoints and uprobes: no kprobes here; kprobes are in the
//! VM lane, tests/vm/cases/probe_face_*.sh): `--to-language` prints programs the language
//! compiles and the verifier loads (`sonde -e`); `-c` and `-p` record only their process and stop
//! when it exits; `--json` prints one object per event.

mod common;

use common::{sonde, spawn_workload, wl, Sonde, TIMEOUT};
use std::time::Duration;

const EXPRS: [&str; 7] = [
    "p do_filp_open dfd=%0 name=%1->name f:dfd==-100",
    "r do_sys_openat2 ret=$retval f:ret<0",
    "p wake_up_new_task comm=%0->comm users=S%0->mm->mm_users node=%0->se.run_node.rb_left c=$comm f:comm==\"sh\"",
    "p do_filp_open+4 pos=X!(struct file *)%ax->f_pos",
    "p ip_rcv proto=@(struct iphdr *)l3%0->protocol ip_src=@(struct iphdr *)%0->saddr type=@(struct icmphdr *)l3%0->type b16_seq=@(struct icmphdr *)l3%0->un.echo.sequence f:proto==1&&ip_src==127.0.0.1",
    "e syscalls/sys_enter_openat f:dfd==-100 && common_pid!=1",
    "P libc:fopen p=X%0",
];

#[test]
fn printed_programs_pass_the_verifier() {
    require_tracepoints!();
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        println!("skipped: no kernel BTF");
        return;
    }
    for e in EXPRS {
        let o = sonde(&["probe", "--to-language", e]);
        o.assert_ok();
        let program = o.stdout.trim().to_string();
        assert_eq!(program.lines().count(), 1, "{}", o.describe());
        let run = sonde(&["-e", &program]);
        assert!(
            run.code == Some(0) && run.stderr.contains("passed the verifier"),
            "{e}\n  became {program}\n{}",
            run.describe()
        );
    }
}

/// The `data` of each record of a `--json` run, checked to be a `probe_event`.
fn event_data(line: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(v["type"], "probe_event", "{line}");
    v["data"].clone()
}

/// The JSON events of a run, checked to be of `pid` and `comm`.
fn events(stdout: &str, pid: Option<u64>, comm: &str) -> usize {
    let mut n = 0;
    for line in stdout.lines() {
        let v = event_data(line);
        assert_eq!(v["probe"], "syscalls/sys_enter_getpid", "{line}");
        assert_eq!(v["comm"], comm, "another process was recorded: {line}");
        if let Some(p) = pid {
            assert_eq!(v["pid"].as_u64(), Some(p), "{line}");
        }
        assert!(v["time"].as_f64().is_some() && v["cpu"].is_u64(), "{line}");
        n += 1;
    }
    n
}

#[test]
fn dash_c_records_only_its_command_and_ends_with_it() {
    require_tracepoints!();
    // Another process making the same calls meanwhile must not show.
    let _other = spawn_workload(&["comm", "wl_pother", "getpid", "20000000"]);
    let o = sonde(&[
        "probe",
        "--json",
        "-c",
        &wl(&["comm", "wl_pc", "getpid", "5"]),
        "e syscalls/sys_enter_getpid",
    ]);
    o.assert_ok();
    assert_eq!(events(&o.stdout, None, "wl_pc"), 5, "{}", o.describe());
}

#[test]
fn dash_p_records_only_its_process_and_ends_with_it() {
    require_tracepoints!();
    let gate = common::temp_path("probe_p_gate");
    let _ = std::fs::remove_file(&gate);
    let g = gate.to_str().unwrap();
    let mut w = spawn_workload(&["comm", "wl_pp", "waitfile", g, "getpid", "7"]);
    let _other = spawn_workload(&["comm", "wl_pother2", "getpid", "20000000"]);
    let pid = w.pid().to_string();
    let mut s = Sonde::new(&["probe", "--json", "-p", &pid, "e syscalls/sys_enter_getpid"]).spawn();
    s.wait_stderr("Tracing", Duration::from_secs(30));
    std::fs::write(&gate, "go").unwrap();
    w.wait(TIMEOUT);
    let o = s.wait();
    let _ = std::fs::remove_file(&gate);
    o.assert_ok();
    assert_eq!(events(&o.stdout, Some(w.pid() as u64), "wl_pp"), 7, "{}", o.describe());
}

#[test]
fn dash_p_of_no_process_is_one_sentence() {
    let o = sonde(&["probe", "-p", "999999999", "e syscalls/sys_enter_getpid"]);
    o.assert_code(2);
    assert!(o.stderr.contains("-p 999999999: no process has that pid"), "{}", o.describe());
}

#[test]
fn a_filter_number_wider_than_64_bits_is_refused_before_tracefs() {
    if common::tracefs().is_none() {
        println!("skipped: tracefs is not mounted");
        return;
    }
    let o = sonde(&["probe", "--show", "e syscalls/sys_enter_openat f:dfd==99999999999999999999"]);
    o.assert_code(2);
    assert_eq!(
        o.stderr,
        "sonde: the filter `dfd==99999999999999999999` does not parse: `99999999999999999999` is wider than 64 bits\n",
        "{}",
        o.describe()
    );
    assert!(o.stdout.is_empty(), "{}", o.describe());
}

/// `(name, value)` of every `args` member of a `--json` run, in order.
fn args(stdout: &str) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let v = event_data(line);
        for (k, x) in v["args"].as_object().unwrap() {
            if let Some(n) = x.as_i64() {
                out.push((k.clone(), n));
            }
        }
    }
    out
}

#[test]
fn uprobe_arguments_return_values_and_a_string_filter() {
    require_tracepoints!();
    let wl_path = common::workload().to_str().unwrap().to_string();
    let entry = format!("P {wl_path}:sonde_workload_target x=%0 c=$comm f:c==\"wl_up\" && x>1");
    let ret = format!("R {wl_path}:sonde_workload_target r=S$retval");
    let o = sonde(&["probe", "--json", "-c", &wl(&["comm", "wl_up", "ucall", "3"]), &entry, &ret]);
    o.assert_ok();
    let got = args(&o.stdout);
    let want: Vec<(String, i64)> =
        [("r", 2), ("x", 2), ("r", 4), ("x", 3), ("r", 6)].map(|(k, v)| (k.into(), v)).to_vec();
    assert_eq!(got, want, "{}", o.describe());
    // The other way round, the string filter lets nothing through.
    let entry = format!("P {wl_path}:sonde_workload_target x=%0 c=$comm f:c!=\"wl_up\"");
    let o = sonde(&["probe", "--json", "-c", &wl(&["comm", "wl_up", "ucall", "3"]), &entry]);
    o.assert_ok();
    assert_eq!(o.stdout, "", "{}", o.describe());
}

/// A cast in a uprobe reads the program's own `struct pt` (its DWARF, from `cc -g`): members at
/// the program's offsets, a bitfield, a string and a pointer followed; a binary built without
/// `-g` gets one sentence, and the kernel's types are never used. (The language's uprobes:
/// tests/user_types.rs.)
#[test]
fn uprobe_casts_read_the_programs_own_types() {
    if let Some(reason) = common::skip_reason_uprobes() {
        println!("skipped: {reason}");
        return;
    }
    let (with, without) = (common::temp_path("tprog"), common::temp_path("tprog-nodebug"));
    let (with, without) = (common::build_tprog(&with, "-g"), common::build_tprog(&without, "-g0"));
    let expr = format!(
        "P {with}:work x=!(struct pt *)%0->x y=!(struct pt *)%0->y n=!(struct pt *)%0->name m=!(struct pt *)%0->mode nx=!(struct pt *)%0->next->name"
    );
    let o = sonde(&["probe", "--json", "-c", &format!("{with} 2"), &expr]);
    o.assert_ok();
    let lines: Vec<_> = o.stdout.lines().filter(|l| l.contains("probe_event")).collect();
    assert_eq!(lines.len(), 2, "{}", o.describe());
    let args = &event_data(lines[0])["args"];
    assert_eq!(
        (&args["x"], &args["y"], &args["n"], &args["m"], &args["nx"]),
        (&42.into(), &(-5).into(), &"first".into(), &17.into(), &"second".into()),
        "{}",
        o.describe()
    );
    let o = sonde(&["probe", "--show", &format!("P {without}:work x=!(struct pt *)%0->x")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains("has no type information"), "{}", o.describe());
    assert!(o.stderr.contains("the kernel's types do not apply"), "{}", o.describe());
    let _ = (std::fs::remove_file(&with), std::fs::remove_file(&without));
}
