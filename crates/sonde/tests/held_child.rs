//! The `-c` / `--` command is held before its exec, not in a shell: what sonde sees of it is the
//! command itself, from its execve on (as strace's first line is), in every face.

mod common;

use common::trace::{skip, trace};
use common::{sonde, wl};

#[test]
fn a_traced_command_starts_at_its_execve() {
    if skip() {
        return;
    }
    let out = trace(&["--strace"], &["getppid", "2"]);
    let first = out.lines().into_iter().find(|l| !l.is_empty()).unwrap_or_default().to_string();
    assert!(first.starts_with("execve(\""), "{}", out.describe());
    assert!(first.contains("sonde-workload"), "{}", out.describe());
}

#[test]
fn every_syscall_of_cpid_is_the_commands_own() {
    require_tracepoints!();
    // A held shell read the release a byte at a time and set up its redirections, all after the
    // probes were attached: those calls were counted under comm `sh`.
    let cmd = wl(&["getppid", "5"]);
    let o = sonde(&[
        "-c",
        &cmd,
        "tracepoint:raw_syscalls:sys_enter /pid == cpid/ { @[comm] = count(); }",
    ]);
    o.assert_ok();
    // Besides the command's own calls, only its execve, entered under sonde's comm (the comm
    // changes with the exec).
    assert_eq!(other_comms(&o), ["@[sonde]: 1"], "{}", o.describe());
    assert!(o.int("@[sonde-workload]") >= 5, "{}", o.describe());
}

#[test]
fn no_syscall_of_the_release_returns_after_the_attach() {
    require_tracepoints!();
    // A hold that ends by returning from a syscall after the attach shows that syscall's exit
    // under comm `sonde`, and one sys_exit_read more than the command's own reads.
    let cmd = wl(&["read", "7", "16"]);
    let o = sonde(&[
        "-c",
        &cmd,
        "tracepoint:raw_syscalls:sys_exit /pid == cpid/ { @[comm] = count(); }
         tracepoint:syscalls:sys_enter_read /pid == cpid/ { @enter = count(); }
         tracepoint:syscalls:sys_exit_read /pid == cpid/ { @exit = count(); }",
    ]);
    o.assert_ok();
    assert!(other_comms(&o).is_empty(), "{}", o.describe());
    assert_eq!(o.int("@exit"), o.int("@enter"), "{}", o.describe());
    assert!(o.int("@enter") >= 7, "{}", o.describe());
}

/// The `@[comm]: N` lines of comms other than the command's.
fn other_comms(o: &common::Output) -> Vec<&str> {
    o.lines()
        .into_iter()
        .filter(|l| l.starts_with("@[") && !l.starts_with("@[sonde-workload]: "))
        .collect()
}
