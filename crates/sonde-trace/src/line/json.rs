//! A call as the `data` of its `trace_call` record: each argument's raw register and its decoded
//! value as JSON values (a number, the text of a string, a flag's name), never C-quoted text.

use super::{shown, Call, Facts};
use crate::beauty::{self, Kind};
use crate::errno;
use crate::names::Names;
use crate::syscalls::Syscall;
use serde_json::{json, Map, Value};

impl Call {
    /// Time, duration, pid, tid, comm, syscall, args, return value and errno. A call that never
    /// returns (exit_group) is given `ret` and `duration_ns` null by the caller.
    pub fn json(&self, sc: Option<&Syscall>, names: &dyn Names) -> Value {
        let e = &self.entry;
        let errno = self.errno();
        json!({
            "time_ns": e.time_ns,
            "duration_ns": self.duration_ns(),
            "pid": e.pid,
            "tid": e.tid,
            "comm": e.comm,
            "syscall": self.name(sc),
            "nr": e.nr,
            "args": self.args_json(sc, names),
            "ret": if errno.is_some() { -1 } else { self.ret },
            "errno": errno.and_then(errno::name),
        })
    }

    fn args_json(&self, sc: Option<&Syscall>, names: &dyn Names) -> Map<String, Value> {
        let Some(sc) = sc else {
            let raw = |i: usize| self.entry.args[i];
            return (0..6)
                .map(|i| (format!("arg{i}"), json!({"raw": raw(i), "value": raw(i)})))
                .collect();
        };
        self.facts(sc).map(|f| (f.name.to_string(), self.arg_json(&f, names))).collect()
    }

    /// `{"raw": R, "value": V}`, with the `path` of an fd and the `comm` of a pid where known,
    /// and `truncated` for a buffer copied shorter than its length.
    fn arg_json(&self, f: &Facts, names: &dyn Names) -> Value {
        let pid = self.entry.pid;
        let mut o = Map::new();
        o.insert("raw".into(), f.raw.into());
        let fd_path = |fd: i64| (fd >= 0).then(|| names.fd_path(pid, fd)).flatten();
        let (value, extra) = match (f.copied, f.kind) {
            (Some(bytes), _) => {
                let (text, cut) = copied_text(bytes, f.len);
                (text.into(), cut.then_some(("truncated", Value::Bool(true))))
            }
            (None, Kind::Dirfd) if f.value as i32 == libc::AT_FDCWD => {
                ("AT_FDCWD".into(), names.cwd(pid).map(|c| ("path", c.into())))
            }
            (None, Kind::Fd | Kind::Dirfd) => {
                (f.value.into(), fd_path(f.value).map(|p| ("path", p.into())))
            }
            (None, Kind::Pid) => {
                let comm = (f.value > 0).then(|| names.comm(f.value)).flatten();
                (f.value.into(), comm.map(|c| ("comm", c.into())))
            }
            (None, Kind::Int) => (number(f), None),
            (None, Kind::Hex | Kind::HexNum) => (f.raw.into(), None),
            (None, kind) => (beauty::format(kind, f.raw, f.signed, f.bytes).into(), None),
        };
        o.insert("value".into(), value);
        if let Some((k, v)) = extra {
            o.insert(k.into(), v);
        }
        Value::Object(o)
    }
}

/// The argument's number in its declared type.
fn number(f: &Facts) -> Value {
    match f.wide_unsigned {
        true => f.raw.into(),
        false => f.value.into(),
    }
}

/// A copied string as text (bytes that are not UTF-8 become U+FFFD), and whether the copy is
/// shorter than the buffer's length.
fn copied_text(bytes: &[u8], len: Option<u64>) -> (String, bool) {
    let (shown, cut) = shown(bytes, len);
    (String::from_utf8_lossy(shown).into_owned(), cut)
}
