//! End-to-end: ply's language features beyond bpftrace's: `uptr()` (reads through user memory),
//! printf's `%v`, `-u`/`--unbuffer`.

mod common;

use common::{skip_reason, skip_reason_tracepoints, sonde, traced_ok, Sonde};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

macro_rules! skip_unless {
    ($reason:expr) => {
        if let Some(reason) = $reason {
            println!("skipped: {reason}");
            return;
        }
    };
}

fn no_btf() -> Option<String> {
    (!Path::new("/sys/kernel/btf/vmlinux").exists())
        .then(|| "no kernel BTF (/sys/kernel/btf/vmlinux)".to_string())
}

#[test]
fn str_of_uptr_reads_the_processs_memory() {
    // raw_syscalls' arguments are plain integers: uptr() makes openat's path a user pointer.
    skip_unless!(skip_reason_tracepoints());
    let o = traced_ok(
        &["openat", "1", "/etc/hostname"],
        "tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 257/ \
         { printf(\"%s\\n\", str(uptr(args->args[1]))); }",
    );
    // The loader's opens come first; the workload's own open is the last.
    let lines = o.lines();
    assert_eq!(lines.last(), Some(&"/etc/hostname"), "{}", o.describe());
    assert!(lines.iter().all(|l| l.starts_with('/')), "{}", o.describe());
}

#[test]
fn uptr_reads_user_memory_only() {
    // curtask is a kernel address: through uptr() the user-memory helper refuses it and the
    // read is 0, while the plain read sees the pid.
    skip_unless!(skip_reason());
    skip_unless!(no_btf());
    let s = Sonde::new(&[
        r#"BEGIN { printf("%d %d\n", uptr(curtask)->pid, kptr(curtask)->pid); exit(); }"#,
    ])
    .spawn();
    let pid = s.pid();
    let o = s.wait();
    o.assert_ok();
    assert_eq!(o.lines(), vec![format!("0 {pid}")], "{}", o.describe());
}

#[test]
fn uptr_of_a_string_is_a_compile_error() {
    let o = sonde(&["-e", "BEGIN { printf(\"%p\\n\", uptr(comm)); }"]);
    o.assert_code(2);
    assert!(o.stderr.contains("uptr() needs a pointer or an address"), "{}", o.describe());
    assert!(o.stderr.contains("1:29"), "{}", o.describe());
}

#[test]
fn printf_v_prints_each_value_as_print_does() {
    skip_unless!(skip_reason_tracepoints());
    let o = traced_ok(
        &["comm", "wl_pv", "getpid", "1"],
        r#"tracepoint:syscalls:sys_enter_getpid /pid == cpid && comm == "wl_pv"/ { m[pid] = comm;
           printf("%v|%v|%v|%d|%v|%5v|%-3v|\n", comm, pid, m[pid], cpid, walltime, "x", -1); }"#,
    );
    let lines = o.lines();
    assert_eq!(lines.len(), 2, "the line, then m at exit\n{}", o.describe());
    let f: Vec<&str> = lines[0].split('|').collect();
    assert_eq!((f[0], f[2]), ("wl_pv", "wl_pv"), "{}", o.describe());
    assert_eq!(f[1], f[3], "pid == cpid\n{}", o.describe());
    assert!(f[1].parse::<u32>().is_ok_and(|p| p > 1), "{}", o.describe());
    // walltime prints as print() shows it: an RFC 3339 UTC timestamp.
    assert!(
        f[4].starts_with("20") && f[4].ends_with('Z') && f[4].contains('T'),
        "{}",
        o.describe()
    );
    assert_eq!((f[5], f[6], f[7]), ("    x", "-1 ", ""), "{}", o.describe());
}

#[test]
fn unbuffer_reaches_a_pipe_at_once_one_write_per_record() {
    // Through a pipe, a printf without a newline is readable while sonde runs.
    skip_unless!(skip_reason());
    let prog = r#"BEGIN { printf("ready"); } interval:50ms { printf("."); }"#;
    let mut s = Sonde::new(&["-u", prog]).spawn();
    s.wait_stdout("ready..", Duration::from_secs(10));
    s.signal(libc::SIGINT);
    let o = s.wait();
    o.assert_ok();
    assert!(o.stdout.starts_with("ready.."), "{}", o.describe());

    // Under strace: with -u each record is its own write(2) to stdout, without it one write
    // carries the whole drain.
    if Command::new("strace").arg("-V").output().is_err() {
        println!("skipped the strace half: no strace");
        return;
    }
    let prog = r#"BEGIN { printf("a"); printf("b"); printf("c\n"); exit(); }"#;
    let writes = |flags: &[&str]| -> Vec<String> {
        let log = common::temp_path("strace");
        let o = Command::new("strace")
            .args(["-qq", "-e", "trace=write", "-e", "signal=none", "-o"])
            .arg(&log)
            .arg(common::sonde_bin())
            .args(flags)
            .arg(prog)
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&o.stdout), "abc\n\n\n");
        let text = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_file(&log);
        text.lines().filter(|l| l.starts_with("write(1,")).map(str::to_string).collect()
    };
    // Each record, then the run's end (bpftrace's two newlines).
    let unbuffered = writes(&["-u"]);
    assert_eq!(unbuffered.len(), 4, "{unbuffered:?}");
    assert!(unbuffered[0].starts_with("write(1, \"a\", 1)"), "{unbuffered:?}");
    assert!(unbuffered[3].starts_with("write(1, \"\\n\\n\", 2)"), "{unbuffered:?}");
    // Without it one write carries the whole drain, and one the run's end.
    let buffered = writes(&[]);
    assert_eq!(buffered.len(), 2, "{buffered:?}");
    assert!(buffered[0].starts_with("write(1, \"abc\\n\", 4)"), "{buffered:?}");
}
