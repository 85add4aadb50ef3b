//! End-to-end: the command line and process control: `-c`, `cpid`/`$target`, `-p`,
//! `-e/--dry-run`, exit codes and diagnostics, and ending on SIGINT/SIGTERM/SIGHUP.
//!
//! Exit codes: 0 success, 1 kernel-setup failure (e.g. a tracepoint that does not
//! exist), 2 usage or compile error.

mod common;

use std::time::Duration;

use common::{run_workload, sonde, wl, Gated, Sonde};

const GETPID: &str = "tracepoint:syscalls:sys_enter_getpid";

// ---------------------------------------------------------------- -c, cpid, $target

#[test]
fn c_ends_when_the_command_exits() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_ce", "sleep", "200", "getpid", "3"]),
        &format!(r#"{GETPID} /comm == "wl_ce"/ {{ @n = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 3, "{}", o.describe());
    assert!(o.elapsed >= Duration::from_millis(200), "{}", o.describe());
    assert!(o.elapsed < Duration::from_secs(20), "{}", o.describe());
}

#[test]
fn c_runs_the_command_with_sh() {
    require_tracepoints!();
    let cmd = format!("for i in 1 2 3; do {}; done", wl(&["comm", "wl_sh", "getpid", "2"]));
    let o = sonde(&["-c", &cmd, &format!(r#"{GETPID} /comm == "wl_sh"/ {{ @n = count(); }}"#)]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 6, "{}", o.describe());
}

#[test]
fn c_events_from_the_start_of_the_command_are_seen() {
    // The command must not run before the probes are attached: its very first
    // syscalls after exec are counted.
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_c0", "getpid", "1"]),
        &format!(r#"{GETPID} /comm == "wl_c0"/ {{ @n = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 1, "{}", o.describe());
}

#[test]
fn cpid_is_the_command_pid() {
    // `exec` so the shell's pid is the workload's (the shell itself may call getpid).
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &format!("exec {}", wl(&["comm", "wl_cp", "getpid", "7"])),
        &format!(r#"{GETPID} /pid == cpid && comm == "wl_cp"/ {{ @n = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 7, "{}", o.describe());
}

#[test]
fn target_is_the_command_pid() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &format!("exec {}", wl(&["comm", "wl_tg", "getpid", "9"])),
        &format!(r#"{GETPID} /pid == $target && comm == "wl_tg"/ {{ @n = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.int("@n"), 9, "{}", o.describe());
}

// ---------------------------------------------------------------- -p

#[test]
fn p_counts_only_that_process() {
    require_tracepoints!();
    // Two workloads wait for a file, then make 100 and 50 getpid calls; sonde
    // follows only the first. No comm filter: -p alone must keep out the second
    // workload and every other process on the machine.
    let mut w = Gated::spawn(&[("wl_pa", &["getpid", "100"]), ("wl_pb", &["getpid", "50"])]);
    let apid = w.pid(0).to_string();
    let mut s = Sonde::new(&["-p", &apid, &format!("{GETPID} {{ @n = count(); }}")]).spawn();
    s.wait_attached();
    w.go();
    w.wait_all();
    // sonde ends by itself when the process exits; if it has not yet, Ctrl-C it.
    std::thread::sleep(Duration::from_millis(300));
    if !s.exited() {
        s.signal(libc::SIGINT);
    }
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.int("@n"), 100, "{}", o.describe());
}

// ---------------------------------------------------------------- dry run

#[test]
fn dry_run_short() {
    require_tracepoints!();
    let o = Sonde::new(&["-e", &format!("{GETPID} {{ @n = count(); }}")])
        .timeout(Duration::from_secs(30))
        .run();
    o.assert_ok();
}

#[test]
fn dry_run_long() {
    require_tracepoints!();
    let o = Sonde::new(&[
        "--dry-run",
        r#"tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args->filename)); @[comm] = count(); } END { printf("end\n"); }"#,
    ])
    .timeout(Duration::from_secs(30))
    .run();
    o.assert_ok();
    // Nothing ran: END's printf did not fire and no map was printed.
    assert!(!o.stdout.contains("end"), "{}", o.describe());
    assert!(!o.stdout.contains("@["), "{}", o.describe());
}

// ---------------------------------------------------------------- errors and exit codes

/// A line pointing at a column: only spaces / `|` before the first `^`.
fn has_caret_line(s: &str) -> bool {
    s.lines().any(|l| match l.find('^') {
        Some(i) => l[..i].chars().all(|c| c == ' ' || c == '|'),
        None => false,
    })
}

#[test]
fn syntax_error_exits_2_with_a_caret() {
    let o = sonde(&[r#"BEGIN { printf("x" }"#]);
    o.assert_code(2);
    assert!(o.stderr.contains("-->"), "no `-->` location line\n{}", o.describe());
    assert!(o.stderr.contains("stdin:1:"), "no `stdin:1:` location\n{}", o.describe());
    assert!(has_caret_line(&o.stderr), "no caret line\n{}", o.describe());
    assert!(
        o.stderr.contains(r#"BEGIN { printf("x" }"#),
        "source line not quoted\n{}",
        o.describe()
    );
}

#[test]
fn syntax_error_on_a_later_line() {
    let o = sonde(&["BEGIN {\n  @x = count();\n  @y = ;\n}"]);
    o.assert_code(2);
    assert!(o.stderr.contains("stdin:3:"), "{}", o.describe());
    assert!(has_caret_line(&o.stderr), "{}", o.describe());
}

#[test]
fn unknown_tracepoint_field_exits_2() {
    require_tracepoints!();
    let o = sonde(&[r#"tracepoint:syscalls:sys_enter_openat { printf("%d\n", args->nosuch); }"#]);
    o.assert_code(2);
    assert!(o.stderr.contains("nosuch"), "stderr should name the field\n{}", o.describe());
    assert!(!o.stderr.contains("Attached"), "{}", o.describe());
}

#[test]
fn nonexistent_tracepoint_is_a_compile_error() {
    // The checker resolves tracepoints against tracefs while typing `args`, so an unknown one is
    // reported like any other name error: exit 2, with the source span, before anything attaches.
    require_tracepoints!();
    let o = sonde(&["tracepoint:syscalls:sys_enter_nosuch_sonde { @n = count(); }"]);
    o.assert_code(2);
    assert!(
        o.stderr.contains("sys_enter_nosuch_sonde"),
        "stderr should name the probe\n{}",
        o.describe()
    );
    assert!(o.stderr.contains("stdin:1:1"), "{}", o.describe());
    assert!(!o.stderr.contains("Attached"), "{}", o.describe());
}

#[test]
fn unknown_option_exits_2() {
    let o = sonde(&["--no-such-option", "BEGIN { exit(); }"]);
    o.assert_code(2);
    assert!(!o.stderr.is_empty(), "{}", o.describe());
}

#[test]
fn unknown_output_format_exits_2() {
    let o = sonde(&["-f", "yaml", "BEGIN { exit(); }"]);
    o.assert_code(2);
}

#[test]
fn no_program_exits_2() {
    let o = sonde(&[]);
    o.assert_code(2);
}

// ---------------------------------------------------------------- faces

#[test]
fn probe_needs_an_expression() {
    let o = sonde(&["probe"]);
    o.assert_code(2);
    assert!(o.stderr.contains("no expression given"), "{}", o.describe());
}

#[test]
fn graph_needs_a_function() {
    let o = sonde(&["graph"]);
    o.assert_code(2);
    assert!(o.stderr.contains("FUNCTION"), "{}", o.describe());
}

#[test]
fn a_program_named_like_a_face_is_a_program_after_dashes() {
    // `trace` is no valid program: it must be parsed (and refused) as one, not taken for the face.
    let o = sonde(&["--", "trace"]);
    o.assert_code(2);
    assert!(o.stderr.contains("stdin:1:"), "{}", o.describe());
    assert!(!o.stderr.contains("not implemented"), "{}", o.describe());
    // After an option, too: options and faces do not mix.
    let o = sonde(&["-e", "graph"]);
    o.assert_code(2);
    assert!(o.stderr.contains("stdin:1:"), "{}", o.describe());
}

#[test]
fn a_file_named_like_a_face_runs() {
    let dir = common::temp_path("face_file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("probe");
    std::fs::write(&file, "BEGIN { printf(\"from a file\\n\"); exit(); }\n").unwrap();
    let o = sonde(&["--", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["from a file"], "{}", o.describe());
}

// ---------------------------------------------------------------- signals

/// Starts sonde counting getpid for `comm`, makes 5 calls once it is attached,
/// sends `sig`, and checks that END ran and the maps were printed.
fn ends_cleanly_on(sig: i32, comm: &str) {
    let prog =
        format!(r#"{GETPID} /comm == "{comm}"/ {{ @n = count(); }} END {{ printf("bye\n"); }}"#);
    let mut s = Sonde::new(&[&prog]).spawn();
    s.wait_attached();
    run_workload(&["comm", comm, "getpid", "5"]);
    s.signal(sig);
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.lines(), vec!["bye", "@n: 5"], "END first, then the maps\n{}", o.describe());
}

#[test]
fn sigint_ends_cleanly() {
    require_tracepoints!();
    ends_cleanly_on(libc::SIGINT, "wl_sigint");
}

#[test]
fn sigterm_ends_cleanly() {
    require_tracepoints!();
    ends_cleanly_on(libc::SIGTERM, "wl_sigterm");
}

#[test]
fn sighup_ends_cleanly() {
    require_tracepoints!();
    ends_cleanly_on(libc::SIGHUP, "wl_sighup");
}

#[test]
fn attaching_line_counts_probes() {
    require_tracepoints!();
    let mut s = Sonde::new(&[&format!(
        r#"{GETPID} {{ @a = count(); }} tracepoint:syscalls:sys_enter_openat {{ @b = count(); }} BEGIN {{ @c = count(); }}"#
    )])
    .spawn();
    s.wait_attached();
    assert!(s.stderr_so_far().contains("Attached 3 probes"), "{}", s.stderr_so_far());
    s.signal(libc::SIGINT);
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.int("@c"), 1, "{}", o.describe());
}

#[test]
fn attaching_line_singular() {
    require_tracepoints!();
    let mut s = Sonde::new(&[&format!("{GETPID} {{ @a = count(); }}")]).spawn();
    s.wait_attached();
    assert!(s.stderr_so_far().contains("Attached 1 probe"), "{}", s.stderr_so_far());
    s.signal(libc::SIGINT);
    s.wait().assert_ok();
}

#[test]
fn list_matches_tracepoints_and_lv_shows_fields() {
    require_tracepoints!();
    let o = sonde(&["-l", "sched:sched_sw*"]);
    o.assert_ok();
    assert!(o.lines().contains(&"tracepoint:sched:sched_switch"), "{}", o.describe());
    assert!(
        o.lines().iter().all(|l| l.starts_with("tracepoint:sched:sched_sw")),
        "{}",
        o.describe()
    );
    let o = sonde(&["-lv", "tracepoint:sched:sched_switch"]);
    o.assert_ok();
    assert!(o.lines().contains(&"    s32 prev_pid"), "{}", o.describe());
    assert!(o.lines().contains(&"    char[16] next_comm"), "{}", o.describe());
    // As programs see them: a typedef through BTF, a pointer to string pointers.
    let o = sonde(&["-lv", "tracepoint:syscalls:sys_enter_lseek"]);
    assert!(o.lines().contains(&"    s64 offset"), "{}", o.describe());
    let o = sonde(&["-lv", "tracepoint:syscalls:sys_enter_execve"]);
    assert!(o.lines().contains(&"    s8 * * argv"), "{}", o.describe());
    let o = sonde(&["-l", "nosuch_category_sonde:*"]);
    o.assert_code(1);
}

#[test]
fn list_of_a_program_lists_what_its_probes_match() {
    require_tracepoints!();
    let o = sonde(&["-l", "BEGIN { } tracepoint:sched:sched_switch, interval:ms:100 { exit(); }"]);
    o.assert_ok();
    assert_eq!(o.lines(), ["tracepoint:sched:sched_switch", "interval:ms:"], "{}", o.describe());
}

#[test]
fn list_of_kernel_types_and_of_several_patterns() {
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("skipped: no kernel BTF");
        return;
    }
    let o = sonde(&["-lv", "struct fd,enum pid_type"]);
    o.assert_ok();
    let lines = o.lines();
    assert!(lines.contains(&"vmlinux: struct fd {"), "{}", o.describe());
    assert!(lines.contains(&"vmlinux: enum pid_type {"), "{}", o.describe());
    assert!(lines.contains(&"\tPIDTYPE_PID = 0,"), "{}", o.describe());
    let o = sonde(&["-l", "struct task_struct"]);
    assert_eq!(o.stdout, "struct task_struct\n", "{}", o.describe());
    sonde(&["-l", "struct no_such_struct_sonde"]).assert_code(1);
}

#[test]
fn list_of_uprobes_by_file_glob_provider_glob_and_pid() {
    // A program of its own with a symbol table (the release profile strips this test's binary).
    let dir = common::temp_path("lglob");
    std::fs::create_dir_all(&dir).unwrap();
    let me = common::build_tprog(&dir.join("tprog-listed"), "-g0");
    let dir = dir.display().to_string();
    // A glob over the directory's files; the provider as a glob lists uprobe and uretprobe.
    let o = sonde(&["-l", &format!("uprobe:{}/tprog-li*:main", dir)]);
    o.assert_ok();
    assert!(o.lines().contains(&format!("uprobe:{}:main", me).as_str()), "{}", o.describe());
    let o = sonde(&["-l", &format!("*:{}:main", me)]);
    assert_eq!(o.lines(), [format!("uprobe:{}:main", me), format!("uretprobe:{}:main", me)]);
    // -p: the files a process has mapped (this test's libc among them).
    let pid = std::process::id().to_string();
    let o = sonde(&["-l", "-p", &pid, "uprobe:*:getpid"]);
    o.assert_ok();
    assert!(o.lines().iter().any(|l| l.ends_with("/libc.so.6:getpid")), "{}", o.describe());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn v_alone_and_version_print_the_version() {
    for flag in ["-v", "--version"] {
        let o = sonde(&[flag]);
        o.assert_ok();
        assert_eq!(
            o.stdout.trim(),
            concat!("sonde ", env!("CARGO_PKG_VERSION")),
            "{}",
            o.describe()
        );
    }
}

// ---------------------------------------------------------------- the faces' own help

#[test]
fn each_face_answers_help_with_its_own_flags() {
    // `--help` and `-h` reach the face's own parser, which lists its flags (the top-level parser
    // used to answer for the faces and list none).
    for (face, flag) in [("trace", "--summary"), ("probe", "--fprobe"), ("graph", "--max-depth")] {
        for help in ["--help", "-h"] {
            let o = sonde(&[face, help]);
            o.assert_code(0);
            assert!(
                o.stdout.contains(flag),
                "`sonde {face} {help}` lists {flag}\n{}",
                o.describe()
            );
        }
    }
}

#[test]
fn the_top_level_help_lists_the_faces() {
    let o = sonde(&["--help"]);
    o.assert_code(0);
    for face in ["probe", "trace", "graph", "serve", "completions"] {
        assert!(
            o.stdout.contains(&format!("\n  {face} ")),
            "`sonde --help` lists {face}\n{}",
            o.describe()
        );
    }
}

#[test]
fn each_face_help_shows_its_anchors_flags() {
    let cases: &[(&str, &[&str])] = &[
        (
            "trace",
            &[
                "-f, --follow-forks",
                "-c, --summary",
                "-C, --with-summary",
                "-s, --string-limit",
                "-T, --syscall-times",
                "--format <FORMAT>",
                "--json",
                "Refused, not implemented yet: strace's",
            ],
        ),
        (
            "probe",
            &[
                "-S, --show",
                "-s, --stack",
                "-f, --file",
                "--format <FORMAT>",
                "--json",
                "[-- <CMD>...]",
            ],
        ),
        (
            "graph",
            &[
                "-d, --duration",
                "--max-depth",
                "-f, --format",
                "--json",
                "-n, --max-events",
                "[-- <CMD>...]",
            ],
        ),
        ("serve", &["--listen"]),
    ];
    for (face, flags) in cases {
        let o = sonde(&[face, "--help"]);
        o.assert_code(0);
        for flag in *flags {
            assert!(
                o.stdout.contains(flag),
                "`sonde {face} --help` shows {flag}\n{}",
                o.describe()
            );
        }
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, mark) in
        [("bash", "_sonde()"), ("zsh", "#compdef sonde"), ("fish", "complete -c sonde")]
    {
        let o = sonde(&["completions", shell]);
        o.assert_ok();
        assert!(o.stdout.contains(mark), "{shell}: {}", o.describe());
        // The faces' own flags are in it: one set of definitions.
        assert!(o.stdout.contains("string-limit"), "{shell}: {}", o.describe());
    }
    let o = sonde(&["completions", "tcsh"]);
    o.assert_code(2);
}

#[test]
fn strace_flags_sonde_trace_does_not_do_are_refused_in_one_sentence() {
    for (flags, want) in [
        (&["-S", "bogus"][..], "sonde: -S: invalid sortby: 'bogus'"),
        (&["-e", "read=3"], "sonde: -e read=: strace's qualifier read is not implemented in sonde trace yet (trace=, status=failed and signal= are)"),
        (&["-s", "9999"], "sonde: -s 9999: sonde copies from 1 to 255 bytes of a buffer"),
    ] {
        let mut args = vec!["trace"];
        args.extend_from_slice(flags);
        args.extend(["--", "true"]);
        let o = sonde(&args);
        o.assert_code(2);
        assert_eq!(o.stderr.trim_end(), want, "{flags:?}");
        assert!(o.stdout.is_empty(), "{flags:?}: nothing ran\n{}", o.describe());
    }
}

#[test]
fn flag_mistakes_are_one_sentence_and_exit_2_in_every_face() {
    for (args, want) in [
        (&["trace", "--tid", "999999999"][..], "sonde: --tid 999999999: no thread has that id"),
        (&["trace", "--uid", "no_such_user_sonde", "--all"], "sonde: --uid no_such_user_sonde: no user has that name"),
        (&["probe", "-c", "ls", "p vfs_read", "--", "true"], "sonde: give the command once: -c LINE or `-- CMD ARGS...`, not both"),
        (&["graph", "-p", "1", "vfs_read", "--", "true"], "sonde: -p PID and a command after `--` are two targets: give one"),
        (&["graph", "-m", "raw", "-f", "json", "vfs_read"], "sonde: --json prints calls as JSON lines: it goes with -m tree or svg, or -m folded -o FILE"),
    ] {
        let o = sonde(args);
        o.assert_code(2);
        assert_eq!(o.stderr.trim_end(), want, "{args:?}");
    }
    // clap's own errors (a value that does not parse) exit 2 too.
    let o = sonde(&["graph", "-d", "soon", "vfs_read"]);
    o.assert_code(2);
    assert!(o.stderr.contains("`soon` is not a duration"), "{}", o.describe());
}
