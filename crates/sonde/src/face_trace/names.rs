//! `sonde trace`'s answers to [`Names`]: fd paths learnt from the traced calls ([`FdTable`]),
//! else read from /proc/PID/fd/N at print time; comms from /proc/PID/comm, else the last comm a
//! record of that task carried (a child reaped by the wait4 being printed). With strace's -yy,
//! sockets with their endpoints ([`Sockets`]) and devices with their numbers.

use super::sockets::{self, Sockets};
use sonde_trace::fds::{Done, FdTable};
use sonde_trace::line::xlat::Xlat;
use sonde_trace::line::Call;
use sonde_trace::names::{until_nul, Names};
use std::cell::RefCell;
use std::collections::HashMap;

/// Comms of tasks seen in records kept at most.
const MAX_COMMS: usize = 1 << 14;

/// An fd's -yy text as a line showed it, and the inode when it is a socket's.
#[derive(Clone)]
struct Shown {
    inode: Option<u64>,
    text: String,
}

pub struct ProcNames {
    fds: FdTable,
    comms: HashMap<u32, String>,
    /// Each process's working directory, read when its first record is (it may have exited by
    /// the time its relative opens print); forgotten at chdir. None: it was gone already (not
    /// looked for again at each of its records).
    cwds: HashMap<u32, Option<String>>,
    /// Show fds' paths (perf layout, JSON, `--strace -y`).
    pub show_fds: bool,
    /// strace -yy: sockets' endpoints and devices' numbers beside fds' paths.
    pub show_endpoints: bool,
    sockets: RefCell<Sockets>,
    /// Each fd's last -yy text (and its socket's inode): a socket as it was on the line
    /// before, and a line printed once the fd is gone (close's own).
    last: RefCell<HashMap<(u32, i64), Shown>>,
    /// The fd the line being printed closed: /proc now shows another file behind it, or none.
    closing: Option<(u32, i64)>,
    /// The socket the line being printed made or binds: it had no endpoints yet (socket's
    /// result, bind's fd as strace reads it at entry), whatever the tables say by now.
    unbound: Option<(u32, i64)>,
    /// The socket the line being printed may bind or connect (strace shows it as it was at the
    /// call's entry): its text on the line before, when one named it.
    as_before: Option<(u32, i64)>,
    /// Show pids' comms (perf layout, JSON).
    pub show_comms: bool,
    /// Show `AT_FDCWD<cwd>` (`--strace -y`, as strace -y does).
    pub show_cwd: bool,
    /// strace -Y: comms as `1234<sleep>`, and in `[pid  1234<sleep>] `.
    pub strace_comms: bool,
    /// strace -X: constants as names, numbers or both.
    pub constants: Xlat,
    /// strace -v: structures with every member.
    pub verbose: bool,
}

impl ProcNames {
    pub fn new(show_fds: bool, show_comms: bool, show_cwd: bool) -> ProcNames {
        ProcNames {
            fds: FdTable::default(),
            comms: HashMap::new(),
            cwds: HashMap::new(),
            show_fds,
            show_endpoints: false,
            sockets: RefCell::default(),
            last: RefCell::default(),
            closing: None,
            unbound: None,
            as_before: None,
            show_comms,
            show_cwd,
            strace_comms: false,
            constants: Xlat::Abbrev,
            verbose: false,
        }
    }

    /// A record of `tid` (of process `pid`) said its comm.
    pub fn saw(&mut self, pid: u32, tid: u32, comm: &str) {
        if !self.cwds.contains_key(&pid) {
            if self.cwds.len() >= MAX_COMMS {
                self.cwds.clear();
            }
            self.cwds.insert(pid, link(&format!("/proc/{pid}/cwd")));
        }
        if self.comms.get(&tid).is_some_and(|c| c == comm) {
            return;
        }
        if self.comms.len() >= MAX_COMMS {
            self.comms.clear();
        }
        self.comms.insert(tid, comm.to_string());
    }

    /// Before `call`'s line: the fds it created.
    pub fn before(&mut self, call: &Call, syscall: &str) {
        let closed = syscall == "close" && call.ret == 0;
        let pid = call.entry.pid;
        let fd0 = call.entry.args[0] as i32 as i64;
        self.closing = closed.then_some((pid, fd0));
        self.unbound = match syscall {
            "socket" if call.ret >= 0 => Some((pid, call.ret)),
            "bind" => Some((pid, fd0)),
            _ => None,
        };
        let binds =
            matches!(syscall, "bind" | "connect" | "listen" | "sendto" | "sendmsg" | "sendmmsg");
        self.as_before = binds.then_some((pid, fd0));
        if !matches!(syscall, "open" | "openat" | "openat2" | "creat") {
            // Only dups name fds otherwise: no path, no directory to read.
            self.fds.opened(&done(call, syscall, None), None);
            return;
        }
        let path = call.entry.strings.first().map(|(_, b)| until_nul(b));
        let path = path.map(|p| String::from_utf8_lossy(p).into_owned());
        let relative = path.as_deref().is_some_and(|p| !p.starts_with('/'));
        let base = match relative {
            true => self.base(call, syscall),
            false => None,
        };
        if relative && base.is_none() {
            // Relative to what? Better no name than a wrong one (/proc may still say).
            return;
        }
        self.fds.opened(&done(call, syscall, path.as_deref()), base.as_deref());
    }

    /// After `call`'s line: the fds it ended.
    pub fn after(&mut self, call: &Call, syscall: &str) {
        self.fds.closed(&done(call, syscall, None));
        let pid = call.entry.pid;
        if let Some(closed) = self.closing.take() {
            self.last.get_mut().remove(&closed);
        }
        // Maybe bound or connected by the call: its text as it is now.
        self.unbound = None;
        if let Some((pid, fd)) = self.as_before.take() {
            self.last.get_mut().remove(&(pid, fd));
            if self.show_endpoints {
                self.described(pid, fd);
            }
        }
        if matches!(syscall, "execve" | "execveat" | "exit_group") && call.ret == 0 {
            self.last.get_mut().retain(|&(p, _), _| p != pid);
        }
        if matches!(syscall, "chdir" | "fchdir") && call.ret == 0 {
            self.cwds.remove(&call.entry.pid);
        }
    }

    /// The directory a relative path of `call` was opened from: openat's dirfd, or the cwd.
    fn base(&self, call: &Call, syscall: &str) -> Option<String> {
        let dfd = call.entry.args[0] as i32;
        let pid = call.entry.pid;
        match syscall {
            "openat" | "openat2" if dfd != libc::AT_FDCWD => self.path(pid, dfd as i64),
            _ => {
                link(&format!("/proc/{pid}/cwd")).or_else(|| self.cwds.get(&pid).cloned().flatten())
            }
        }
    }

    /// strace -yy's text: a socket's endpoints (`TCP:[127.0.0.1:40000->127.0.0.1:8080]`), else
    /// the path and, for a device, its numbers (`/dev/null<char 1:3>`); once the fd is gone, the
    /// last text it had.
    fn described(&self, pid: u32, fd: i64) -> Option<String> {
        let proc = format!("/proc/{pid}/fd/{fd}");
        let link = (self.closing != Some((pid, fd))).then(|| link(&proc)).flatten();
        let known = self.fds.get(pid, fd);
        let last = self.last.borrow().get(&(pid, fd)).cloned();
        let (inode, text) = match (known, link) {
            (_, None) => {
                return last.map(|l| l.text).or_else(|| known.map(|p| with_device(p, None)))
            }
            // A file the traced calls named: /proc may show another behind a reused fd.
            (Some(path), Some(link)) => (None, with_device(path, (link == path).then_some(&proc))),
            (None, Some(link)) => match sockets::inode(&link) {
                // The same socket as on the line before: as it was then (strace reads it at
                // the call), unless a call since may have bound or connected it.
                Some(inode) if last.as_ref().is_some_and(|l| l.inode == Some(inode)) => {
                    return last.map(|l| l.text);
                }
                Some(inode) => {
                    let unbound = self.unbound == Some((pid, fd));
                    let text = self.sockets.borrow_mut().describe(pid, fd, inode, unbound);
                    (Some(inode), text.unwrap_or(link))
                }
                None => (None, with_device(&link, Some(&proc))),
            },
        };
        let mut last = self.last.borrow_mut();
        if last.len() >= MAX_COMMS {
            last.clear();
        }
        last.insert((pid, fd), Shown { inode, text: text.clone() });
        Some(text)
    }

    fn path(&self, pid: u32, fd: i64) -> Option<String> {
        match self.fds.get(pid, fd) {
            Some(p) => Some(p.to_string()),
            None => link(&format!("/proc/{pid}/fd/{fd}")),
        }
    }
}

impl Names for ProcNames {
    fn fd_path(&self, pid: u32, fd: i64) -> Option<String> {
        match (self.show_fds, self.show_endpoints) {
            (false, _) => None,
            (true, false) => self.path(pid, fd),
            (true, true) => self.described(pid, fd),
        }
    }

    fn comm(&self, pid: i64) -> Option<String> {
        if !self.show_comms {
            return None;
        }
        let pid = u32::try_from(pid).ok()?;
        match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
            Ok(c) => Some(c.trim_end().to_string()),
            Err(_) => self.comms.get(&pid).cloned(),
        }
    }

    fn strace_comms(&self) -> bool {
        self.strace_comms
    }

    fn constants(&self) -> Xlat {
        self.constants
    }

    fn verbose(&self) -> bool {
        self.verbose
    }

    fn netlink_route(&self, pid: u32, fd: i64) -> bool {
        self.fds.netlink_route(pid, fd)
    }

    fn cwd(&self, pid: u32) -> Option<String> {
        if !self.show_cwd {
            return None;
        }
        link(&format!("/proc/{pid}/cwd")).or_else(|| self.cwds.get(&pid).cloned().flatten())
    }
}

fn done<'a>(call: &'a Call, syscall: &'a str, path: Option<&'a str>) -> Done<'a> {
    Done { syscall, pid: call.entry.pid, args: &call.entry.args, path, ret: call.ret }
}

/// `path<char 1:3>` for a device: the file /proc shows behind the fd when it is `path`, else
/// the file at `path`.
fn with_device(path: &str, proc: Option<&str>) -> String {
    let file = proc.unwrap_or(path);
    match path.starts_with('/').then(|| device(file)).flatten() {
        Some(d) => format!("{path}<{d}>"),
        None => path.to_string(),
    }
}

/// `char 1:3` for a character device, `block 8:0` for a block device (glibc's dev_t split).
fn device(path: &str) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::metadata(path).ok()?;
    let kind = match meta.file_type() {
        t if t.is_char_device() => "char",
        t if t.is_block_device() => "block",
        _ => return None,
    };
    let dev = meta.rdev();
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    Some(format!("{kind} {major}:{minor}"))
}

fn link(path: &str) -> Option<String> {
    std::fs::read_link(path).ok().map(|p| p.to_string_lossy().into_owned())
}
