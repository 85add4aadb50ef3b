//! End-to-end: `iter:` BPF iterators on this host, against a workload held waiting (so its
//! threads, files and mappings stay as they are): `iter:task` finds it once, `iter:task_file`
//! finds each of its descriptors, `iter:task_vma` each of its mappings; the run ends with the
//! iteration. Without privilege, the one sentence that says so.

mod common;

use common::{as_nobody, sonde, Gated};

fn held(comm: &str) -> Gated {
    let g = Gated::spawn(&[(comm, &["getpid", "1"])]);
    // Until its comm is set, the workload is still `sonde-workload`.
    let path = format!("/proc/{}/comm", g.pid(0));
    for _ in 0..1000 {
        if std::fs::read_to_string(&path).is_ok_and(|c| c.trim() == comm) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    g
}

#[test]
fn task_finds_the_workload_once_by_pid_and_comm() {
    require_bpf!();
    let g = held("wl_iter_task");
    let pid = g.pid(0);
    let o = sonde(&[&format!(
        r#"iter:task /ctx.task.tgid == {pid}/ {{ printf("%d %s\n", ctx.task.pid, ctx.task.comm); }}"#
    )]);
    o.assert_ok();
    assert_eq!(o.lines(), [format!("{pid} wl_iter_task")], "{}", o.describe());
    g.go();
}

#[test]
fn task_file_finds_every_descriptor() {
    require_bpf!();
    let g = held("wl_iter_file");
    let pid = g.pid(0);
    let o =
        sonde(&[&format!("iter:task_file /ctx.task.tgid == {pid}/ {{ @[ctx.fd] = count(); }}")]);
    o.assert_ok();
    let mut fds: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    fds.sort_by_key(|f| f.parse::<u32>().unwrap());
    let seen: Vec<String> = o
        .lines()
        .iter()
        .filter_map(|l| l.strip_prefix("@[")?.split_once(']'))
        .map(|(fd, n)| {
            assert_eq!(n, ": 1", "{}", o.describe());
            fd.to_string()
        })
        .collect();
    assert_eq!(seen, fds, "{}", o.describe());
    g.go();
}

#[test]
fn task_vma_finds_every_mapping() {
    require_bpf!();
    let g = held("wl_iter_vma");
    let pid = g.pid(0);
    let o = sonde(&[&format!(
        r#"iter:task_vma /ctx.task.tgid == {pid}/ {{ printf("%x\n", ctx.vma.vm_start); }}"#
    )]);
    o.assert_ok();
    // /proc/PID/maps also shows [vsyscall], which is no mapping of the process's own.
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap();
    let starts: Vec<&str> = maps
        .lines()
        .filter(|l| !l.ends_with("[vsyscall]"))
        .map(|l| l.split('-').next().unwrap().trim_start_matches('0'))
        .collect();
    assert_eq!(o.lines(), starts, "{}", o.describe());
    g.go();
}

#[test]
fn printf_and_exit_end_the_run_after_the_iteration() {
    require_bpf!();
    let o = sonde(&[
        r#"iter:task { printf("%s: %d\n", "hello", 0); exit(); } END { printf("end\n"); }"#,
    ]);
    o.assert_ok();
    let lines = o.lines();
    assert!(
        lines.len() > 2 && lines[..lines.len() - 1].iter().all(|l| *l == "hello: 0"),
        "{}",
        o.describe()
    );
    assert_eq!(lines.last(), Some(&"end"), "{}", o.describe());
}

#[test]
fn without_privilege_the_sentence_says_so() {
    let Some(o) = as_nobody("", &["iter:task { printf(\"%d\\n\", ctx.task.pid); }"]) else {
        return;
    };
    o.assert_code(1);
    assert!(o.stderr.starts_with("sonde: needs root"), "{}", o.describe());
    assert!(!o.stderr.contains("panicked"), "{}", o.describe());
}

#[test]
fn json_has_one_printf_record_a_line() {
    require_bpf!();
    // This test's own process: its main thread, once.
    let me = std::process::id();
    let prog = format!(
        r#"iter:task /ctx.task.pid == {me}/ {{ printf("a %d\n", 1); printf("b %d\n", 2); }}"#
    );
    let o = sonde(&["-f", "json", &prog]);
    o.assert_ok();
    let printed: Vec<String> = o
        .json()
        .iter()
        .filter(|r| r["type"] == "printf")
        .map(|r| r["data"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(printed, ["a 1\n", "b 2\n"], "{}", o.describe());
}
