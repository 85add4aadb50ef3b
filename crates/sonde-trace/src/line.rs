//! One traced call, put together from its entry and exit records, and its three spellings:
//! perf trace's line, strace's line and a JSON object.

use crate::beauty;
use crate::errno;
use crate::syscalls::Syscall;
use serde_json::json;
use std::fmt::Write;

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

impl Call {
    pub fn duration_ns(&self) -> u64 {
        self.exit_ns.saturating_sub(self.entry.time_ns)
    }

    pub fn errno(&self) -> Option<i32> {
        errno::of_return(self.ret)
    }

    /// The arguments named by the format file, each decoded; unknown syscalls get `arg0..5`.
    pub fn args(&self, sc: Option<&Syscall>) -> Vec<ArgText> {
        let Some(sc) = sc else {
            return (0..6)
                .map(|i| {
                    let raw = self.entry.args[i];
                    ArgText { name: format!("arg{i}"), raw, text: format!("{raw:#x}") }
                })
                .collect();
        };
        sc.args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let raw = self.entry.args[i];
                let copied = self.entry.strings.iter().find(|(j, _)| *j == i);
                // A buffer's length is the next argument (write(fd, buf, count)).
                let len = (a.name.contains("buf")).then(|| self.entry.args.get(i + 1).copied());
                let text = match copied {
                    Some((_, bytes)) => quote(bytes, len.flatten()),
                    None => beauty::format(
                        beauty::kind(&sc.name, &a.name, a.is_pointer),
                        raw,
                        a.signed,
                        a.bytes,
                    ),
                };
                ArgText { name: a.name.clone(), raw, text }
            })
            .collect()
    }

    /// `= 3`, `= -1 ENOENT (No such file or directory)`.
    fn result(&self) -> String {
        match self.errno() {
            Some(e) => match errno::name(e) {
                Some(n) => format!("-1 {} ({})", n, errno::message(e)),
                None => format!("-1 {e}"),
            },
            None if self.ret > 0xffff_ffff || self.ret < 0 => format!("{:#x}", self.ret),
            None => self.ret.to_string(),
        }
    }

    /// perf trace's layout: `0.123 ( 0.004 ms): comm/tid name(arg: value, ...) = result`, the
    /// time relative to `start_ns`, or absolute (seconds since boot) when `start_ns` is 0.
    pub fn perf_line(&self, sc: Option<&Syscall>, start_ns: u64) -> String {
        let e = &self.entry;
        let t = e.time_ns.saturating_sub(start_ns) as f64 / 1e6;
        let d = self.duration_ns() as f64 / 1e6;
        let name = sc.map_or_else(|| format!("syscall_{}", e.nr), |s| s.name.clone());
        let mut s = format!("{t:.3} ({d:6.3} ms): {}/{} {}(", e.comm, e.tid, name);
        for (i, a) in self.args(sc).iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{}: {}", a.name, a.text);
        }
        let _ = write!(s, ") = {}", self.result());
        s
    }

    /// strace's layout: `openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3`, with
    /// `[pid N] ` before calls of other tasks than the command's first, as strace -f prints.
    pub fn strace_line(&self, sc: Option<&Syscall>, main_tid: u32) -> String {
        let e = &self.entry;
        let name = sc.map_or_else(|| format!("syscall_{}", e.nr), |s| s.name.clone());
        let mut args: Vec<String> = self.args(sc).into_iter().map(|a| a.text).collect();
        if sc.is_some_and(|s| mode_unused(&s.name, &e.args)) {
            // strace prints open's mode only when the call creates a file.
            args.pop();
        }
        let prefix = if e.tid != main_tid { format!("[pid {:>5}] ", e.tid) } else { String::new() };
        format!("{prefix}{name}({}) = {}", args.join(", "), self.result())
    }

    /// One JSON object: time, duration, pid, tid, comm, syscall, args (raw and decoded), return
    /// value and errno.
    pub fn json(&self, sc: Option<&Syscall>) -> serde_json::Value {
        let e = &self.entry;
        let args: serde_json::Map<String, serde_json::Value> = self
            .args(sc)
            .into_iter()
            .map(|a| (a.name, json!({"raw": a.raw, "value": a.text})))
            .collect();
        let errno = self.errno();
        json!({
            "time_ns": e.time_ns,
            "duration_ns": self.duration_ns(),
            "pid": e.pid,
            "tid": e.tid,
            "comm": e.comm,
            "syscall": sc.map_or_else(|| format!("syscall_{}", e.nr), |s| s.name.clone()),
            "nr": e.nr,
            "args": args,
            "ret": if errno.is_some() { -1 } else { self.ret },
            "errno": errno.and_then(errno::name),
        })
    }
}

/// open/openat without O_CREAT or O_TMPFILE ignore their mode argument.
fn mode_unused(name: &str, args: &[u64; 6]) -> bool {
    let flags = match name {
        "open" => args[1],
        "openat" => args[2],
        _ => return false,
    };
    flags & (libc::O_CREAT | libc::O_TMPFILE) as u64 == 0
}

/// A C string as strace quotes it; a buffer of `len` bytes is shown up to its length, with `...`
/// when the copy was shorter.
fn quote(bytes: &[u8], len: Option<u64>) -> String {
    let end = match len {
        Some(n) => bytes.len().min(n as usize),
        None => bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len()),
    };
    let mut s = String::from("\"");
    for &b in &bytes[..end] {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0 if len.is_some() => s.push_str("\\0"),
            0x20..=0x7e => s.push(b as char),
            _ => {
                let _ = write!(s, "\\{:o}", b);
            }
        }
    }
    s.push('"');
    if len.is_some_and(|n| n as usize > end) {
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests;
