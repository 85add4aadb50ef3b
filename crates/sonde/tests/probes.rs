//! End-to-end: the providers beyond tracepoints that this host can run: uprobes and uretprobes
//! (on `sonde-workload`'s exported `sonde_workload_target`, and on libc found by name), `-p`
//! with uprobes, `profile:` and `software:` perf events, BTF-typed `curtask` and casts to kernel
//! types; and the errors for what this host cannot do (kprobes, fentry) or what does not exist.
//!
//! `ucall N` calls `sonde_workload_target(i)` for i = 1..=N (it returns 2*i) and `libc-getpid N`
//! calls libc's getpid() N times, so counts, sums and return values are exact.
//!
//! Tests run in parallel and filter on their own `-c` process (`pid == cpid`), comm (`wl_u*`)
//! or `-p`. The one test that checks that nothing is left in the kernel (BPF objects are
//! kernel-global) takes [`BPF_OBJECTS`] exclusively; every other test holds it shared.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use common::{
    assert_no_bpf_objects_left, run_workload, sonde, sonde_bin, spawn_workload, traced_ok, tracefs,
    workload, BpfObjects, Gated, Output, Sonde,
};

// ---------------------------------------------------------------- helpers

/// Held shared by every test that runs sonde, exclusively by the leak check.
static BPF_OBJECTS: RwLock<()> = RwLock::new(());

fn shared() -> RwLockReadGuard<'static, ()> {
    BPF_OBJECTS.read().unwrap_or_else(|e| e.into_inner())
}

fn exclusive() -> RwLockWriteGuard<'static, ()> {
    BPF_OBJECTS.write().unwrap_or_else(|e| e.into_inner())
}

/// Why uprobes cannot run here (on top of [`common::skip_reason`]).
fn skip_reason_uprobes() -> Option<String> {
    if let Some(r) = common::skip_reason() {
        return Some(r);
    }
    let pmu = Path::new("/sys/bus/event_source/devices/uprobe/type").is_file();
    let events = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
        .iter()
        .any(|t| Path::new(t).join("uprobe_events").exists());
    if !pmu && !events {
        return Some("the kernel has no uprobes (no uprobe PMU, no uprobe_events)".into());
    }
    None
}

macro_rules! require_uprobes {
    () => {
        if let Some(reason) = skip_reason_uprobes() {
            println!("skipped: {reason}");
            return;
        }
    };
}

/// The kernel's BTF, which `curtask`, casts and fentry need.
macro_rules! require_btf {
    () => {
        if !Path::new("/sys/kernel/btf/vmlinux").exists() {
            println!("skipped: no kernel BTF (/sys/kernel/btf/vmlinux)");
            return;
        }
    };
}

fn workload_path() -> String {
    workload().to_str().expect("utf-8 workload path").to_string()
}

/// `uprobe:/path/to/sonde-workload:sonde_workload_target` (or `uretprobe:...`).
fn target(kind: &str) -> String {
    format!("{kind}:{}:sonde_workload_target", workload_path())
}

/// All `MAP[KEY]: VALUE` lines of one map, as key -> value text.
fn entries(o: &Output, map: &str) -> BTreeMap<String, String> {
    let prefix = format!("{map}[");
    o.stdout
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.rsplit_once("]: "))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect()
}

/// Like [`entries`], values parsed as integers.
#[track_caller]
fn int_entries(o: &Output, map: &str) -> BTreeMap<String, i64> {
    entries(o, map)
        .into_iter()
        .map(|(k, v)| {
            let n = v.parse().unwrap_or_else(|_| {
                panic!("`{map}[{k}]: {v}` is not an integer\n{}", o.describe())
            });
            (k, n)
        })
        .collect()
}

/// The pid of a workload that has exited and been reaped (so no process has it, for now).
fn dead_pid() -> String {
    let mut w = spawn_workload(&["exit", "0"]);
    assert!(w.wait(Duration::from_secs(30)).success());
    w.pid().to_string()
}

/// stderr's non-empty lines.
fn stderr_lines(o: &Output) -> Vec<&str> {
    o.stderr.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// A program sonde must reject before touching the kernel: exit 2, the usual compile-error
/// trailer, no `Attached`, and every needle in stderr. Run with `-e`, so that a program sonde
/// wrongly accepts fails the test at once instead of tracing until the timeout; and holding
/// [`BPF_OBJECTS`] shared, since such a program is loaded into the kernel.
#[track_caller]
fn compile_error(prog: &str, needles: &[&str]) -> Output {
    let _g = shared();
    let o = Sonde::new(&["-e", prog]).timeout(Duration::from_secs(30)).run();
    o.assert_code(2);
    for n in needles {
        assert!(o.stderr.contains(n), "stderr should say {n:?}\n{}", o.describe());
    }
    assert!(o.stderr.contains("nothing was attached"), "{}", o.describe());
    assert!(!o.stderr.contains("Attached"), "{}", o.describe());
    assert!(!o.stderr.contains("panicked"), "{}", o.describe());
    o
}

// ---------------------------------------------------------------- uprobes on the workload

#[test]
fn uprobe_counts_every_call_and_sums_arg0() {
    require_uprobes!();
    let _g = shared();
    const N: i64 = 100;
    let o = traced_ok(&["ucall", &N.to_string()], &format!(
            "{} /pid == cpid/ {{ @n = count(); @s = sum(arg0); @mx = max(arg0); @mn = min(arg0); }}",
            target("uprobe")
        ));
    assert!(o.stderr.contains("Attached 1 probe"), "{}", o.describe());
    assert_eq!(o.int("@n"), N, "{}", o.describe());
    assert_eq!(o.int("@s"), N * (N + 1) / 2, "{}", o.describe());
    assert_eq!(o.int("@mn"), 1, "{}", o.describe());
    assert_eq!(o.int("@mx"), N, "{}", o.describe());
}

#[test]
fn uprobe_short_form_and_no_calls() {
    // `u:` is `uprobe:`; a run that never calls the function prints no count (a map with no
    // element is left out at exit, as in bpftrace).
    require_uprobes!();
    let _g = shared();
    let o = traced_ok(
        &["seq", "ucall", "0", "--", "getpid", "3"],
        &format!("u:{}:sonde_workload_target /pid == cpid/ {{ @n = count(); }}", workload_path()),
    );
    assert!(!o.stdout.contains("@n"), "no call\n{}", o.describe());
    let o = traced_ok(
        &["ucall", "4"],
        &format!("u:{}:sonde_workload_target /pid == cpid/ {{ @n = count(); }}", workload_path()),
    );
    assert_eq!(o.int("@n"), 4, "{}", o.describe());
}

#[test]
fn uprobe_offset_zero_is_the_entry() {
    require_uprobes!();
    let _g = shared();
    let o = traced_ok(
        &["ucall", "9"],
        &format!("{}+0 /pid == cpid/ {{ @n = count(); @s = sum(arg0); }}", target("uprobe")),
    );
    assert_eq!(o.int("@n"), 9, "{}", o.describe());
    assert_eq!(o.int("@s"), 45, "{}", o.describe());
}

#[test]
fn uretprobe_sums_retval() {
    require_uprobes!();
    let _g = shared();
    const N: i64 = 100;
    let o = traced_ok(
        &["ucall", &N.to_string()],
        &format!("{} /pid == cpid/ {{ @n = count(); @r = sum(retval); }}", target("uretprobe")),
    );
    assert_eq!(o.int("@n"), N, "{}", o.describe());
    assert_eq!(o.int("@r"), N * (N + 1), "{}", o.describe());
}

#[test]
fn uretprobe_retval_as_map_key() {
    // Each call returns 2*i once: keys 2, 4, ..., 2N with a count of 1 each, and nothing else.
    require_uprobes!();
    let _g = shared();
    const N: i64 = 12;
    let o = traced_ok(
        &["ucall", &N.to_string()],
        &format!(
            "ur:{}:sonde_workload_target /pid == cpid/ {{ @[retval] = count(); }}",
            workload_path()
        ),
    );
    let got = int_entries(&o, "@");
    let want: BTreeMap<String, i64> = (1..=N).map(|i| ((2 * i).to_string(), 1)).collect();
    assert_eq!(got, want, "{}", o.describe());
}

#[test]
fn uprobe_and_uretprobe_together() {
    // Both ends of the same function in one program: as many entries as returns, and the
    // returns add up to twice the arguments.
    require_uprobes!();
    let _g = shared();
    const N: i64 = 30;
    let o = traced_ok(&["ucall", &N.to_string()], &format!(
            "{} /pid == cpid/ {{ @in = count(); @a = sum(arg0); }} {} /pid == cpid/ {{ @out = count(); @r = sum(retval); }}",
            target("uprobe"),
            target("uretprobe")
        ));
    assert!(o.stderr.contains("Attached 2 probes"), "{}", o.describe());
    assert_eq!(o.int("@in"), N, "{}", o.describe());
    assert_eq!(o.int("@out"), N, "{}", o.describe());
    assert_eq!(o.int("@r"), 2 * o.int("@a"), "{}", o.describe());
    assert_eq!(o.int("@a"), N * (N + 1) / 2, "{}", o.describe());
}

#[test]
fn uprobe_printf_arg0_and_pid() {
    // Filtered on comm, not pid: the pid each event prints must be the -c command's.
    require_uprobes!();
    let _g = shared();
    let o = traced_ok(
        &["comm", "wl_upf", "ucall", "5"],
        &format!(
            r#"{} /comm == "wl_upf"/ {{ printf("%d %d %d\n", arg0, pid, cpid); }}"#,
            target("uprobe")
        ),
    );
    let lines = o.lines();
    assert_eq!(lines.len(), 5, "{}", o.describe());
    let mut pids = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let f: Vec<&str> = l.split(' ').collect();
        assert_eq!(f.len(), 3, "{l:?}\n{}", o.describe());
        assert_eq!(f[0], (i + 1).to_string(), "args in call order\n{}", o.describe());
        assert_eq!(f[1], f[2], "pid is not cpid\n{}", o.describe());
        let pid: u32 = f[1].parse().unwrap();
        assert!(pid > 0 && pid != std::process::id(), "{}", o.describe());
        pids.push(pid);
    }
    pids.dedup();
    assert_eq!(pids.len(), 1, "one process made every call\n{}", o.describe());
}

#[test]
fn uprobe_probe_builtin_names_the_binary() {
    require_uprobes!();
    let _g = shared();
    let o = traced_ok(
        &["ucall", "3"],
        &format!("{} /pid == cpid/ {{ @[probe] = count(); }}", target("uprobe")),
    );
    assert_eq!(o.keyed("@", &target("uprobe")), "3", "{}", o.describe());
}

// ---------------------------------------------------------------- libraries by name

#[test]
fn uprobe_on_libc_by_name() {
    // `libc` is found the way surftrace finds it (the loader's directories). The workload's
    // direct getpid syscalls do not go through libc's wrapper, so only the 37 wrapper calls
    // count.
    require_uprobes!();
    let _g = shared();
    let o = traced_ok(
        &["seq", "getpid", "10", "--", "libc-getpid", "37"],
        "uprobe:libc:getpid /pid == cpid/ { @n = count(); @p[probe] = count(); }",
    );
    assert_eq!(o.int("@n"), 37, "{}", o.describe());
    // `probe` names the library sonde resolved: an absolute path to libc.
    let p = entries(&o, "@p");
    assert_eq!(p.len(), 1, "{}", o.describe());
    let (name, count) = p.iter().next().unwrap();
    assert_eq!(count, "37", "{}", o.describe());
    let path = name
        .strip_prefix("uprobe:")
        .and_then(|s| s.strip_suffix(":getpid"))
        .unwrap_or_else(|| panic!("odd probe name {name:?}\n{}", o.describe()));
    assert!(path.starts_with('/'), "{}", o.describe());
    let file = Path::new(path).file_name().unwrap().to_str().unwrap();
    assert!(file.starts_with("libc"), "{}", o.describe());
    assert!(Path::new(path).exists(), "{}", o.describe());
}

#[test]
fn uprobe_on_libc_by_soname_and_path_agree() {
    // `libc`, `libc.so.6` and the full path are one library: three probes, the same count.
    require_uprobes!();
    let _g = shared();
    // The path sonde itself resolved `libc` to.
    let o = traced_ok(
        &["libc-getpid", "1"],
        r#"uprobe:libc:getpid /pid == cpid/ { printf("%s\n", probe); }"#,
    );
    let path = o.lines()[0]
        .strip_prefix("uprobe:")
        .and_then(|s| s.strip_suffix(":getpid"))
        .unwrap_or_else(|| panic!("{}", o.describe()))
        .to_string();
    let soname = Path::new(&path).file_name().unwrap().to_str().unwrap().to_string();
    let o = traced_ok(&["libc-getpid", "11"], &format!(
            "uprobe:libc:getpid /pid == cpid/ {{ @a = count(); }} uprobe:{soname}:getpid /pid == cpid/ {{ @b = count(); }} uretprobe:{path}:getpid /pid == cpid/ {{ @c = count(); @ok[retval == pid] = count(); }}"
        ));
    assert_eq!(o.int("@a"), 11, "{}", o.describe());
    assert_eq!(o.int("@b"), 11, "{}", o.describe());
    assert_eq!(o.int("@c"), 11, "{}", o.describe());
    // getpid() returned the caller's pid every time.
    assert_eq!(int_entries(&o, "@ok"), BTreeMap::from([("1".to_string(), 11)]), "{}", o.describe());
}

// ---------------------------------------------------------------- -p

/// Two workloads that wait for a file, then call the target 20 (wl_upa) and 30 (wl_upb)
/// times; sonde starts (with `-p wl_upa` if `p`) before the file appears, with no predicate.
fn two_workloads(p: bool) -> (Output, u32) {
    let mut w = Gated::spawn(&[("wl_upa", &["ucall", "20"]), ("wl_upb", &["ucall", "30"])]);
    let apid = w.pid(0).to_string();
    let prog = format!(
        "{} {{ @[comm] = count(); @pids[pid] = count(); @s[comm] = sum(arg0); }}",
        target("uprobe")
    );
    let mut args: Vec<&str> = Vec::new();
    if p {
        args.extend(["-p", &apid]);
    }
    args.push(&prog);
    let mut s = Sonde::new(&args).spawn();
    s.wait_attached();
    w.go();
    w.wait_all();
    // With -p, sonde ends by itself when the process exits (p_ends_tracing_when_the_process_exits);
    // without, Ctrl-C it.
    std::thread::sleep(Duration::from_millis(300));
    if !s.exited() {
        s.signal(libc::SIGINT);
    }
    let o = s.wait();
    o.assert_ok();
    (o, w.pid(0))
}

#[test]
fn p_limits_a_uprobe_to_that_process() {
    require_uprobes!();
    let _g = shared();
    let (o, apid) = two_workloads(true);
    let comms = int_entries(&o, "@");
    assert_eq!(
        comms,
        BTreeMap::from([("wl_upa".to_string(), 20)]),
        "only the -p process counts\n{}",
        o.describe()
    );
    assert_eq!(
        int_entries(&o, "@pids"),
        BTreeMap::from([(apid.to_string(), 20)]),
        "{}",
        o.describe()
    );
    assert_eq!(o.keyed("@s", "wl_upa"), "210", "{}", o.describe());
}

#[test]
fn p_ends_tracing_when_the_process_exits() {
    // Nothing can fire for a process that is gone: sonde stops by itself, prints its maps and
    // exits 0, as bpftrace does. The process is not reaped meanwhile (a zombie has exited too).
    require_uprobes!();
    let _g = shared();
    let mut w = Gated::spawn(&[("wl_pex", &["ucall", "6"])]);
    let apid = w.pid(0).to_string();
    let mut s =
        Sonde::new(&["-p", &apid, &format!("{} {{ @n = count(); }}", target("uprobe"))]).spawn();
    s.wait_attached();
    w.go();
    let t0 = std::time::Instant::now();
    while !s.exited() && t0.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped_by_itself = s.exited();
    if !stopped_by_itself {
        s.signal(libc::SIGINT);
    }
    let o = s.wait();
    w.wait_all();
    assert!(stopped_by_itself, "sonde -p kept running after the process exited\n{}", o.describe());
    o.assert_ok();
    assert_eq!(o.int("@n"), 6, "{}", o.describe());
}

#[test]
fn without_p_a_uprobe_sees_every_process() {
    // The control for p_limits_a_uprobe_to_that_process: the same run without -p counts both.
    require_uprobes!();
    let _g = shared();
    let (o, _) = two_workloads(false);
    assert_eq!(o.keyed("@", "wl_upa"), "20", "{}", o.describe());
    assert_eq!(o.keyed("@", "wl_upb"), "30", "{}", o.describe());
    assert_eq!(o.keyed("@s", "wl_upa"), "210", "{}", o.describe());
    assert_eq!(o.keyed("@s", "wl_upb"), "465", "{}", o.describe());
}

// ---------------------------------------------------------------- uprobe errors

#[test]
fn uprobe_missing_binary_exits_2() {
    let o = compile_error(
        "uprobe:/nonexistent/sonde_no_such_bin:foo { @n = count(); }",
        &["/nonexistent/sonde_no_such_bin", "stdin:1:1"],
    );
    assert!(
        o.stderr.contains("No such file") || o.stderr.contains("does not exist"),
        "stderr should say the file does not exist\n{}",
        o.describe()
    );
}

#[test]
fn uprobe_unknown_library_name_exits_2() {
    compile_error("uprobe:nosuchlib_sonde:foo { @n = count(); }", &["`nosuchlib_sonde`", "$PATH"]);
}

#[test]
fn uprobe_missing_symbol_suggests_the_near_name() {
    let o = compile_error(
        &format!("uprobe:{}:sonde_workload_targt {{ @n = count(); }}", workload_path()),
        &["sonde_workload_targt", "did you mean sonde_workload_target"],
    );
    assert!(o.stderr.contains(&workload_path()), "{}", o.describe());
    // A name nothing is close to gets no suggestion.
    let o = compile_error(
        &format!("uprobe:{}:zzqqxx_sonde_nothing {{ @n = count(); }}", workload_path()),
        &["no symbol zzqqxx_sonde_nothing"],
    );
    assert!(!o.stderr.contains("did you mean"), "{}", o.describe());
}

#[test]
fn uprobe_missing_libc_symbol_suggests_near_names() {
    compile_error(
        "uprobe:libc:getpidd { @n = count(); }",
        &["no symbol getpidd", "did you mean", "getpid"],
    );
}

#[test]
fn uprobe_on_a_file_that_is_not_elf_exits_2() {
    compile_error("uprobe:/etc/passwd:foo { @n = count(); }", &["/etc/passwd", "not an ELF"]);
}

#[test]
fn uretprobe_arg0_is_a_compile_error() {
    // At a uretprobe the arguments are gone: arg0 would read whatever the return left in the
    // first argument register (here it happens to still hold i, elsewhere it is garbage).
    // bpftrace refuses it ("The arg0 builtin can only be used with 'kprobes', 'uprobes' and
    // 'usdt' probes"); `retval` is what a uretprobe has.
    compile_error(&format!("{} {{ @s = sum(arg0); }}", target("uretprobe")), &["arg0", "stdin:1:"]);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn uprobe_offset_inside_an_instruction_is_refused() {
    // sonde_workload_target starts with a multi-byte instruction (`mov %rdi,-0x8(%rsp)`, 5
    // bytes, in today's build), so +1 is inside it. A breakpoint there rewrites the middle of
    // that instruction: the CPU traps on the damaged bytes and the kernel single-steps the
    // instruction decoded from +1 (without its REX.W prefix) instead: the traced process runs
    // different code. bpftrace refuses an offset it cannot check ("Can't check if uprobe is in
    // proper place"); sonde should refuse one that is not on an instruction boundary.
    let _g = shared();
    let o = sonde(&["-e", &format!("{}+1 {{ @n = count(); }}", target("uprobe"))]);
    o.assert_code(2);
    assert!(o.stderr.contains("+1") || o.stderr.contains("offset"), "{}", o.describe());
    assert!(!o.stderr.contains("Attached"), "{}", o.describe());
}

#[test]
fn uretprobe_with_offset_exits_2() {
    compile_error(
        &format!("{}+4 {{ @n = count(); }}", target("uretprobe")),
        &["uretprobe", "offset"],
    );
}

#[test]
fn p_of_a_process_that_does_not_exist_exits_2() {
    // `-p PID` of no process is a usage error, found before anything is loaded: exit 2 and a
    // message naming the pid, whatever the program (as `-p abc` is, and as `uprobe:libc:...`,
    // which resolves the library in the process's maps, already reports it). Not an attach
    // failure after loading, and not a sonde that waits forever for a process that is gone.
    require_uprobes!();
    let _g = shared();
    let gone = dead_pid();
    let mut progs = vec![
        format!("{} {{ @n = count(); }}", target("uprobe")),
        "uprobe:libc:getpid { @n = count(); }".to_string(),
        "profile:hz:99 { @n = count(); }".to_string(),
    ];
    if tracefs().is_some() {
        progs.push("tracepoint:syscalls:sys_enter_getpid { @n = count(); }".to_string());
    }
    let mut wrong = Vec::new();
    for prog in &progs {
        let mut s = Sonde::new(&["-p", &gone, prog]).spawn();
        let t0 = std::time::Instant::now();
        while !s.exited() && t0.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let still_running = !s.exited();
        if still_running {
            s.signal(libc::SIGINT);
        }
        let o = s.wait();
        let ok = !still_running
            && o.code == Some(2)
            && o.stderr.contains(&gone)
            && !o.stderr.contains("Attached");
        if !ok {
            let what = if still_running {
                "still running 3s later (stopped with SIGINT)".to_string()
            } else {
                format!("exit {:?}", o.code)
            };
            wrong.push(format!("{what}:\n{}", o.describe()));
        }
    }
    assert!(
        wrong.is_empty(),
        "-p {gone} (no such process) should exit 2 naming the pid, before attaching; {} of {} did not:\n{}",
        wrong.len(),
        progs.len(),
        wrong.join("\n")
    );
}

// ---------------------------------------------------------------- profile and software

#[test]
fn profile_hz_samples_by_cpu() {
    // 99 Hz on every CPU while a 500 ms sleep runs: an idle vCPU takes almost no cpu-clock
    // samples here, but some CPU is always ticking. At most 99 a second on each CPU while
    // sonde was up (plus slack); at least 20 over the half second.
    require_bpf!();
    let _g = shared();
    let o = traced_ok(&["sleep", "500"], "profile:hz:99 { @[cpu] = count(); @t = count(); }");
    let ncpu = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }.max(1) as i64;
    let by_cpu = int_entries(&o, "@");
    assert!(!by_cpu.is_empty(), "no samples by cpu\n{}", o.describe());
    for (cpu, n) in &by_cpu {
        let cpu: i64 = cpu.parse().unwrap_or_else(|_| panic!("cpu key {cpu:?}\n{}", o.describe()));
        assert!((0..ncpu).contains(&cpu), "cpu {cpu} of {ncpu}\n{}", o.describe());
        assert!(*n > 0, "{}", o.describe());
    }
    let total: i64 = by_cpu.values().sum();
    assert_eq!(total, o.int("@t"), "per-cpu counts add up to the total\n{}", o.describe());
    let max = (99.0 * o.elapsed.as_secs_f64() * 1.5) as i64 * ncpu.max(1) + 10;
    assert!(
        (20..=max).contains(&total),
        "{total} samples at 99 Hz in {:.2}s on {ncpu} CPUs (want 20..={max})\n{}",
        o.elapsed.as_secs_f64(),
        o.describe()
    );
}

#[test]
fn profile_on_one_cpu_samples_only_that_cpu() {
    // ply's `profile:C:Nhz`: every online CPU spins for 0.6 s, each pinned with taskset, and only
    // the last one is sampled, at about 99 a second while it is busy.
    require_bpf!();
    let _g = shared();
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    let cpus: Vec<u32> = online
        .trim()
        .split(',')
        .flat_map(|r| match r.split_once('-') {
            Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<u32>>(),
            None => vec![r.parse().unwrap()],
        })
        .collect();
    let target = *cpus.last().unwrap();
    let spin = |c: u32| format!("taskset -c {c} timeout 0.6 sh -c 'while :; do :; done'");
    let cmd = cpus.iter().map(|&c| spin(c)).collect::<Vec<_>>().join(" & ") + "; wait";
    let prog = format!("profile:{target}:99hz {{ @[cpu] = count(); }}");
    let o = sonde(&["-c", &cmd, &prog]);
    o.assert_ok();
    let by_cpu = int_entries(&o, "@");
    let keys: Vec<String> = by_cpu.keys().cloned().collect();
    assert_eq!(keys, vec![target.to_string()], "only CPU {target}\n{}", o.describe());
    let n = by_cpu[&target.to_string()];
    let max = (99.0 * o.elapsed.as_secs_f64() * 1.5) as i64 + 10;
    assert!((20..=max).contains(&n), "{n} samples (want 20..={max})\n{}", o.describe());
}

#[test]
fn profile_on_an_offline_cpu_says_so() {
    require_bpf!();
    let _g = shared();
    let o = sonde(&["profile:4095:99hz { @n = count(); }"]);
    o.assert_code(1);
    assert!(o.stderr.contains("CPU 4095 is not online (online: 0"), "{}", o.describe());
}

#[test]
fn profile_ply_rates_are_bounded() {
    compile_error("profile:0:5000hz { @n = count(); }", &["1 to 1000"]);
}

#[test]
fn profile_bad_rate_exits_2() {
    compile_error("profile:hz:0 { @n = count(); }", &["profile:hz:99"]);
}

#[test]
fn software_page_faults_count_the_workload() {
    // `read 1 1048576` reads into a fresh 1 MiB buffer: 256 4-KiB pages, each faulted in by the
    // kernel's copy-out. The three spellings of the event, at a period of 1, see exactly the
    // same faults; `read 1 1` (under another comm) faults nothing new.
    require_bpf!();
    let _g = shared();
    let o = traced_ok(
        &["comm", "wl_upf0", "read", "1", "1", "--", "comm", "wl_upf1", "read", "1", "1048576"],
        "software:page-faults:1 /pid == cpid/ { @a[comm] = count(); } \
         software:faults:1 /pid == cpid/ { @b[comm] = count(); } \
         software:minor-faults:1 /pid == cpid/ { @c[comm] = count(); }",
    );
    assert!(o.stderr.contains("Attached 3 probes"), "{}", o.describe());
    let a = int_entries(&o, "@a");
    let n = *a.get("wl_upf1").unwrap_or_else(|| panic!("no @a[wl_upf1]\n{}", o.describe()));
    assert!((200..=2000).contains(&n), "{n} page faults for a 1 MiB buffer\n{}", o.describe());
    assert!(a.get("wl_upf0").copied().unwrap_or(0) < 20, "{}", o.describe());
    assert_eq!(int_entries(&o, "@b"), a, "faults == page-faults\n{}", o.describe());
    assert_eq!(int_entries(&o, "@c"), a, "no major faults here\n{}", o.describe());
}

#[test]
fn software_context_switches_count_sleeps() {
    // Each nanosleep blocks, so each switches the process out at least once.
    require_bpf!();
    let _g = shared();
    let o = traced_ok(
        &["comm", "wl_ucs", "sleep", "30", "--", "sleep", "30", "--", "sleep", "30"],
        r#"software:cs:1 /comm == "wl_ucs"/ { @n = count(); }"#,
    );
    let n = o.int("@n");
    assert!((3..=100).contains(&n), "{n} context switches for 3 sleeps\n{}", o.describe());
}

#[test]
fn software_unknown_event_names_the_valid_ones() {
    compile_error(
        "software:nosuch_sonde:1 { @n = count(); }",
        &["nosuch_sonde", "cpu-clock", "page-faults", "context-switches", "major-faults"],
    );
}

#[test]
fn software_zero_period_exits_2() {
    compile_error("software:page-faults:0 { @n = count(); }", &["`0`"]);
}

// ---------------------------------------------------------------- curtask and casts (BTF)

/// The comm the kernel gives the sonde binary under test.
fn sonde_comm() -> String {
    let bin = sonde_bin();
    let name = Path::new(&bin).file_name().unwrap().to_str().unwrap().to_string();
    name.chars().take(15).collect()
}

/// Runs `prog` (a BEGIN that prints and exits) and returns (output, sonde's pid).
fn begin(prog: &str) -> (Output, i32) {
    let s = Sonde::new(&[prog]).spawn();
    let pid = s.pid();
    (s.wait(), pid)
}

#[test]
fn curtask_comm_and_pid_in_begin() {
    // BEGIN runs in sonde itself: curtask is sonde's task.
    require_bpf!();
    require_btf!();
    let _g = shared();
    let (o, pid) = begin(
        r#"BEGIN { printf("%s|%d|%d|%s\n", curtask->comm, curtask->pid, curtask->tgid, comm); exit(); }"#,
    );
    o.assert_ok();
    let c = sonde_comm();
    assert_eq!(o.lines(), vec![format!("{c}|{pid}|{pid}|{c}")], "{}", o.describe());
}

#[test]
fn cast_to_task_struct_reads_tgid() {
    require_bpf!();
    require_btf!();
    let _g = shared();
    let (o, pid) = begin(
        r#"BEGIN { printf("%d %d\n", ((struct task_struct *)curtask)->tgid, pid); exit(); }"#,
    );
    o.assert_ok();
    assert_eq!(o.lines(), vec![format!("{pid} {pid}")], "{}", o.describe());
}

#[test]
fn curtask_in_a_uprobe_is_the_caller() {
    // In a uprobe curtask is the process that called the function: its tgid is pid and its
    // comm is comm.
    require_uprobes!();
    require_btf!();
    let _g = shared();
    let o = traced_ok(
        &["comm", "wl_uct", "ucall", "4"],
        &format!(
            r#"{} /pid == cpid/ {{ @[curtask->comm, curtask->tgid == pid, curtask->tgid == cpid] = count(); }}"#,
            target("uprobe")
        ),
    );
    assert_eq!(
        int_entries(&o, "@"),
        BTreeMap::from([("wl_uct, 1, 1".to_string(), 4)]),
        "{}",
        o.describe()
    );
}

/// Reads kernel members of every shape from `curtask` when the workload leaves nanosleep(2):
/// an enum and a pointer in a struct in an anonymous union (`restart_block.nanosleep`, which
/// sys_nanosleep fills: type TT_NATIVE = 1 when a remaining-time pointer is given, as the
/// workload does), a function pointer symbolized (`restart_block.fn`), an element of a flexible
/// array of structs (`thread_pid->numbers[0].nr`, the task's pid), a one-bit bitfield, a plain
/// u32 the workload sets, and a char of a char array.
const KERNEL_MEMBERS: &str = r#"tracepoint:syscalls:sys_exit_nanosleep /pid == cpid/ {
    printf("%d %d %s %d %d %d %c\n", curtask->restart_block.nanosleep.type,
        curtask->restart_block.nanosleep.rmtp != 0, ksym(curtask->restart_block.fn),
        curtask->thread_pid->numbers[0].nr == tid, curtask->sched_reset_on_fork,
        curtask->personality, curtask->comm[3]);
}"#;

#[test]
fn kernel_members_of_every_shape_read_known_values() {
    require_tracepoints!();
    require_btf!();
    let _g = shared();
    let o = traced_ok(
        &["comm", "wl_mem", "reset-on-fork", "personality", "262144", "sleep", "1"],
        KERNEL_MEMBERS,
    );
    assert_eq!(o.stdout.trim_end(), "1 1 do_no_restart_syscall 1 1 262144 m", "{}", o.describe());
    // Without the workload's changes, the bitfield and the personality read 0.
    let o = traced_ok(&["comm", "wl_mem", "sleep", "1"], KERNEL_MEMBERS);
    assert_eq!(o.stdout.trim_end(), "1 1 do_no_restart_syscall 1 0 0 m", "{}", o.describe());
}

/// Values declared with a kernel enum print as its enumerators' names with `%s` and as map
/// keys, and as numbers with `%d`: a tracepoint field (`enum landlock_rule_type rule_type`,
/// 3 calls of type 1 and 2 of type 2) and a struct member (`restart_block.nanosleep.type`).
#[test]
fn kernel_enums_print_their_names() {
    require_tracepoints!();
    require_btf!();
    let _g = shared();
    let program = r#"tracepoint:syscalls:sys_enter_landlock_add_rule /pid == cpid/ {
        printf("%d %s\n", args.rule_type, args.rule_type); @[args.rule_type] = count(); }
        tracepoint:syscalls:sys_exit_nanosleep /pid == cpid/ {
        printf("%s\n", curtask->restart_block.nanosleep.type); }"#;
    let o = traced_ok(&["landlock", "5", "sleep", "1"], program);
    let want = "1 LANDLOCK_RULE_PATH_BENEATH\n2 LANDLOCK_RULE_NET_PORT\n\
                1 LANDLOCK_RULE_PATH_BENEATH\n2 LANDLOCK_RULE_NET_PORT\n\
                1 LANDLOCK_RULE_PATH_BENEATH\nTT_NATIVE\n\n\n\
                @[LANDLOCK_RULE_NET_PORT]: 2\n@[LANDLOCK_RULE_PATH_BENEATH]: 3";
    assert_eq!(o.stdout.trim_end(), want, "{}", o.describe());
}

#[test]
fn index_past_a_fixed_array_member_exits_2() {
    require_btf!();
    compile_error(
        "BEGIN { printf(\"%c\\n\", curtask->comm[16]); exit(); }",
        &["index 16 is outside", "stdin:1:"],
    );
}

/// `ctx` in a probe whose provider gives it no type is the context's address, to cast: an
/// interval probe's context begins with its registers' address (`bpf_perf_event_data_kern`).
/// BEGIN has none.
#[test]
fn ctx_is_the_context_to_cast() {
    require_bpf!();
    let o = sonde(&[
        "struct x { unsigned long regs; } i:ms:1 { printf(\"%d\\n\", ((struct x *)ctx).regs != 0); exit(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["1"], "{}", o.describe());
    compile_error("BEGIN { print(ctx); }", &["`ctx` exists in every probe but BEGIN and END"]);
}

#[test]
fn curtask_unknown_member_exits_2() {
    require_btf!();
    compile_error(
        "BEGIN { printf(\"%d\\n\", curtask->nosuchmember); exit(); }",
        &["nosuchmember", "task_struct", "stdin:1:"],
    );
}

#[test]
fn cast_to_unknown_struct_exits_2() {
    require_btf!();
    compile_error(
        "BEGIN { $t = (struct no_such_type_sonde *)0; exit(); }",
        &["no_such_type_sonde", "stdin:1:"],
    );
}

#[test]
fn cast_to_unknown_struct_then_member_is_one_error() {
    // The unknown type is the whole story: no second error about the (made-up) type of the
    // failed cast.
    require_btf!();
    let o = compile_error(
        "BEGIN { printf(\"%d\\n\", ((struct no_such_type_sonde *)0)->x); exit(); }",
        &["no_such_type_sonde"],
    );
    assert!(
        o.stderr.contains("1 error in the program"),
        "one error expected, not a follow-on about the failed cast's type\n{}",
        o.describe()
    );
}

// ---------------------------------------------------------------- kprobes and fentry here

fn kernel_has_kprobes() -> bool {
    Path::new("/sys/bus/event_source/devices/kprobe/type").is_file()
        || ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"]
            .iter()
            .any(|t| Path::new(t).join("kprobe_events").exists())
}

#[test]
fn kprobe_without_kernel_kprobes_says_so() {
    // This host's kernel has no CONFIG_KPROBES (kprobes are tested under qemu).
    require_bpf!();
    if kernel_has_kprobes() {
        println!("skipped: this kernel has kprobes (tested in tests/vm)");
        return;
    }
    let _g = shared();
    for (prog, name) in [
        ("kprobe:vfs_read { @n = count(); }", "kprobe:vfs_read"),
        ("kretprobe:vfs_read { @n = count(); }", "kretprobe:vfs_read"),
    ] {
        let o = sonde(&[prog]);
        o.assert_code(1);
        let lines = stderr_lines(&o);
        assert_eq!(lines.len(), 1, "one line of error\n{}", o.describe());
        let l = lines[0];
        assert!(l.starts_with("sonde: "), "{}", o.describe());
        assert!(l.contains(name), "{}", o.describe());
        assert!(l.contains("no kprobes"), "{}", o.describe());
        assert!(o.stdout.is_empty(), "{}", o.describe());
    }
}

#[test]
fn fentry_refused_by_the_kernel_fails_clearly() {
    // On this host the BPF LSM refuses BPF_PROG_LOAD of tracing programs with EPERM. Where
    // fentry works, the dry run passes and there is nothing to check.
    require_bpf!();
    require_btf!();
    let _g = shared();
    let o = Sonde::new(&["-e", "fentry:vfs_read { @n = count(); }"])
        .timeout(Duration::from_secs(30))
        .run();
    if o.code == Some(0) {
        println!("skipped: fentry loads on this kernel");
        return;
    }
    o.assert_code(1);
    let lines = stderr_lines(&o);
    assert_eq!(lines.len(), 1, "one line of error\n{}", o.describe());
    let l = lines[0];
    assert!(l.starts_with("sonde: "), "{}", o.describe());
    assert!(l.contains("fentry:vfs_read"), "{}", o.describe());
    if l.contains("EPERM") {
        assert!(
            l.contains("security policy") || l.contains("lockdown") || l.contains("LSM"),
            "an EPERM as root should be blamed on the policy that forbids it\n{}",
            o.describe()
        );
    }
    assert!(!o.stderr.contains("panicked"), "{}", o.describe());
}

#[test]
fn fentry_unknown_function_suggests_the_near_name() {
    require_btf!();
    compile_error("fentry:vfs_reed { @n = count(); }", &["vfs_reed", "did you mean `vfs_read`"]);
}

// ---------------------------------------------------------------- clean detach

/// sonde's uprobe events in tracefs (`sonde/sonde_<pid>_<n>`), if any.
fn sonde_uprobe_events() -> Vec<String> {
    let Some(t) = tracefs() else {
        return Vec::new();
    };
    std::fs::read_to_string(t.join("uprobe_events"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("sonde_") || l.contains("sonde/"))
        .map(String::from)
        .collect()
}

#[track_caller]
fn check_clean(what: &str, before: &BpfObjects, o: &Output) {
    assert_no_bpf_objects_left(what, before, o);
    let ev = sonde_uprobe_events();
    assert!(ev.is_empty(), "after {what}, uprobe events remain: {ev:?}\n{}", o.describe());
}

#[test]
fn uprobes_detach_cleanly() {
    // BPF objects are kernel-global: no other test in this binary runs sonde meanwhile.
    require_uprobes!();
    let _g = exclusive();
    let both = format!(
        r#"{} /comm == "wl_udt"/ {{ @n = count(); }} {} /comm == "wl_udt"/ {{ @r = sum(retval); }} uprobe:libc:getpid /comm == "wl_udt"/ {{ @g = count(); }}"#,
        target("uprobe"),
        target("uretprobe")
    );

    // 1. -c: ends when the command does.
    let before = BpfObjects::now();
    let o = traced_ok(&["comm", "wl_udt", "ucall", "10", "--", "libc-getpid", "3"], &both);
    assert_eq!(o.int("@n"), 10, "{}", o.describe());
    assert_eq!(o.int("@r"), 110, "{}", o.describe());
    assert_eq!(o.int("@g"), 3, "{}", o.describe());
    check_clean("-c", &before, &o);

    // 2. SIGINT while attached; the programs must really be there meanwhile.
    let before = BpfObjects::now();
    let mut s = Sonde::new(&[&both]).spawn();
    s.wait_attached();
    let t0 = std::time::Instant::now();
    while BpfObjects::now().new_since(&before).progs.len() < 3 {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "fewer than 3 new BPF programs while sonde was attached\n{}",
            s.stderr_so_far()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    run_workload(&["comm", "wl_udt", "ucall", "7", "--", "libc-getpid", "2"]);
    s.signal(libc::SIGINT);
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.int("@n"), 7, "{}", o.describe());
    assert_eq!(o.int("@r"), 56, "{}", o.describe());
    assert_eq!(o.int("@g"), 2, "{}", o.describe());
    check_clean("SIGINT", &before, &o);

    // 3. After detaching, the function runs unprobed: a new sonde sees only its own calls.
    let o = traced_ok(&["comm", "wl_udt", "ucall", "5"], &both);
    assert_eq!(o.int("@n"), 5, "{}", o.describe());

    // 4. -p of a process that does not exist: today the kernel refuses the attach
    //    (perf_event_open: ESRCH) after the programs are loaded; whether sonde fails then or
    //    earlier, it keeps nothing.
    let before = BpfObjects::now();
    let gone = dead_pid();
    let o = sonde(&["-p", &gone, &format!("{} {{ @n = count(); }}", target("uprobe"))]);
    assert_ne!(o.code, Some(0), "{}", o.describe());
    check_clean("a failed uprobe attach", &before, &o);

    // 5. SIGKILL: the kernel frees everything with the process.
    let before = BpfObjects::now();
    let mut s = Sonde::new(&[&both]).spawn();
    s.wait_attached();
    s.signal(libc::SIGKILL);
    let o = s.wait();
    check_clean("SIGKILL", &before, &o);
}

// ---------------------------------------------------------------- rawtracepoint (tp_btf)

/// Why BTF-typed raw tracepoints cannot run here.
fn skip_reason_raw_tracepoints() -> Option<String> {
    if let Some(r) = common::skip_reason() {
        return Some(r);
    }
    if !Path::new("/sys/kernel/btf/vmlinux").exists() {
        return Some("the kernel has no BTF (/sys/kernel/btf/vmlinux)".into());
    }
    None
}

macro_rules! require_raw_tracepoints {
    () => {
        if let Some(reason) = skip_reason_raw_tracepoints() {
            println!("skipped: {reason}");
            return;
        }
    };
}

#[test]
fn rawtracepoint_sys_enter_counts_each_syscall_by_its_typed_id() {
    require_raw_tracepoints!();
    let _g = shared();
    // `args->id` is sys_enter's second C argument (`long id`), typed from BTF; `arg1` the same.
    let o = traced_ok(
        &["getppid", "17", "gettid", "9"],
        "rawtracepoint:sys_enter /pid == cpid/ { @[args->id] = count(); @a[arg1] = count(); }",
    );
    assert!(o.stderr.contains("Attached 1 probe"), "{}", o.describe());
    let ids = int_entries(&o, "@");
    assert_eq!(ids.get(&libc::SYS_getppid.to_string()), Some(&17), "{}", o.describe());
    assert_eq!(ids.get(&libc::SYS_gettid.to_string()), Some(&9), "{}", o.describe());
    let a = int_entries(&o, "@a");
    assert_eq!(a.get(&libc::SYS_getppid.to_string()), Some(&17), "{}", o.describe());
}

#[test]
fn rawtracepoint_struct_arguments_and_bpftrace_spellings() {
    require_raw_tracepoints!();
    let _g = shared();
    // sched_switch's `next` is a `struct task_struct *`: its comm is read through BTF. The
    // workload sleeps, so it is switched in at least once per sleep.
    let o = traced_ok(
        &["comm", "wl_rtp", "sleep", "1", "sleep", "1", "sleep", "1"],
        "rt:vmlinux:sched_switch /args->next->pid == cpid/ { @[args->next->comm] = count(); }",
    );
    let e = int_entries(&o, "@");
    assert!(e.get("wl_rtp").is_some_and(|&n| n >= 3), "{}", o.describe());
    compile_error(
        "rawtracepoint:sched_swich { }",
        &["no raw tracepoint `sched_swich`", "did you mean `sched_switch`"],
    );
    compile_error(
        "rawtracepoint:sys_enter { @ = arg2; }",
        &["the tracepoint takes 2 argument(s): there is no `arg2`"],
    );
    compile_error("rawtracepoint:sys_enter { @ = retval; }", &["`retval` exists in"]);
}

#[test]
fn rawtracepoints_are_listed_with_their_arguments() {
    require_raw_tracepoints!();
    let o = sonde(&["-lv", "rawtracepoint:sched_switch"]);
    o.assert_ok();
    assert!(o.stdout.starts_with("rawtracepoint:sched_switch\n"), "{}", o.describe());
    assert!(o.stdout.contains("struct task_struct * args->next"), "{}", o.describe());
    // Every one, with arguments, in well under a second even in a debug build: one pass over
    // BTF, not a lookup per tracepoint; `vmlinux:` is the module BTF's tracepoints are in.
    let started = std::time::Instant::now();
    let o = sonde(&["-lv", "rawtracepoint:*"]);
    o.assert_ok();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    let at = o.stdout.find("rawtracepoint:sched_switch\n").expect("sched_switch listed");
    assert!(o.stdout[at..].contains("struct task_struct * args->next"), "{}", &o.stdout[at..]);
    let o = sonde(&["-l", "rawtracepoint:vmlinux:sched_swit*"]);
    assert_eq!(o.stdout, "rawtracepoint:sched_switch\n", "{}", o.describe());
}
