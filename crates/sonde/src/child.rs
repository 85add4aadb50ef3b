//! The `-c` command: started before the probes are attached (so its pid is known at compile
//! time), held at a pipe until they are, and killed if sonde fails before releasing it.

use std::io::{self, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

pub struct HeldChild {
    child: Child,
    /// Closing this releases the child.
    gate: Option<OwnedFd>,
    pub exited: Option<i32>,
}

impl HeldChild {
    pub fn spawn(command: &str) -> io::Result<HeldChild> {
        // The held shell would start fine and only its `exec` fail, after every probe is
        // attached: find a plain command's program first.
        let words = argv(command);
        if words.first().is_some_and(|w| w != "/bin/sh") {
            findable(&words[0])?;
        }
        let mut fds = [0i32; 2];
        // SAFETY: pipe2 fills two fds we then own.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let rfd = read_end.as_raw_fd();
        // std's spawn waits for exec, so the child cannot block before it; instead a tiny shell
        // waits on the pipe (fd 3), then execs the command: the pid stays the one we compiled in.
        // EOF without the go line means sonde died: exit quietly.
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c").arg("read -r go <&3 || exit 1; exec 3<&-; exec \"$@\"").arg("sonde");
        cmd.args(words);
        // SAFETY: dup2 is async-signal-safe; it places the pipe's read end at fd 3 for the shell.
        unsafe {
            cmd.pre_exec(move || {
                // dup2 onto itself keeps O_CLOEXEC, so clear it by hand in that case.
                let ok =
                    if rfd == 3 { libc::fcntl(3, libc::F_SETFD, 0) } else { libc::dup2(rfd, 3) };
                if ok < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        drop(read_end);
        Ok(HeldChild { child, gate: Some(write_end), exited: None })
    }

    /// The pid the command will have.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Let the command run.
    pub fn release(&mut self) {
        if let Some(gate) = self.gate.take() {
            let mut f = std::fs::File::from(gate);
            let _ = f.write_all(b"go\n");
        }
    }

    /// Has the command exited? Reaps it.
    pub fn poll_exit(&mut self) -> bool {
        if self.exited.is_some() {
            return true;
        }
        if let Ok(Some(status)) = self.child.try_wait() {
            self.exited = Some(status.code().unwrap_or(128));
            return true;
        }
        false
    }

    pub fn kill(&mut self) {
        if self.exited.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.exited = Some(137);
        }
    }
}

impl Drop for HeldChild {
    fn drop(&mut self) {
        // A child never released must not outlive a failed sonde (it would hold pipes open).
        if self.gate.is_some() {
            self.kill();
        }
    }
}

/// Can `program` be executed: a path to a runnable file, or a name found on `$PATH`?
fn findable(program: &str) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        let p = std::path::Path::new(program);
        if p.exists() && !runnable(p) {
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, "not an executable file"));
        }
        p.exists()
    } else {
        let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
        std::env::split_paths(&path).any(|d| runnable(&d.join(program)))
    };
    if found {
        Ok(())
    } else {
        Err(io::Error::new(io::ErrorKind::NotFound, "no such command"))
    }
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
