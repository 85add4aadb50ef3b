//! One traced call, put together from its entry and exit records, and its three spellings:
//! perf trace's line, strace's line and a JSON object.

use crate::beauty::{self, structs, Kind};
use crate::errno;
use crate::memory::{self, When};
use crate::names::{fd_text, pid_prefix, pid_text, Names};
use crate::syscalls::Syscall;
use std::fmt::Write;
use xlat::Xlat;

/// What the entry record carried.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub tid: u32,
    pub pid: u32,
    pub time_ns: u64,
    pub nr: u32,
    pub args: [u64; 6],
    pub comm: String,
    /// Strings copied at entry, by argument index.
    pub strings: Vec<(usize, Vec<u8>)>,
}

/// A finished call.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub entry: Entry,
    pub exit_ns: u64,
    pub ret: i64,
}

/// One argument ready to print.
pub struct ArgText {
    pub name: String,
    pub raw: u64,
    pub text: String,
}

/// What is known of one argument before it is spelled as text or JSON.
struct Facts<'a> {
    name: &'a str,
    raw: u64,
    /// The declared C type's value (`int dfd` -100 is 0xffffff9c in its slot).
    value: i64,
    /// A 64-bit unsigned type: `raw` is its value, which `value` may not hold.
    wide_unsigned: bool,
    kind: Kind,
    /// The string copied at entry.
    copied: Option<&'a [u8]>,
    /// A buffer's length, when the argument is one.
    len: Option<u64>,
    signed: bool,
    bytes: u8,
}

impl Call {
    pub fn duration_ns(&self) -> u64 {
        self.exit_ns.saturating_sub(self.entry.time_ns)
    }

    pub fn errno(&self) -> Option<i32> {
        errno::of_return(self.ret)
    }

    /// The arguments named by the format file, each decoded (fds with their paths and pids with
    /// their comms, as far as `names` knows them); unknown syscalls get `arg0..5`.
    pub fn args(&self, sc: Option<&Syscall>, names: &dyn Names) -> Vec<ArgText> {
        let Some(sc) = sc else {
            return (0..6)
                .map(|i| {
                    let raw = self.entry.args[i];
                    ArgText { name: format!("arg{i}"), raw, text: format!("{raw:#x}") }
                })
                .collect();
        };
        self.facts(sc)
            .enumerate()
            .map(|(i, f)| ArgText {
                name: f.name.to_string(),
                raw: f.raw,
                text: self
                    .verbose_text(&sc.name, i, names)
                    .or_else(|| self.memory_text(&sc.name, i, names))
                    .unwrap_or_else(|| self.arg_text(&f, names)),
            })
            .collect()
    }

    /// With -v, argument `i` whole from its copy at the exit, where -v knows its structure.
    fn verbose_text(&self, syscall: &str, i: usize, names: &dyn Names) -> Option<String> {
        if !names.verbose() || self.ret < 0 || self.entry.args[i] == 0 {
            return None;
        }
        let out = memory::out_index(i);
        let copy = self.entry.strings.iter().find(|(j, _)| *j == out)?;
        verbose::decode(syscall, i, &self.entry.args, self.ret, &copy.1)
    }

    /// Argument `i` decoded from the memory the program copied for it, if any.
    fn memory_text(&self, syscall: &str, i: usize, names: &dyn Names) -> Option<String> {
        let copy = |index: usize| {
            self.entry.strings.iter().find(|(j, _)| *j == index).map(|(_, b)| b.as_slice())
        };
        if let Some((argv, envp)) = memory::exec_arrays(syscall) {
            let raw = self.entry.args[i];
            if (i == argv || i == envp) && raw != 0 {
                return structs::exec_array(i == argv, raw, &self.entry.strings);
            }
        }
        let (mut input, mut output) = (copy(memory::in_index(i)), copy(memory::out_index(i)));
        let both = memory::copies(syscall).iter().any(|c| c.arg == i && c.when == When::Both);
        if both {
            // What the call read, copied again at its exit (the copy to trust).
            input = output.or(input);
            output = None;
        }
        if input.is_none() && output.is_none() {
            return None;
        }
        // A copy that failed is zeros: the string copy of the same bytes, where there is one,
        // says so (it stops at the first NUL, and is not empty).
        let string = copy(i).filter(|s| !s.is_empty());
        if input.is_some_and(|b| b.iter().all(|&x| x == 0)) && string.is_some() {
            return None;
        }
        structs::decode(syscall, i, &self.copied(input, output, names))
    }

    fn copied<'a>(
        &'a self,
        input: Option<&'a [u8]>,
        output: Option<&'a [u8]>,
        names: &dyn Names,
    ) -> structs::Copied<'a> {
        let e = &self.entry;
        structs::Copied {
            raw: &e.args,
            ret: self.ret,
            input,
            output,
            all: &e.strings,
            netlink: names.netlink_route(e.pid, e.args[0] as i32 as i64),
        }
    }

    /// What the records say about each argument the format file names.
    fn facts<'a>(&'a self, sc: &'a Syscall) -> impl Iterator<Item = Facts<'a>> {
        sc.args.iter().enumerate().map(|(i, a)| {
            let raw = self.entry.args[i];
            let copied = self.entry.strings.iter().find(|(j, _)| *j == i);
            Facts {
                name: &a.name,
                raw,
                value: beauty::as_int(raw, a.signed, a.bytes),
                wide_unsigned: !a.signed && a.bytes == 8,
                kind: match a.pid && !a.is_pointer {
                    true => Kind::Pid,
                    false => beauty::kind(&sc.name, &a.name, a.is_pointer),
                },
                copied: copied.map(|(_, bytes)| bytes.as_slice()),
                // A buffer's length is the next argument (write(fd, buf, count)).
                len: a.name.contains("buf").then(|| self.entry.args.get(i + 1).copied()).flatten(),
                signed: a.signed,
                bytes: a.bytes,
            }
        })
    }

    fn arg_text(&self, f: &Facts, names: &dyn Names) -> String {
        let pid = self.entry.pid;
        let style = names.constants();
        match (f.copied, f.kind) {
            (Some(bytes), _) => quote(bytes, f.len),
            // An fd is an int whatever the declared type (mmap's is `unsigned long`).
            (None, Kind::Fd) => fd_text(names, pid, f.value as i32 as i64),
            (None, Kind::Pid) => pid_text(names, f.value),
            (None, Kind::Dirfd) if f.value as i32 != libc::AT_FDCWD => fd_text(names, pid, f.value),
            (None, Kind::Dirfd) if style != Xlat::Abbrev => {
                style.spell(f.kind, f.raw, f.bytes, "AT_FDCWD".into())
            }
            (None, Kind::Dirfd) => match names.cwd(pid) {
                Some(cwd) => format!("AT_FDCWD<{cwd}>"),
                None => "AT_FDCWD".into(),
            },
            (None, kind) => {
                style.spell(kind, f.raw, f.bytes, beauty::format(kind, f.raw, f.signed, f.bytes))
            }
        }
    }

    /// `= 3`, `= 3</etc/hostname>` (a new fd, with `names`), `= 1234 (sleep)` (a pid),
    /// `= -1 ENOENT (No such file or directory)`.
    fn result(&self, sc: Option<&Syscall>, names: &dyn Names) -> String {
        match self.errno() {
            Some(e) => match errno::name(e) {
                // The kernel's restart codes never reach the program: strace shows `?`.
                Some(n) if (512..=516).contains(&e) => format!("? {} ({})", n, errno::message(e)),
                Some(n) => format!("-1 {} ({})", n, errno::message(e)),
                None => format!("-1 {e}"),
            },
            None if self.ret > 0xffff_ffff || self.ret < 0 => format!("{:#x}", self.ret),
            None => {
                let decoded = sc.and_then(|s| {
                    let from_copy = structs::result(&s.name, &self.copied(None, None, names));
                    from_copy
                        .or_else(|| beauty::strace::result(&s.name, &self.entry.args, self.ret))
                });
                match decoded {
                    Some(text) => text,
                    None => self.plain_result(sc, names),
                }
            }
        }
    }

    /// rt_sigreturn's argument as strace shows it, `{mask=[]}`: the mask it restored, copied at
    /// its exit.
    fn sigreturn_mask(&self) -> Option<String> {
        // The mask the exit saw restored, else (a line split before the exit) the one its entry
        // read from the signal frame.
        let copy = |i: usize| self.entry.strings.iter().find(|(j, _)| *j == i);
        let copy = copy(memory::out_index(0)).or_else(|| copy(memory::in_index(0)))?;
        Some(format!("{{mask={}}}", structs::sigset(&copy.1)))
    }

    /// A successful call's return value: a new fd, a pid, or the number.
    fn plain_result(&self, sc: Option<&Syscall>, names: &dyn Names) -> String {
        match sc.map(|s| returns(&s.name, &self.entry.args)) {
            Some(Some(Kind::Fd)) => fd_text(names, self.entry.pid, self.ret),
            // The child a wait reaped is gone: strace -Y has no comm to show for it.
            Some(Some(Kind::Pid))
                if names.strace_comms() && sc.is_some_and(|s| s.name.starts_with("wait")) =>
            {
                self.ret.to_string()
            }
            Some(Some(Kind::Pid)) => pid_text(names, self.ret),
            // strace -Y names the ids these return too.
            _ if names.strace_comms() && sc.is_some_and(|s| returns_own_id(&s.name)) => {
                pid_text(names, self.ret)
            }
            _ => self.ret.to_string(),
        }
    }

    fn name(&self, sc: Option<&Syscall>) -> String {
        sc.map_or_else(|| format!("syscall_{}", self.entry.nr), |s| s.name.clone())
    }

    /// perf trace's layout: `0.123 ( 0.004 ms): comm/tid name(arg: value, ...) = result`, the
    /// time relative to `start_ns`, or absolute (seconds since boot) when `start_ns` is 0.
    pub fn perf_line(&self, sc: Option<&Syscall>, start_ns: u64, names: &dyn Names) -> String {
        let mut s = self.perf_head(Some(self.duration_ns()), start_ns);
        let _ = write!(s, "{}({})", self.name(sc), self.perf_args(sc, names));
        let _ = write!(s, " = {}", self.result(sc, names));
        s
    }

    /// perf trace's entry of a call interrupted by other lines: `0.123 (         ): comm/tid
    /// name(arg: value, ...) ...` (no duration yet).
    pub fn perf_entry_line(
        &self,
        sc: Option<&Syscall>,
        start_ns: u64,
        names: &dyn Names,
    ) -> String {
        let mut s = self.perf_head(None, start_ns);
        let _ = write!(s, "{}({}) ...", self.name(sc), self.perf_args(sc, names));
        s
    }

    /// A call that never returns (exit_group), at its entry: perf trace's `0.123 (         ):
    /// comm/tid exit_group(error_code: 0) = ?`, strace's `exit_group(0) = ?`.
    pub fn no_return_line(
        &self,
        sc: Option<&Syscall>,
        start_ns: u64,
        names: &dyn Names,
        strace_main_tid: Option<u32>,
    ) -> String {
        match strace_main_tid {
            Some(main) => {
                let line = self.strace_line(sc, main, names);
                let call = line.rsplit_once(" = ").map_or(line.as_str(), |(c, _)| c);
                format!("{call} = ?")
            }
            None => {
                let mut s = self.perf_head(None, start_ns);
                let _ = write!(s, "{}({}) = ?", self.name(sc), self.perf_args(sc, names));
                s
            }
        }
    }

    /// perf trace's end of an interrupted call, timed from its entry: `0.123 ( 5.000 ms):
    /// comm/tid  ... [continued]: name()) = result`.
    pub fn perf_continued_line(
        &self,
        sc: Option<&Syscall>,
        start_ns: u64,
        names: &dyn Names,
    ) -> String {
        let mut s = self.perf_head(Some(self.duration_ns()), start_ns);
        let _ = write!(s, " ... [continued]: {}()) = {}", self.name(sc), self.result(sc, names));
        s
    }

    fn perf_head(&self, duration_ns: Option<u64>, start_ns: u64) -> String {
        let e = &self.entry;
        perf_head(e.time_ns, duration_ns, start_ns, &e.comm, e.tid)
    }

    fn perf_args(&self, sc: Option<&Syscall>, names: &dyn Names) -> String {
        let args: Vec<String> =
            self.args(sc, names).iter().map(|a| format!("{}: {}", a.name, a.text)).collect();
        args.join(", ")
    }

    /// strace's layout: `openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3`, with
    /// `[pid N] ` before calls of other tasks than the command's first, as strace -f prints.
    pub fn strace_line(&self, sc: Option<&Syscall>, main_tid: u32, names: &dyn Names) -> String {
        let (prefix, name) = (self.strace_prefix(main_tid, names), self.name(sc));
        format!("{prefix}{name}({}) = {}", self.strace_args(sc, names), self.result(sc, names))
    }

    /// strace's two parts of a call another task's line interrupted (`strace -f`): its entry,
    /// `[pid N] futex(0x..., FUTEX_WAIT_PRIVATE, 2, NULL <unfinished ...>`, or with `resumed`
    /// its end, `[pid N] <... futex resumed>) = 0`. What the call fills and the arguments after
    /// it are printed at its end: `read(0,  <unfinished ...>`, `<... read resumed>"ab", 9) = 2`.
    pub fn strace_split_line(
        &self,
        sc: Option<&Syscall>,
        main_tid: u32,
        names: &dyn Names,
        resumed: bool,
    ) -> String {
        let (prefix, name) = (self.strace_prefix(main_tid, names), self.name(sc));
        let args = self.strace_arg_texts(sc, names);
        // strace prints what the call fills when it returns: those arguments and the ones
        // after them go to the resumed line.
        let split = sc.and_then(|s| memory::first_filled(&s.name)).filter(|&i| i < args.len());
        let ioctl = sc.is_some_and(|s| s.name == "ioctl") && args.len() > 2;
        if ioctl && crate::beauty::tty::ioctl_fills(self.entry.args[1] as u32) {
            // strace's ioctl decoders print the separator with what the call filled.
            let (entry, filled) = (args[..2].join(", "), args[2..].join(", "));
            return match resumed {
                true => {
                    format!("{prefix}<... {name} resumed>, {filled}) = {}", self.result(sc, names))
                }
                false => format!("{prefix}{name}({entry} <unfinished ...>"),
            };
        }
        match (resumed, split) {
            (true, None) => format!("{prefix}<... {name} resumed>) = {}", self.result(sc, names)),
            (true, Some(i)) => format!(
                "{prefix}<... {name} resumed>{}) = {}",
                args[i..].join(", "),
                self.result(sc, names)
            ),
            (false, None) => format!("{prefix}{name}({} <unfinished ...>", args.join(", ")),
            (false, Some(0)) => format!("{prefix}{name}( <unfinished ...>"),
            (false, Some(i)) => {
                format!("{prefix}{name}({},  <unfinished ...>", args[..i].join(", "))
            }
        }
    }

    /// `[pid N] ` before calls of other tasks than the command's first, as strace -f prints.
    fn strace_prefix(&self, main_tid: u32, names: &dyn Names) -> String {
        match self.entry.tid == main_tid {
            true => String::new(),
            false => pid_prefix(names, self.entry.tid, &self.entry.comm),
        }
    }

    fn strace_args(&self, sc: Option<&Syscall>, names: &dyn Names) -> String {
        self.strace_arg_texts(sc, names).join(", ")
    }

    fn strace_arg_texts(&self, sc: Option<&Syscall>, names: &dyn Names) -> Vec<String> {
        if sc.is_some_and(|s| s.name == "rt_sigreturn") {
            return self.sigreturn_mask().into_iter().collect();
        }
        let mut args: Vec<String> = self.args(sc, names).into_iter().map(|a| a.text).collect();
        if sc.is_some_and(|s| mode_unused(&s.name, &self.entry.args)) {
            // strace prints open's mode only when the call creates a file.
            args.pop();
        }
        match sc {
            Some(s) => {
                let mut texts = beauty::strace::shape(&s.name, &self.entry.args, args);
                xlat::reshape(names.constants(), &s.name, &self.entry.args, &mut texts);
                texts
            }
            None => args,
        }
    }
}

/// perf trace's `TIME (DURATION ms): comm/tid `, the duration blank while unknown (an entry
/// still running, an event), the time relative to `start_ns` (absolute when it is 0).
pub fn perf_head(
    time_ns: u64,
    duration_ns: Option<u64>,
    start_ns: u64,
    comm: &str,
    tid: u32,
) -> String {
    let t = time_ns.saturating_sub(start_ns) as f64 / 1e6;
    let d = match duration_ns {
        Some(d) => format!("{:6.3} ms", d as f64 / 1e6),
        None => " ".repeat(9),
    };
    format!("{t:.3} ({d}): {comm}/{tid} ")
}

/// What a successful call returns, when it is a new fd or a task's pid.
fn returns(name: &str, args: &[u64; 6]) -> Option<Kind> {
    match name {
        "open" | "openat" | "openat2" | "creat" | "dup" | "dup2" | "dup3" | "socket" | "accept"
        | "accept4" | "epoll_create" | "epoll_create1" | "eventfd" | "eventfd2" | "signalfd"
        | "signalfd4" | "timerfd_create" | "memfd_create" | "pidfd_open" | "pidfd_getfd"
        | "inotify_init" | "inotify_init1" | "fanotify_init" | "perf_event_open"
        | "userfaultfd" | "open_by_handle_at" | "open_tree" | "fsopen" | "fsmount" | "fspick" => {
            Some(Kind::Fd)
        }
        "fcntl" if matches!(args[1] as i32, libc::F_DUPFD | libc::F_DUPFD_CLOEXEC) => {
            Some(Kind::Fd)
        }
        "wait4" | "fork" | "vfork" | "clone" | "clone3" => Some(Kind::Pid),
        _ => None,
    }
}

/// Calls returning the caller's (or its parent's) id, which strace -Y names.
fn returns_own_id(name: &str) -> bool {
    matches!(name, "getpid" | "getppid" | "gettid")
}

/// open/openat without O_CREAT or O_TMPFILE ignore their mode argument.
fn mode_unused(name: &str, args: &[u64; 6]) -> bool {
    let flags = match name {
        "open" => args[1],
        "openat" => args[2],
        _ => return false,
    };
    let tmpfile = libc::O_TMPFILE as u64;
    flags & libc::O_CREAT as u64 == 0 && flags & tmpfile != tmpfile
}

/// A C string as strace quotes it; a buffer of `len` bytes is shown up to its length, with `...`
/// when the copy was shorter.
fn quote(bytes: &[u8], len: Option<u64>) -> String {
    let (shown, cut) = shown(bytes, len);
    let dots = if cut { "..." } else { "" };
    format!("\"{}\"{dots}", beauty::quote::escape(shown))
}

/// What of a copied string is shown: up to its NUL, or a buffer up to its length (NULs kept);
/// true when the copy is shorter than the length.
fn shown(bytes: &[u8], len: Option<u64>) -> (&[u8], bool) {
    let end = match len {
        Some(n) => bytes.len().min(n as usize),
        None => bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len()),
    };
    (&bytes[..end], len.is_some_and(|n| n as usize > end))
}

mod json;
mod verbose;
pub mod xlat;

#[cfg(test)]
mod tests;
