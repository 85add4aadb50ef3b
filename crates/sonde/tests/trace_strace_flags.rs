//! End-to-end: the strace flags that choose and spell what `sonde trace` prints, each against
//! strace's own text for the same run where strace is installed: `-P`, `-yy`.

mod common;

use common::trace::{skip, strace_installed, trace};
use common::{sonde, temp_path, workload};
use std::process::Command;

/// strace's lines for the workload run with these flags (`-f -qq`), spaces collapsed.
fn strace_lines(flags: &[&str], wl: &[&str]) -> Vec<String> {
    let out = Command::new("strace")
        .args(["-f", "-qq"])
        .args(flags)
        .arg(workload())
        .args(wl)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stderr).lines().map(collapsed).collect()
}

fn collapsed(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn capital_p_keeps_the_calls_on_the_path_and_its_fds() {
    if skip() {
        return;
    }
    // A path the entry cannot read (openat-cold) is decided at the exit: /etc/passwd's is dropped.
    let wl = [
        "openat-cold",
        "/etc/hostname",
        "openat-cold",
        "/etc/passwd",
        "openat",
        "1",
        "/etc/hostname",
    ];
    let want = [
        "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 4",
        "close(4) = 0",
        "openat(AT_FDCWD, \"/etc/hostname\", O_RDONLY) = 5",
        "close(5) = 0",
    ];
    // Every syscall (raw tracepoints), and a few on their own tracepoints.
    for e in [None, Some("openat,close,mmap,write")] {
        let mut flags = vec!["--strace", "-qq", "-P", "/etc/hostname"];
        flags.extend(e.iter().flat_map(|e| ["-e", e]));
        let out = trace(&flags, &wl);
        let lines: Vec<String> = out.stdout.lines().map(collapsed).collect();
        assert_eq!(lines, want, "{e:?}: {}", out.describe());
    }
    if strace_installed() {
        assert_eq!(strace_lines(&["-P", "/etc/hostname"], &wl), want);
    }
}

/// Pids differ from run to run: every number is N.
fn numbers_masked(line: &str) -> String {
    let mut out = String::new();
    for c in line.chars() {
        match (c.is_ascii_digit(), out.ends_with('N')) {
            (true, true) => {}
            (true, false) => out.push('N'),
            (false, _) => out.push(c),
        }
    }
    out
}

#[test]
fn capital_y_names_pids_with_their_comms() {
    if skip() {
        return;
    }
    let wl = ["comm", "ywork", "getpid", "1", "fork", "ykid"];
    let set = "getpid,prctl,exit_group";
    let out = trace(&["--strace", "-qq", "-Y", "-e", set], &wl);
    let ours: Vec<String> = out.stdout.lines().map(|l| numbers_masked(&collapsed(l))).collect();
    let want = [
        "prctl(PR_SET_NAME, \"ywork\") = N",
        "getpid() = N<ywork>",
        "[pid N<ywork>] prctl(PR_SET_NAME, \"ykid\") = N",
        "[pid N<ykid>] exit_group(N) = ?",
        "--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=N, si_uid=N, si_status=N, si_utime=N, si_stime=N} ---",
        "exit_group(N) = ?",
    ];
    assert_eq!(ours, want, "{}", out.describe());
    if strace_installed() {
        let theirs: Vec<String> = strace_lines(&["-Y", "-e", set], &wl)
            .iter()
            .map(|l| numbers_masked(l.split_once("] ").map_or(l, |(_, r)| r)))
            .collect();
        let ours_bare: Vec<String> = ours
            .iter()
            .map(|l| l.split_once("] ").map_or(l.clone(), |(_, r)| r.to_string()))
            .collect();
        assert_eq!(theirs, ours_bare);
    }
}

#[test]
fn capital_x_spells_constants_as_numbers_or_both() {
    if skip() {
        return;
    }
    let wl = ["openat", "1", "/etc/hostname", "lseek", "1", "kill", "1", "0"];
    let set = "openat,lseek,kill";
    for (style, line) in [
        ("raw", "openat(-100, \"/etc/hostname\", 0) = N"),
        ("verbose", "openat(-100 /* AT_FDCWD */, \"/etc/hostname\", 0 /* O_RDONLY */) = N"),
    ] {
        let out = trace(&["--strace", "-qq", "-X", style, "-e", set], &wl);
        let ours: Vec<String> = out.stdout.lines().map(|l| numbers_masked(&collapsed(l))).collect();
        let line = numbers_masked(line);
        assert!(ours.contains(&line), "{line}: {}", out.describe());
        if strace_installed() {
            let theirs: Vec<String> = strace_lines(&["-X", style, "-e", set], &wl)
                .iter()
                .map(|l| numbers_masked(l))
                .collect();
            assert_eq!(ours, theirs, "-X {style}");
        }
    }
}

#[test]
fn capital_s_and_capital_u_shape_strace_s_table() {
    if skip() {
        return;
    }
    let wl = ["getpid", "5", "lseek", "3"];
    let columns = "name,calls,errors";
    for sort in ["calls", "name", "nothing"] {
        let out = trace(&["-c", "-U", columns, "-S", sort], &wl);
        assert!(
            out.stdout.starts_with("syscall              calls    errors\n"),
            "{}",
            out.describe()
        );
        assert!(
            out.stdout.contains("\ngetpid                   5          \n"),
            "{}",
            out.describe()
        );
        assert!(
            out.stdout.contains("\nlseek                    3         3\n"),
            "{}",
            out.describe()
        );
        if strace_installed() {
            let theirs = Command::new("strace")
                .args(["-f", "-c", "-U", columns, "-S", sort])
                .arg(workload())
                .args(wl)
                .output()
                .unwrap();
            assert_eq!(out.stdout, String::from_utf8_lossy(&theirs.stderr), "-S {sort}");
        }
    }
    // Times differ from strace's (and between runs): the layout is the same.
    let out = trace(&["-c", "--strace"], &wl);
    let head: Vec<&str> = out.stdout.lines().take(2).collect();
    assert_eq!(
        head,
        [
            "% time     seconds  usecs/call     calls    errors syscall",
            "------ ----------- ----------- --------- --------- ----------------"
        ]
    );
    assert!(
        out.stdout.lines().last().is_some_and(|l| l.starts_with("100.00 ")),
        "{}",
        out.describe()
    );
}

/// The files `PREFIX.TID` in `dir`, each one's lines (numbers masked), the first task's first.
fn per_task_files(dir: &std::path::Path) -> Vec<Vec<String>> {
    let mut files: Vec<(u32, Vec<String>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let tid = e.file_name().to_str()?.strip_prefix("out.")?.parse().ok()?;
            let text = std::fs::read_to_string(e.path()).ok()?;
            // SIGCHLD comes before or after the wait, as the child's end and the wait race.
            let lines = text.lines().filter(|l| !l.starts_with("--- SIGCHLD"));
            Some((tid, lines.map(|l| numbers_masked(&collapsed(l))).collect()))
        })
        .collect();
    files.sort();
    files.into_iter().map(|(_, lines)| lines).collect()
}

#[test]
fn ff_writes_each_task_s_lines_to_its_own_file() {
    if skip() {
        return;
    }
    let wl = ["getpid", "1", "fork", "kid", "getppid", "1"];
    let set = "getpid,getppid,prctl,exit_group,wait4";
    let dir = common::temp_path("ff");
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("out");
    let out = common::sonde(
        &[
            "trace",
            "--strace",
            "-ff",
            "-o",
            prefix.to_str().unwrap(),
            "-e",
            set,
            "--",
            workload().to_str().unwrap(),
        ]
        .iter()
        .copied()
        .chain(wl)
        .collect::<Vec<_>>(),
    );
    out.assert_ok();
    let ours = per_task_files(&dir);
    let want: Vec<Vec<&str>> = vec![
        vec![
            "getpid() = N",
            "waitN(N, [{WIFEXITED(s) && WEXITSTATUS(s) == N}], N, NULL) = N",
            "getppid() = N",
            "exit_group(N) = ?",
            "+++ exited with N +++",
        ],
        vec!["prctl(PR_SET_NAME, \"kid\") = N", "exit_group(N) = ?", "+++ exited with N +++"],
    ];
    assert_eq!(ours, want, "{}", out.describe());
    if strace_installed() {
        let theirs = common::temp_path("ff-strace");
        std::fs::create_dir_all(&theirs).unwrap();
        let st = Command::new("strace")
            .args(["-ff", "-e", set, "-o"])
            .arg(theirs.join("out"))
            .arg(workload())
            .args(wl)
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(per_task_files(&theirs), want);
        let _ = std::fs::remove_dir_all(&theirs);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn k_names_each_call_s_user_frames_as_strace_does() {
    if skip() {
        return;
    }
    // The frames are named from the process's mappings when its records are read: it is still
    // running then.
    let wl = ["getpid", "1", "sleep", "1500"];
    let out = trace(&["--strace", "-qq", "-k", "-e", "getpid"], &wl);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("getpid() = "));
    let at = at.unwrap_or_else(|| panic!("{}", out.describe()));
    let first = lines.get(at + 1).copied().unwrap_or_default();
    // libc's syscall() makes the call: its frame first, with its offset in the file.
    assert!(
        first.starts_with(" > /") && first.contains("libc.so.6(syscall+0x"),
        "{}",
        out.describe()
    );
    assert!(first.ends_with(']') && first.contains(") [0x"), "{}", out.describe());
    if strace_installed() {
        let theirs = strace_lines(&["-k", "-e", "getpid"], &wl);
        let at = theirs.iter().position(|l| l.starts_with("getpid() = ")).unwrap();
        assert_eq!(collapsed(first), theirs[at + 1]);
    }
}

/// Stack addresses differ from run to run: `0x7f...` arguments are 0xADDR.
fn stack_masked(line: &str) -> String {
    let args = line.split(", ").map(|a| match a.starts_with("0x7f") {
        true => "0xADDR",
        false => a,
    });
    args.collect::<Vec<_>>().join(", ")
}

#[test]
fn v_prints_struct_stat_whole() {
    if skip() {
        return;
    }
    // The workload's own fstat-family call on a file nobody changes meanwhile.
    let wl = ["openat", "1", "/etc/hostname"];
    let set = "newfstatat,fstat";
    let out = trace(&["--strace", "-qq", "-v", "-e", set], &wl);
    let ours: Vec<String> = out.stdout.lines().map(|l| stack_masked(&collapsed(l))).collect();
    assert!(
        ours.iter()
            .all(|l| !l.contains("st_mode=")
                || l.contains("st_ino=") && l.contains("st_ctime_nsec=")),
        "{}",
        out.describe()
    );
    if strace_installed() {
        // The loader's stats of the same libraries, in the same order.
        let theirs: Vec<String> =
            strace_lines(&["-v", "-e", set], &wl).iter().map(|l| stack_masked(l)).collect();
        assert_eq!(ours, theirs);
    }
}

#[test]
fn v_prints_struct_statx_and_termios_whole() {
    if skip() {
        return;
    }
    let wl = ["statx", "/etc/hostname", "tcgetattr"];
    let out = trace(&["--strace", "-qq", "-v", "-e", "statx,ioctl"], &wl);
    let ours: Vec<String> = out.stdout.lines().map(|l| stack_masked(&collapsed(l))).collect();
    let whole = |l: &&String| l.contains("stx_mnt_id=") || l.contains("c_cc=[[VINTR]=");
    assert_eq!(ours.iter().filter(whole).count(), 2, "{}", out.describe());
    if strace_installed() {
        let theirs: Vec<String> = strace_lines(&["-v", "-e", "statx,ioctl"], &wl)
            .iter()
            .map(|l| stack_masked(l))
            .collect();
        assert_eq!(ours, theirs);
    }
}

/// A TCP listener, a client and the accepted socket; a bound UDP socket and a connected one.
/// Sleeps so that lines printed a little after their calls still find the same sockets. Prints
/// what strace -yy shows for each fd (`want 4<TCP:[127.0.0.1:P->127.0.0.1:Q]>`).
const LOOPBACK: &str = r#"
import socket, time
def tcp(s, peer=True):
    a, p = s.getsockname()
    if not peer:
        return f"{s.fileno()}<TCP:[{a}:{p}]>"
    b, q = s.getpeername()
    return f"{s.fileno()}<TCP:[{a}:{p}->{b}:{q}]>"
def udp(s, peer):
    a, p = s.getsockname()
    if not peer:
        return f"{s.fileno()}<UDP:[{a}:{p}]>"
    b, q = s.getpeername()
    return f"{s.fileno()}<UDP:[{a}:{p}->{b}:{q}]>"
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.socket(); c.connect(s.getsockname())
a, _ = s.accept()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
v = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); v.connect(u.getsockname())
want = [tcp(s, False), tcp(c), tcp(a), udp(u, False), udp(v, True)]
time.sleep(0.5)
s.getsockname(); c.send(b"hi"); a.recv(2); v.send(b"x"); u.recv(1)
time.sleep(0.5)
for o in (c, a, s, v, u):
    o.close()
print("want", *want)
"#;

const LOOPBACK_CALLS: &str = "socket,bind,listen,connect,accept4,getsockname,sendto,recvfrom,close";

fn python_installed() -> bool {
    let ok = Command::new("python3").arg("-V").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 not installed");
    }
    ok
}

/// The lines naming a TCP or UDP socket, numbers masked.
fn loopback_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("<TCP:") || l.contains("<UDP:"))
        .map(|l| numbers_masked(&collapsed(l)))
        .collect()
}

fn strace_yy_text() -> String {
    let file = temp_path("strace-yy");
    let st = Command::new("strace")
        .args(["-qq", "-yy", "-e", &format!("trace={LOOPBACK_CALLS}"), "-o"])
        .arg(&file)
        .args(["python3", "-c", LOOPBACK])
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    text
}

#[test]
fn yy_prints_loopback_tcp_and_udp_endpoints_as_strace_does() {
    if skip() || !python_installed() {
        return;
    }
    let file = temp_path("sonde-yy");
    let path = file.to_str().unwrap();
    let out = sonde(&[
        "trace",
        "--strace",
        "-qq",
        "-yy",
        "-e",
        LOOPBACK_CALLS,
        "-o",
        path,
        "--",
        "python3",
        "-c",
        LOOPBACK,
    ]);
    out.assert_ok();
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    let want = out.stdout.lines().find_map(|l| l.strip_prefix("want ")).unwrap_or_default();
    let wants: Vec<&str> = want.split(' ').collect();
    assert_eq!(wants.len(), 5, "{}", out.describe());
    for w in &wants {
        // Each socket's endpoints on its sendto/recvfrom/getsockname line and on its close.
        let n = text.lines().filter(|l| l.contains(&format!("({w}"))).count();
        assert!(n >= 2, "{w} on fewer than two lines:\n{text}");
    }
    let ours = loopback_lines(&text);
    if strace_installed() {
        assert_eq!(ours, loopback_lines(&strace_yy_text()), "{text}");
    }
}
