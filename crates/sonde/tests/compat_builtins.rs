//! The compatibility lane for bpftrace's join(), getopt(), syscall_name(), username, warnf(),
//! errorf(), system(), variables as calls, jiffies and strncmp(): tests/compat/{join,getopt,
//! messages,calls}.bt (our own scripts in bpftrace's syntax) run against the workload with
//! exact output.

mod common;

use common::{sonde, wl};

use common::compat_script as script;

#[test]
fn join_prints_the_exec_argv() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_join", "exec", "wl-exec", "getppid", "1"]);
    let o = sonde(&["-c", &cmd, &script("join.bt")]);
    o.assert_ok();
    assert_eq!(o.stdout, "wl-exec getppid 1\nwl-exec,getppid,1\n\n\n", "{}", o.describe());
    let o = sonde(&["-f", "json", "-c", &cmd, &script("join.bt")]);
    o.assert_ok();
    assert!(
        o.lines().contains(&"{\"type\": \"join\", \"data\": \"wl-exec,getppid,1\"}"),
        "{}",
        o.describe()
    );
    // bpftrace's bound: the first 16 strings of the array.
    let mut argv = vec!["comm", "wl_join", "exec", "wl-exec"];
    argv.extend(["seq"; 19]);
    let o = sonde(&["-c", &wl(&argv), &script("join.bt")]);
    o.assert_ok();
    let sixteen = format!("wl-exec{}", " seq".repeat(15));
    assert_eq!(o.lines()[0], sixteen, "{}", o.describe());
}

#[test]
fn getopt_reads_named_options_and_syscall_name_names() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_getopt", "getppid", "7"]);
    let args = ["--sysname", "--label=run", "--limit=3"];
    let path = script("getopt.bt");
    let mut argv = vec!["-c", &cmd, &path, "--"];
    argv.extend(args);
    let o = sonde(&argv);
    o.assert_ok();
    assert!(o.stdout.contains("label=run limit=3\n"), "{}", o.describe());
    assert!(o.stdout.contains("@name[getppid]: 7\n"), "{}", o.describe());
    assert!(!o.stdout.contains("@nr"), "{}", o.describe());
    // The defaults: numbers, "none" and -1.
    let o = sonde(&["-c", &cmd, &script("getopt.bt")]);
    o.assert_ok();
    assert!(o.stdout.contains("label=none limit=-1\n"), "{}", o.describe());
    assert!(o.stdout.contains("@nr[110]: 7\n"), "{}", o.describe());
    // `--sysname=false` is false; positional parameters still count apart from options.
    let o = sonde(&["-c", &cmd, &script("getopt.bt"), "--", "--sysname=false", "5"]);
    o.assert_ok();
    assert!(o.stdout.contains("@nr[110]: 7\n"), "{}", o.describe());
}

#[test]
fn getopt_refuses_options_the_program_does_not_read() {
    require_bpf!();
    let o = sonde(&["-e", &script("getopt.bt"), "--", "--sysnam"]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(
        o.stderr.contains(
            "--sysnam: the program has no such option: it reads --sysname, --label, --limit (did you mean --sysname?)"
        ),
        "{}",
        o.describe()
    );
    // `--help` lists them with their descriptions, as bpftrace's does, and runs nothing.
    let o = sonde(&[&script("getopt.bt"), "--", "--help"]);
    o.assert_ok();
    let listed = "program options:\n  --sysname: Show syscall names instead of numbers\n  --label\n  --limit\n";
    assert_eq!(o.stdout, listed, "{}", o.describe());
    let o = sonde(&["-e", &script("getopt.bt"), "--", "--limit=many"]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(
        o.stderr.contains("--limit=many: the option `limit` takes an integer (its default is one)"),
        "{}",
        o.describe()
    );
}

#[test]
fn username_warnf_errorf_and_system_print() {
    require_bpf!();
    let o = sonde(&["--unsafe", &script("messages.bt")]);
    o.assert_ok();
    // uid 0 is root in /etc/passwd; system()'s output comes in order with printf's, and a
    // newline after it, as bpftrace prints it; then the run's end, two newlines.
    assert_eq!(o.stdout, "user=root\nsystem 42\n\n\n\n", "{}", o.describe());
    let at = script("messages.bt");
    assert!(o.stderr.contains(&format!("{}:9:3-23: WARNING: depth 3\n", at)), "{}", o.describe());
    assert!(o.stderr.contains(&format!("{}:10:3-28: ERROR: bad thing\n", at)), "{}", o.describe());
    // --no-warnings silences warnf() (and the compiler's warnings), not errorf().
    let o = sonde(&["--unsafe", "--no-warnings", &script("messages.bt")]);
    o.assert_ok();
    assert!(!o.stderr.contains("WARNING"), "{}", o.describe());
    assert!(o.stderr.contains("ERROR: bad thing\n"), "{}", o.describe());
    // bpftrace's JSON objects: warnf/errorf with their location, system()'s output as `syscall`.
    let o = sonde(&["--unsafe", "-f", "json", &script("messages.bt")]);
    o.assert_ok();
    let warn = format!(
        "{{\"type\": \"warnf\", \"msg\": \"depth 3\", \"filename\": \"{}\", \"line\": 9, \"col\": 3}}",
        at
    );
    assert!(o.lines().contains(&warn.as_str()), "{}", o.describe());
    assert!(
        o.lines().contains(&"{\"type\": \"syscall\", \"data\": \"system 42\\n\"}"),
        "{}",
        o.describe()
    );
    // Without --unsafe, system() is refused before anything runs.
    let o = sonde(&[&script("messages.bt")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains("system() runs a command: it is allowed only with --unsafe"));
}

#[test]
fn len_counts_a_maps_elements() {
    require_tracepoints!();
    let cmd = wl(&["comm", "wl_len", "getppid", "7"]);
    let o = sonde(&["-c", &cmd, &script("len.bt")]);
    o.assert_ok();
    // 7 new keys; one key replaced 7 times; added-and-deleted twice over; cleared, then one.
    assert!(o.stdout.contains("calls=7 last=1 tmp=0 pair=0 pre=1\n"), "{}", o.describe());
    assert_eq!(o.int("@during"), 7, "{}", o.describe());
}

#[test]
fn variables_as_calls_jiffies_and_strncmp() {
    require_tracepoints!();
    let o = sonde(&["-c", &wl(&["comm", "wl_calls", "getppid", "3"]), &script("calls.bt")]);
    o.assert_ok();
    // The first 8 bytes match; the 9th is comm's NUL against 'X'.
    assert!(o.stdout.contains("@calls[wl_calls, 1, 1]: 3\n"), "{}", o.describe());
    assert_eq!(o.int("@ninth"), 1, "{}", o.describe());
    assert_eq!(o.int("@ticking"), 1, "{}", o.describe());
}

/// bpftrace's `call.join`: system() every millisecond, and join() then exit() on any execve. Probes
/// still firing after exit() until its record is read would fill the ring buffer with 16 KiB join
/// records of every execve of the system (exit status 1 for lost events); exit() silences them.
#[test]
fn nothing_is_lost_after_exit() {
    require_bpf!();
    let o = sonde(&[
        "--unsafe",
        "i:ms:1 { system(\"echo '_A_'\"); } t:syscalls:sys_enter_execve { join(args.argv); exit(); }",
    ]);
    o.assert_ok();
    // The first execve may be another process's (tests run at once): its argv is joined.
    assert!(!o.stdout.trim().is_empty(), "{}", o.describe());
    assert!(!o.stderr.contains("lost"), "{}", o.describe());
}
