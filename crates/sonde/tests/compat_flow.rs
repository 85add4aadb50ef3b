//! The compatibility lane's program structure and control flow: tests/compat/{loops,let,
//! user_macros,params}.bt (our own scripts in bpftrace's syntax) run against the workload with
//! exact numbers, and `func` in a uprobe names the function.

mod common;

use common::{sonde, wl, workload};

use common::compat_script as script;

/// 7 getppid calls from a workload named `comm` (each script its own, as tests run at once),
/// traced by `file` with `args` after it.
fn run(file: &str, comm: &str, args: &[&str]) -> common::Output {
    let cmd = wl(&["comm", comm, "getppid", "7"]);
    let mut argv = vec!["-c", &cmd];
    let path = script(file);
    argv.push(&path);
    argv.extend_from_slice(args);
    let o = sonde(&argv);
    o.assert_ok();
    o
}

#[test]
fn loops_run() {
    require_tracepoints!();
    let o = run("loops.bt", "wl_loops", &[]);
    // while sums 1..10; for skips 3 and stops at 7; unroll doubles 5 times.
    assert!(o.stdout.contains("while=55 for=18 unroll=32\n"), "{}", o.describe());
    assert_eq!(o.int("@calls"), 7, "{}", o.describe());
    // Each call's `for` sees each of 0..4 once.
    for k in 0..4 {
        assert!(o.stdout.contains(&format!("@seen[{}]: 7\n", k)), "{}", o.describe());
    }
    assert!(!o.stdout.contains("@seen[4]"), "{}", o.describe());
    assert!(o.stdout.contains("end\n"), "{}", o.describe());
}

#[test]
fn let_declarations_run() {
    require_tracepoints!();
    let o = run("let.bt", "wl_let", &[]);
    // `let $n: uint8 = (uint8)257` is 1 (a bare 257 does not fit: an error, as in bpftrace); the inner `$inner`s are 40 and 2, each its block's own.
    assert_eq!(o.int("@inner"), 7 * 41, "{}", o.describe());
    assert_eq!(o.int("@inner2"), 7 * 2, "{}", o.describe());
    assert!(o.stdout.contains("@last: short\n"), "{}", o.describe());
    // The variable first given "ab" holds the longer string whole.
    assert!(o.stdout.contains("@plain[a longer string]: 7\n"), "{}", o.describe());
}

#[test]
fn user_macros_run() {
    require_tracepoints!();
    let o = run("user_macros.bt", "wl_macros", &[]);
    // bump($t, @bumped) makes the caller's $t 4; squared($t + 1) was 16 before it.
    assert_eq!(o.int("@squares"), 7 * 16, "{}", o.describe());
    assert_eq!(o.int("@bumped"), 7 * 4, "{}", o.describe());
    assert_eq!(o.int("@t_after"), 7 * 4, "{}", o.describe());
    assert_eq!(o.int("@added"), 7 * 2, "{}", o.describe());
    // let $sq = squared(2) is 4; the block expression 10 + 4.
    assert_eq!(o.int("@declared"), 7 * 14, "{}", o.describe());
    assert!(o.stdout.contains("macros:\n@bumped: 28\n"), "{}", o.describe());
}

#[test]
fn positional_parameters_run() {
    require_tracepoints!();
    let o = run("params.bt", "wl_params", &["5", "wl_params"]);
    assert_eq!(o.int("@count"), 7, "{}", o.describe());
    assert_eq!(o.int("@scaled"), 35, "{}", o.describe());
    assert!(o.stdout.contains("args=2 first=5\n"), "{}", o.describe());
    // Without them `$1` is 0 and `str($2)` empty: no comm matches (maps that never counted
    // print nothing at exit, as in bpftrace).
    let o = run("params.bt", "wl_params", &[]);
    assert!(o.stdout.contains("args=0 first=0\n"), "{}", o.describe());
    assert!(!o.stdout.contains("@count"), "{}", o.describe());
    assert!(!o.stdout.contains("@scaled"), "{}", o.describe());
    // A word that is not an integer is a string, as in bpftrace.
    let o = sonde(&["BEGIN { printf(\"%s %d|%s|\\n\", $1, $2, str($3)); exit(); }", "ten", "0x10"]);
    o.assert_ok();
    assert!(o.stdout.contains("ten 16||\n"), "{}", o.describe());
    // Flags still follow the parameters; after `--` a parameter may start with `-`.
    let o = sonde(&["BEGIN { printf(\"%d %d\\n\", $#, $1); exit(); }", "7", "-k", "--", "-5"]);
    o.assert_ok();
    assert!(o.stdout.contains("2 7\n"), "{}", o.describe());
}

#[test]
fn func_in_a_uprobe_names_the_function() {
    require_bpf!();
    let Some(w) = uprobe_workload() else { return };
    let prog = format!(
        "uprobe:{w}:sonde_workload_target, uretprobe:{w}:sonde_workload_target /pid == cpid/ \
         {{ @calls[func] = count(); @f = func; }}"
    );
    let o = sonde(&["-c", &wl(&["ucall", "3"]), &prog]);
    o.assert_ok();
    // Entry and return both name it: 3 calls each.
    assert!(o.stdout.contains("@calls[sonde_workload_target]: 6\n"), "{}", o.describe());
    assert!(o.stdout.contains("@f: sonde_workload_target\n"), "{}", o.describe());
}

/// Probes on one uprobe run in the program's order (bpftrace's `probe.uprobe_order`); the
/// kernel runs a uprobe's newest program first.
#[test]
fn probes_on_one_uprobe_run_in_program_order() {
    require_bpf!();
    let Some(w) = uprobe_workload() else { return };
    let prog = format!(
        "uprobe:{w}:sonde_workload_target /pid == cpid/ {{ printf(\"first\\n\"); }}
         uprobe:{w}:sonde_workload_target /pid == cpid/ {{ printf(\"second\\n\"); }}
         uprobe:{w}:sonde_workload_target /pid == cpid/ {{ printf(\"third\\n\"); }}"
    );
    let o = sonde(&["-c", &wl(&["ucall", "2"]), &prog]);
    o.assert_ok();
    assert_eq!(
        o.lines(),
        ["first", "second", "third", "first", "second", "third"],
        "{}",
        o.describe()
    );
}

/// The workload's path, where uprobes can be attached (else says why not).
fn uprobe_workload() -> Option<String> {
    if !std::path::Path::new("/sys/bus/event_source/devices/uprobe/type").is_file() {
        println!("skipped: no uprobe PMU");
        return None;
    }
    Some(workload().to_str().unwrap().to_string())
}
