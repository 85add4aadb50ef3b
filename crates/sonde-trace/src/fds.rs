//! Which file each traced process has behind each descriptor, learnt from the calls themselves
//! as perf trace does: a successful open/openat/openat2/creat names its result with the path its
//! entry copied, dup/dup2/dup3 and fcntl(F_DUPFD*) copy a name, close forgets it, a successful
//! execve drops the close-on-exec ones and exit_group all of the process's. Bounded: past
//! [`MAX_FDS`] names the table starts again (the binary then reads /proc, as for any fd it
//! never saw opened).

use std::collections::HashMap;

/// Names kept at most, over all processes.
pub const MAX_FDS: usize = 1 << 16;

#[derive(Clone, Debug, PartialEq)]
struct Name {
    path: String,
    cloexec: bool,
}

/// What a finished call tells the table: its syscall, process, arguments, the path its entry
/// copied (open's filename) and its return value.
pub struct Done<'a> {
    pub syscall: &'a str,
    pub pid: u32,
    pub args: &'a [u64; 6],
    pub path: Option<&'a str>,
    pub ret: i64,
}

#[derive(Debug, Default)]
pub struct FdTable {
    names: HashMap<(u32, i32), Name>,
    /// NETLINK_ROUTE sockets, whose messages are decoded.
    route: std::collections::HashSet<(u32, i32)>,
}

impl FdTable {
    pub fn netlink_route(&self, pid: u32, fd: i64) -> bool {
        i32::try_from(fd).is_ok_and(|fd| self.route.contains(&(pid, fd)))
    }

    /// A NETLINK_ROUTE socket the call created.
    fn socket(&mut self, d: &Done) {
        let route = d.args[0] as i32 == libc::AF_NETLINK && d.args[2] as i32 == libc::NETLINK_ROUTE;
        if d.ret >= 0 && route {
            if self.route.len() >= MAX_FDS {
                self.route.clear();
            }
            self.route.insert((d.pid, d.ret as i32));
        }
    }

    pub fn get(&self, pid: u32, fd: i64) -> Option<&str> {
        let fd = i32::try_from(fd).ok()?;
        self.names.get(&(pid, fd)).map(|n| n.path.as_str())
    }

    /// What a call creates, learnt before its line prints (so `= 3</etc/hostname>`). A relative
    /// path is joined to `base`, the directory it was opened from when the caller knows it.
    pub fn opened(&mut self, d: &Done, base: Option<&str>) {
        if d.syscall == "socket" {
            return self.socket(d);
        }
        if d.ret < 0 {
            return;
        }
        let fd = d.ret as i32;
        let arg = |i: usize| d.args[i] as i32;
        let cloexec = |flags: u64| flags & libc::O_CLOEXEC as u64 != 0;
        let name = match d.syscall {
            "open" | "openat" | "openat2" | "creat" => {
                // An empty copy is a path the kernel could not read at entry (not paged in).
                let Some(path) = d.path.filter(|p| !p.is_empty()) else { return };
                let flags = match d.syscall {
                    "open" => d.args[1],
                    "openat" => d.args[2],
                    // openat2's flags are in its struct open_how, not copied.
                    _ => 0,
                };
                let path = match base {
                    Some(b) if !path.starts_with('/') => join(b, path),
                    _ => path.to_string(),
                };
                Name { path, cloexec: cloexec(flags) }
            }
            "dup" | "dup2" | "dup3" => {
                let Some(from) = self.names.get(&(d.pid, arg(0))) else {
                    self.names.remove(&(d.pid, fd));
                    return;
                };
                let cloexec = d.syscall == "dup3" && cloexec(d.args[2]);
                Name { path: from.path.clone(), cloexec }
            }
            "fcntl" if matches!(arg(1), libc::F_DUPFD | libc::F_DUPFD_CLOEXEC) => {
                let Some(from) = self.names.get(&(d.pid, arg(0))) else { return };
                Name { path: from.path.clone(), cloexec: arg(1) == libc::F_DUPFD_CLOEXEC }
            }
            _ => return,
        };
        if self.names.len() >= MAX_FDS {
            self.names.clear();
        }
        self.names.insert((d.pid, fd), name);
    }

    /// What a call ends, forgotten after its line prints (so `close(3</etc/hostname>)`).
    pub fn closed(&mut self, d: &Done) {
        match d.syscall {
            "close" if d.ret == 0 => {
                self.names.remove(&(d.pid, d.args[0] as i32));
                self.route.remove(&(d.pid, d.args[0] as i32));
            }
            "execve" | "execveat" if d.ret == 0 => {
                self.names.retain(|&(pid, _), n| pid != d.pid || !n.cloexec);
            }
            "exit_group" => {
                self.names.retain(|&(pid, _), _| pid != d.pid);
                self.route.retain(|&(pid, _)| pid != d.pid);
            }
            _ => {}
        }
    }
}

/// `dir` + `/` + `path`, without `./` noise.
fn join(dir: &str, path: &str) -> String {
    let path = path.trim_start_matches("./");
    match dir.ends_with('/') {
        true => format!("{dir}{path}"),
        false => format!("{dir}/{path}"),
    }
}

#[cfg(test)]
mod tests;
