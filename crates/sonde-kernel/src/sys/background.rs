//! Closing fds whose release is slow (tracepoint perf events) in a helper process.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// Close `fds`, in order, in a detached grandchild so their (slow) release does not block us. The
/// grandchild first closes every other fd it inherited (stdin/stdout too), waits until we have
/// closed our copies (pipe EOF) so that its close is the last reference, closes `fds`, and exits.
/// Between fork and _exit it only makes async-signal-safe calls. Hands `fds` back if no process
/// could be made.
pub(crate) fn close_in_background(fds: Vec<OwnedFd>) -> Result<(), Vec<OwnedFd>> {
    let order: Vec<RawFd> = fds.iter().map(|f| f.as_raw_fd()).collect();
    let mut pipe = [0 as RawFd; 2];
    // SAFETY: pipe2 writes two fds into the array.
    if unsafe { libc::pipe2(pipe.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(fds);
    }
    let mut keep = order.clone();
    keep.push(pipe[0]);
    keep.sort_unstable();
    // SAFETY: the children below only call fork, close_range, read, close and _exit, and touch only
    // memory prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: as above; never returns.
        unsafe {
            if libc::fork() != 0 {
                libc::_exit(0); // the intermediate: orphans the grandchild, so init reaps it
            }
            let mut from = 0u32;
            for &fd in &keep {
                if fd as u32 > from {
                    libc::syscall(libc::SYS_close_range, from, fd as u32 - 1, 0);
                }
                from = fd as u32 + 1;
            }
            libc::syscall(libc::SYS_close_range, from, u32::MAX, 0);
            let mut b = [0u8; 1];
            while libc::read(pipe[0], b.as_mut_ptr() as *mut libc::c_void, 1) < 0
                && *libc::__errno_location() == libc::EINTR
            {}
            for &fd in &order {
                libc::close(fd);
            }
            libc::_exit(0);
        }
    }
    // SAFETY: the read end is ours to close.
    unsafe { libc::close(pipe[0]) };
    if pid < 0 {
        // SAFETY: our own pipe end.
        unsafe { libc::close(pipe[1]) };
        return Err(fds);
    }
    // Reap the intermediate. Whatever happened to it (even ECHILD under SIGCHLD=SIG_IGN), closing
    // below is correct: if no grandchild holds the fds, our close is simply the slow last one.
    let mut status = 0;
    // SAFETY: waitpid writes status.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    drop(fds); // cheap now: the grandchild holds a reference to each
               // SAFETY: our own pipe end; closing it lets the grandchild go on.
    unsafe { libc::close(pipe[1]) };
    Ok(())
}
