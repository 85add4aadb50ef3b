//! `sonde -T`: the report is one line per fact and per provider, and each provider's verdict is
//! what a script using it gets from sonde: the same success, or the same sentence.

mod common;

use common::{assert_no_bpf_objects_left, skip_reason, sonde, BpfObjects};
use std::sync::Mutex;

/// The tests run one at a time, so the leak check sees only its own run's objects.
static SERIAL: Mutex<()> = Mutex::new(());

/// The providers the self-test tries, by the name it reports, with a script using each.
const PROVIDERS: &[(&str, &str)] = &[
    ("tracepoint", "tracepoint:syscalls:sys_enter_getpid { @ = count(); }"),
    ("profile", "profile:hz:99 { @ = count(); }"),
    ("kprobe", "kprobe:vfs_read { @ = count(); }"),
    ("kretprobe", "kretprobe:vfs_read { @ = count(); }"),
    ("fentry", "fentry:vfs_read { @ = count(); }"),
    ("fexit", "fexit:vfs_read { @ = count(); }"),
    ("uprobe", "uprobe:libc:getpid { @ = count(); }"),
    ("iter", "iter:task { @ = count(); }"),
    ("watchpoint", "watchpoint:0x10000000:8:w { @ = count(); }"),
];

#[test]
fn each_provider_verdict_is_what_a_script_gets() {
    if let Some(r) = skip_reason() {
        println!("skipped: {r}");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = sonde(&["-T", "-f", "json"]);
    let lines = o.lines();
    assert_eq!(lines.len(), 1, "one JSON object\n{}", o.describe());
    let schema = sonde_schema::Schema::records().unwrap();
    let record = schema.check_line(lines[0]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record["type"], "self_test");
    let report = &record["data"];
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(report["kernel"]["release"], release.trim());
    let providers = report["providers"].as_array().unwrap();
    for (name, program) in PROVIDERS {
        let p = providers
            .iter()
            .find(|p| p["name"] == *name)
            .unwrap_or_else(|| panic!("no provider {name} in {report}"));
        let script = sonde(&[&format!("{program} BEGIN {{ exit(); }}")]);
        let ok = script.code == Some(0);
        assert_eq!(p["ok"], ok, "{name}: {p}\nthe script:\n{}", script.describe());
        if !ok {
            let said = script.stderr.lines().find_map(|l| l.strip_prefix("sonde: ")).unwrap();
            assert_eq!(p["detail"], said, "{name}");
            assert!(p["fix"].as_str().is_some_and(|f| !f.is_empty()), "{name}: {p}");
        }
    }
    // Exit 0 exactly when everything needed works; what is missing is named.
    let missing: Vec<&str> =
        report["missing"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    let failed_needed = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .chain(providers)
        .any(|c| c["needed"] == true && c["ok"] == false);
    assert_eq!(o.code, Some(if failed_needed { 1 } else { 0 }), "{}", o.describe());
    for p in providers.iter().filter(|p| p["ok"] == false) {
        assert!(missing.contains(&p["name"].as_str().unwrap()), "{p} not in {missing:?}");
    }
}

#[test]
fn this_hosts_missing_kprobes_and_fentry_are_said() {
    // The development host (6.18) has no kprobes and refuses fentry; elsewhere the lines are ok.
    if let Some(r) = skip_reason() {
        println!("skipped: {r}");
        return;
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let before = BpfObjects::now();
    let o = sonde(&["-T"]);
    assert_no_bpf_objects_left("sonde -T", &before, &o);
    let kprobes = std::path::Path::new("/sys/bus/event_source/devices/kprobe/type").exists()
        || std::path::Path::new("/sys/kernel/tracing/kprobe_events").exists();
    let line = |name: &str| -> String {
        let prefix = |v: &str| format!("  {v:<8} {name:<20} ");
        o.lines()
            .into_iter()
            .find(|l| l.starts_with(&prefix("ok")) || l.starts_with(&prefix("missing")))
            .unwrap_or_else(|| panic!("no line for {name}\n{}", o.describe()))
            .to_string()
    };
    if !kprobes {
        assert!(line("kprobes").starts_with("  missing"), "{}", o.describe());
        assert!(line("kprobe").contains("this kernel has no kprobes"), "{}", o.describe());
        assert!(o.stdout.contains("-> a kernel built with CONFIG_KPROBES=y"), "{}", o.describe());
    } else {
        assert!(line("kprobes").starts_with("  ok"), "{}", o.describe());
    }
    let fentry = sonde(&["fentry:vfs_read { @ = count(); } BEGIN { exit(); }"]);
    let verdict = if fentry.code == Some(0) { "  ok" } else { "  missing" };
    assert!(line("fentry").starts_with(verdict), "{}\n{}", o.describe(), fentry.describe());
    assert!(line("fentry").contains("fentry:vfs_read"), "{}", o.describe());
    assert!(o.lines().last().unwrap().starts_with("sonde can"), "{}", o.describe());
    assert!(o.stdout.starts_with("sonde self-test: Linux "), "{}", o.describe());
}
