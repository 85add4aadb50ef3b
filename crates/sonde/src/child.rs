//! The `-c` command: started before the probes are attached (so its pid is known at compile
//! time), held before its exec until they are, and killed if sonde fails before releasing it.
//!
//! sonde forks and the child stops itself *before* exec, running nothing else
//! (`sonde_kernel::host::process::HeldProcess`): what sonde traces of it is the command's own
//! `execve`, as strace's first line is; no syscall of the release returns after the attach (a
//! pipe's `read` did). (A held `/bin/sh` ran its own start-up, a `read` per byte of the release
//! and the redirections, all traced once the probes were up.) std's `Command` cannot do this: its
//! spawn returns only after the exec.

use sonde_kernel::host::process::HeldProcess;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;

/// What to start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// The words after `--`, exec'd exactly as typed: no word is split, joined or seen by a
    /// shell, whatever it holds (spaces, quotes, `;`, `$(...)`, globs, empty words).
    Argv(Vec<String>),
    /// `-c LINE`, ply's and bpftrace's flag: one line the user wrote, split on blanks, or run by
    /// `/bin/sh -c` when it holds shell syntax.
    Line(String),
}

impl Command {
    /// The words the child execs.
    fn words(&self) -> Vec<String> {
        match self {
            Command::Argv(words) => words.clone(),
            Command::Line(line) => argv(line),
        }
    }
}

impl std::fmt::Display for Command {
    /// As the user would type it again: the line itself, or the words quoted for a shell.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Command::Argv(words) => f.write_str(&crate::shell::join(words)),
            Command::Line(line) => f.write_str(line),
        }
    }
}

pub struct HeldChild {
    process: HeldProcess,
    pub exited: Option<i32>,
}

impl HeldChild {
    /// Forks the command held; it may not have stopped itself yet ([`HeldChild::settle`]).
    pub fn spawn(command: &Command) -> io::Result<HeldChild> {
        let words = command.words();
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
            .map(|(k, v)| cstr(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(HeldChild { process: HeldProcess::start(&path, &args, &env)?, exited: None })
    }

    /// Returns once the command has stopped before its exec: nothing of its set-up is seen by
    /// probes attached after this.
    pub fn settle(&mut self) {
        self.process.settle();
    }

    /// Starts `command` held, or says in one sentence why it cannot run (before anything is
    /// attached: a missing or non-executable program is a usage error).
    pub fn start(command: &Command) -> Result<HeldChild, crate::error::Failure> {
        use crate::error::Failure;
        HeldChild::spawn(command).map_err(|e| {
            let msg = format!("cannot run `{command}`: {e}; nothing was attached");
            match e.kind() {
                io::ErrorKind::NotFound
                | io::ErrorKind::PermissionDenied
                | io::ErrorKind::InvalidInput => Failure::Usage(msg),
                _ => Failure::Setup(msg),
            }
        })
    }

    /// The pid the command will have.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Let the command run.
    pub fn release(&mut self) {
        self.process.release();
    }

    /// Has the command exited? Reaps it.
    pub fn poll_exit(&mut self) -> bool {
        self.exited = self.process.try_exit();
        self.exited.is_some()
    }

    pub fn kill(&mut self) {
        self.process.kill();
        self.exited = self.process.try_exit();
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

/// A `-c` line's argv. A plain command is split on blanks and exec'd directly, as bpftrace does,
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
    use super::{argv, Command};

    #[test]
    fn plain_commands_are_split_and_shell_syntax_goes_to_sh() {
        assert_eq!(argv("ls -l  /tmp"), ["ls", "-l", "/tmp"]);
        assert_eq!(argv("ls | wc"), ["/bin/sh", "-c", "ls | wc"]);
        assert_eq!(argv("X=1 env"), ["/bin/sh", "-c", "X=1 env"]);
        assert_eq!(argv("exec ls"), ["/bin/sh", "-c", "exec ls"]);
        assert_eq!(argv("dd if=/dev/zero"), ["dd", "if=/dev/zero"]);
    }

    #[test]
    fn words_after_the_double_dash_are_never_split_or_given_to_a_shell() {
        let words: Vec<String> =
            ["touch", "a b", "x;y", "$(id)", "*", ""].iter().map(|s| s.to_string()).collect();
        assert_eq!(Command::Argv(words.clone()).words(), words);
        assert_eq!(Command::Argv(words).to_string(), "touch 'a b' 'x;y' '$(id)' '*' ''");
    }
}
