//! fork(2) with the child held, stopped, before its execve(2): the `-c` command, whose pid is
//! known (and probed) before it runs anything of its own.
#![allow(unsafe_code)]

use super::Errno;
use std::ffi::CString;

/// Fork a child that stops itself (SIGSTOP), then, once continued (SIGCONT), execs `path` with
/// `argv` and `envp`. A stop is no syscall: the `kill` that stops it has returned (its exit
/// traced) before the stop, so after the release the child's first syscall is the exec and no
/// syscall probe attached meanwhile sees anything of sonde's in it. Before the stop the child
/// resets what a command must not inherit (sonde's signal handlers, blocked signals) and asks
/// for SIGKILL when sonde dies (sonde ends a command still running when it stops anyway), so a
/// child is never left stopped. A failed exec exits 127. Returns the child's pid.
pub(crate) fn fork_held(path: &CString, argv: &[CString], envp: &[CString]) -> Result<i32, Errno> {
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const libc::c_char> = envp.iter().map(|e| e.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: after the fork the child calls only async-signal-safe functions (signal,
    // sigprocmask, prctl, getppid, getpid, kill, execve, _exit) on memory prepared above, and
    // never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(super::errno());
    }
    if pid == 0 {
        // SAFETY: as above.
        unsafe { stop_then_exec(parent, path, &argv_ptrs, &env_ptrs) }
    }
    Ok(pid)
}

/// # Safety
/// Only in the child of a fork, with pointers prepared before it.
unsafe fn stop_then_exec(
    parent: i32,
    path: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    for sig in [libc::SIGPIPE, libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        libc::signal(sig, libc::SIG_DFL);
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    if libc::getppid() != parent {
        libc::_exit(1); // sonde died before the prctl
    }
    libc::kill(libc::getpid(), libc::SIGSTOP);
    libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr());
    libc::_exit(127)
}

/// waitpid(2) on a child: its exit status (128 + the signal for a killed one, as shells say) once
/// it has exited and is reaped, None while it runs (`block` false). Retries EINTR.
pub(crate) fn wait_child(pid: i32, block: bool) -> Result<Option<i32>, Errno> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes the status word we own.
        let r = unsafe { libc::waitpid(pid, &mut status, if block { 0 } else { libc::WNOHANG }) };
        if r < 0 {
            match super::errno() {
                libc::EINTR => continue,
                e => return Err(e),
            }
        }
        if r == 0 {
            return Ok(None);
        }
        return Ok(Some(if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            128 + libc::WTERMSIG(status)
        }));
    }
}

/// kill(2) with SIGKILL.
pub(crate) fn kill_child(pid: i32) {
    // SAFETY: no pointers.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

/// kill(2) with SIGCONT: a held child goes on to its exec.
pub(crate) fn continue_child(pid: i32) {
    // SAFETY: no pointers.
    unsafe { libc::kill(pid, libc::SIGCONT) };
}
