//! The `-c` command: started before the probes are attached (so its pid is known at compile
//! time), held at a pipe until they are, and killed if sonde fails before releasing it.
//!
//! sonde forks and the child waits on the pipe *before* exec, running nothing else: what sonde
//! traces of it is one `read` returning and then the command's own `execve`, as strace's first
//! line is. (A held `/bin/sh` ran its own start-up, a `read` per byte of the release and the
//! redirections, all traced once the probes were up.) std's `Command` cannot do this: its spawn
//! returns only after the exec.

use std::ffi::CString;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

pub struct HeldChild {
    pid: libc::pid_t,
    /// Writing to this (or closing it) releases the child.
    gate: Option<OwnedFd>,
    pub exited: Option<i32>,
}

impl HeldChild {
    pub fn spawn(command: &str) -> io::Result<HeldChild> {
        let words = argv(command);
        if words.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "an empty command"));
        }
        // Found before the fork, so a command that cannot run is said before anything is
        // attached, and the child only has to exec a path.
        let program = findable(&words[0])?;
        let cstr = |b: &[u8]| {
            CString::new(b).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
        };
        let path = cstr(program.as_os_str().as_bytes())?;
        let args = words.iter().map(|w| cstr(w.as_bytes())).collect::<io::Result<Vec<_>>>()?;
        let env = std::env::vars_os()
            .map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                cstr(&kv)
            })
            .collect::<io::Result<Vec<_>>>()?;
        let mut argv_ptrs: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let mut env_ptrs: Vec<*const libc::c_char> = env.iter().map(|e| e.as_ptr()).collect();
        env_ptrs.push(std::ptr::null());

        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills two fds we then own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let (rfd, wfd) = (read_end.as_raw_fd(), write_end.as_raw_fd());
        // SAFETY: after fork the child calls only async-signal-safe functions (close, sigaction,
        // sigprocmask, read, execve, _exit) on memory prepared above, then execs or exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            unsafe { hold_then_exec(rfd, wfd, &path, &argv_ptrs, &env_ptrs) }
        }
        drop(read_end);
        Ok(HeldChild { pid, gate: Some(write_end), exited: None })
    }

    /// The pid the command will have.
    pub fn pid(&self) -> u32 {
        self.pid as u32
    }

    /// Let the command run.
    pub fn release(&mut self) {
        if let Some(gate) = self.gate.take() {
            let mut f = std::fs::File::from(gate);
            let _ = f.write_all(b"g");
        }
    }

    /// Has the command exited? Reaps it.
    pub fn poll_exit(&mut self) -> bool {
        if self.exited.is_none() {
            self.reap(libc::WNOHANG);
        }
        self.exited.is_some()
    }

    pub fn kill(&mut self) {
        if self.exited.is_none() {
            // SAFETY: plain syscalls on our own, not yet reaped, child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
            self.reap(0);
            self.exited = Some(137);
        }
    }

    /// waitpid with `flags`; records the exit status (128 + the signal for a killed command, as
    /// shells report it) once the child is reaped.
    fn reap(&mut self, flags: i32) {
        let mut status = 0;
        let r = loop {
            // SAFETY: waitpid writes the status word we own.
            let r = unsafe { libc::waitpid(self.pid, &mut status, flags) };
            if r >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break r;
            }
        };
        if r == self.pid {
            self.exited = Some(if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                128 + libc::WTERMSIG(status)
            });
        } else if r < 0 {
            // Not our child any more (reaped elsewhere): it is gone.
            self.exited = Some(128);
        }
    }
}

/// The forked child: wait for sonde's release, then become the command. EOF instead of the
/// release means sonde died before attaching: exit quietly.
///
/// # Safety
/// Only in the child of a fork; every pointer is prepared before the fork.
unsafe fn hold_then_exec(
    rfd: i32,
    wfd: i32,
    path: &CString,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    // Our copy of the write end would keep the pipe open if sonde died.
    libc::close(wfd);
    // What the command inherits: default SIGPIPE (Rust ignores it), no blocked signals. Done
    // before the wait, so after the release nothing but the read's return precedes the exec.
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

impl Drop for HeldChild {
    fn drop(&mut self) {
        // A child never released must not outlive a failed sonde (it would hold pipes open).
        if self.gate.is_some() {
            self.kill();
        }
    }
}

/// Where `program` is, if it can be executed: a path to a runnable file, or a name found on
/// `$PATH`.
fn findable(program: &str) -> io::Result<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        let p = std::path::Path::new(program);
        if p.exists() && !runnable(p) {
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, "not an executable file"));
        }
        p.exists().then(|| p.to_path_buf())
    } else {
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        std::env::split_paths(&path).map(|d| d.join(program)).find(|p| runnable(p))
    };
    found.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such command"))
}

/// The command's argv. A plain command is split on blanks and exec'd directly, as bpftrace does,
/// so `cpid` is the command itself; anything using shell syntax goes through `/bin/sh -c`
/// (then `cpid` is that shell, whose children inherit nothing else from sonde).
fn argv(command: &str) -> Vec<String> {
    const SHELL_SYNTAX: &[char] = &[
        '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '#', '~', '{',
        '}', '\n',
    ];
    // Shell words that are not programs: an assignment or a builtin such as `exec` or `cd`.
    const BUILTINS: &[&str] = &[
        "exec", "cd", "eval", ".", "export", "set", "ulimit", "umask", "if", "for", "while",
        "until", "case", "!",
    ];
    let first = command.split_whitespace().next().unwrap_or("");
    if first.contains('=') || BUILTINS.contains(&first) || command.contains(SHELL_SYNTAX) {
        return vec!["/bin/sh".into(), "-c".into(), command.into()];
    }
    command.split_whitespace().map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::argv;

    #[test]
    fn plain_commands_are_split_and_shell_syntax_goes_to_sh() {
        assert_eq!(argv("ls -l  /tmp"), ["ls", "-l", "/tmp"]);
        assert_eq!(argv("ls | wc"), ["/bin/sh", "-c", "ls | wc"]);
        assert_eq!(argv("X=1 env"), ["/bin/sh", "-c", "X=1 env"]);
        assert_eq!(argv("exec ls"), ["/bin/sh", "-c", "exec ls"]);
        assert_eq!(argv("dd if=/dev/zero"), ["dd", "if=/dev/zero"]);
    }
}
