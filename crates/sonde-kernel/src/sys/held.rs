//! fork(2) with the child held at a pipe before its execve(2): the `-c` command, whose pid is
//! known (and probed) before it runs anything of its own.
#![allow(unsafe_code)]

use super::Errno;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Fork a child that waits for one byte on a pipe, then execs `path` with `argv` and `envp`.
/// Returns its pid and the pipe's write end: writing a byte releases it, closing the end without
/// one (sonde died) makes it exit 1. Before the wait the child resets what a command must not
/// inherit (ignored SIGPIPE, blocked signals), so after the release only the read's return
/// precedes the exec. A failed exec exits 127.
pub(crate) fn fork_held(
    path: &CString,
    argv: &[CString],
    envp: &[CString],
) -> Result<(i32, OwnedFd), Errno> {
    let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_ptrs.push(std::ptr::null());
    let mut env_ptrs: Vec<*const libc::c_char> = envp.iter().map(|e| e.as_ptr()).collect();
    env_ptrs.push(std::ptr::null());
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 fills two fds we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(super::errno());
    }
    // SAFETY: the kernel just returned these fds and nothing else owns them.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: after the fork the child calls only async-signal-safe functions (close, signal,
    // sigprocmask, read, execve, _exit) on memory prepared above, and never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(super::errno());
    }
    if pid == 0 {
        // SAFETY: as above.
        unsafe {
            hold_then_exec(read_end.as_raw_fd(), write_end.as_raw_fd(), path, &argv_ptrs, &env_ptrs)
        }
    }
    Ok((pid, write_end))
}

/// # Safety
/// Only in the child of a fork, with pointers prepared before it.
unsafe fn hold_then_exec(
    rfd: i32,
    wfd: i32,
    path: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    // Our copy of the write end would keep the pipe open if sonde died.
    libc::close(wfd);
    libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    let mut byte = 0u8;
    loop {
        let n = libc::read(rfd, (&mut byte as *mut u8).cast(), 1);
        if n == 1 {
            break;
        }
        if n < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        }
        libc::_exit(1);
    }
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
