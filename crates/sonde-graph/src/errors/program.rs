//! The BPF side of `sonde graph --errors`, written in sonde's own language (compiled by sonde's
//! compiler like any script). Per thread, inside a call of the entry function, it keeps the depth
//! of the recorded functions and each live frame's start, and the failing path: the chain of
//! frames that returned an error, from the deepest one that produced it up to the frame it has
//! reached so far. A later failure outside that chain replaces it; a frame on it that succeeds
//! discards it (the error was handled). When the entry function fails, the path's frames are
//! printed, then the call's own record. Successful calls print nothing.

use std::fmt::Write;

/// Record tags: the first value of every `print()` the program makes.
pub const TAG_FRAME: u64 = 1;
pub const TAG_CALL: u64 = 2;

/// Frames recorded per thread; deeper calls are counted (`MAP_DEEP`) and not kept.
pub const MAX_DEPTH: u32 = 32;
/// Bytes kept of a string argument of the entry function.
pub const ARG_STRING_BYTES: usize = 128;
/// Elements of the per-frame maps: threads inside the entry function at once, times depth.
const FRAME_SLOTS: u32 = 65536;

/// Frames deeper than [`MAX_DEPTH`] that were left out, as the compiler names the map.
pub const MAP_DEEP: &str = "@deep";

/// What counts as a failed return of a function, from its return type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Returns {
    /// An `int` (or shorter): `-4095..-1`, a negative errno.
    Errno32,
    /// A `long`: the same range over 64 bits.
    Errno64,
    /// A pointer: NULL, or an `ERR_PTR(-errno)`.
    Pointer,
    /// `bool` or unsigned: only slowness (`--latency`) fails it.
    Never,
    /// `void`: no value (a trampoline has no `retval` for it), only slowness fails it.
    Void,
    /// Unknown (no BTF): the errno range in the low 32 bits, which holds for `int` and `long`.
    Unknown,
}

impl Returns {
    /// The failure test on `$r` (the return value), in the language.
    fn test(self) -> &'static str {
        match self {
            Returns::Errno32 | Returns::Unknown => "((int32)$r < 0 && (int32)$r >= -4095)",
            Returns::Errno64 => "((int64)$r < 0 && (int64)$r >= -4095)",
            Returns::Pointer => "($r == 0 || (int64)$r >= -4095 && (int64)$r < 0)",
            Returns::Never | Returns::Void => "0",
        }
    }
}

/// A recorded function: its name, what failing looks like, and how it is probed.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub returns: Returns,
    /// fentry/fexit (BPF trampolines: no kretprobe instances to run out of while functions
    /// sleep), else kprobe/kretprobe.
    pub trampoline: bool,
}

impl Function {
    fn entry_spec(&self) -> String {
        let p = if self.trampoline { "fentry" } else { "kprobe" };
        format!("{p}:{}", self.name)
    }

    fn return_spec(&self) -> String {
        let p = if self.trampoline { "fexit" } else { "kretprobe" };
        format!("{p}:{}", self.name)
    }
}

/// The return value as a u64, in the language.
fn retval(kind: Returns) -> &'static str {
    if kind == Returns::Void {
        "0"
    } else {
        "(uint64)retval"
    }
}

/// One argument of the entry function, kept from its entry until its return.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// Printed as a number (pointers included).
    Int,
    /// A C string, copied at entry.
    Str,
}

/// Whose calls are recorded.
#[derive(Clone, Debug, PartialEq)]
pub enum Tasks {
    /// These processes and every task they start.
    Pids(Vec<u32>),
    /// Everything but sonde itself.
    AllBut(u32),
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub entry: Function,
    /// The functions recorded inside the entry function.
    pub inner: Vec<Function>,
    /// The entry function's arguments kept (arg0 first).
    pub args: Vec<Arg>,
    pub tasks: Tasks,
    /// `--comm`: only tasks of this name.
    pub comm: Option<String>,
    /// `--latency`: a frame this slow (ns) fails too.
    pub latency_ns: Option<u64>,
}

impl Plan {
    pub fn program(&self) -> String {
        let mut p = String::new();
        for m in ["et", "sf", "sr", "sd", "ss"] {
            let _ = writeln!(p, "let @{m} = lruhash({FRAME_SLOTS});");
        }
        let tasks = self.tasks();
        if let Tasks::Pids(_) = self.tasks {
            // Children and threads of the traced processes are traced too (tr, by tid).
            let _ = writeln!(
                p,
                "tracepoint:sched:sched_process_fork /{tasks}/ {{ @tr[args->child_pid] = 1; }}"
            );
            let _ =
                writeln!(p, "tracepoint:sched:sched_process_exit /{tasks}/ {{ delete @tr[tid]; }}");
        }
        let entry = match &self.comm {
            Some(c) => format!("{tasks} && comm == \"{}\"", escaped(c)),
            None => tasks,
        };
        self.entry_probe(&mut p, &entry);
        self.inner_probes(&mut p);
        self.entry_return(&mut p);
        p
    }

    fn tasks(&self) -> String {
        match &self.tasks {
            Tasks::AllBut(me) => format!("pid != {me}"),
            Tasks::Pids(pids) => {
                let mut t: Vec<String> = pids.iter().map(|p| format!("pid == {p}")).collect();
                t.push("@tr[tid]".into());
                format!("({})", t.join(" || "))
            }
        }
    }

    fn entry_probe(&self, p: &mut String, tasks: &str) {
        let saves: String = self
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Arg::Int => format!(" @a{i}[tid] = (uint64)arg{i};"),
                Arg::Str => format!(" @a{i}[tid] = str(arg{i}, {ARG_STRING_BYTES});"),
            })
            .collect();
        // A call of the entry function inside another is counted, not followed (en).
        let _ = writeln!(
            p,
            "{} /{tasks}/ {{ if (@ed[tid] > 0) {{ @en[tid] = @en[tid] + 1; return; }} \
             @ed[tid] = 1; @en[tid] = 0; @sl[tid] = 0; @sp[tid] = 0; @et[tid, 0] = nsecs;{saves} }}",
            self.entry.entry_spec()
        );
    }

    /// Entries push a frame; returns pop it, one probe per failure test so that each program
    /// (one kprobe_multi link where the kernel has them) tests all its functions alike.
    fn inner_probes(&self, p: &mut String) {
        if self.inner.is_empty() {
            return;
        }
        let all: Vec<String> = self.inner.iter().map(Function::entry_spec).collect();
        let _ = writeln!(
            p,
            "{} /@ed[tid] > 0/ {{ $d = @ed[tid]; @ed[tid] = $d + 1; \
             if ($d < {MAX_DEPTH}) {{ @et[tid, $d] = nsecs; }} else {{ @deep = count(); }} }}",
            all.join(", ")
        );
        let mut kinds: Vec<Returns> = self.inner.iter().map(|f| f.returns).collect();
        kinds.sort();
        kinds.dedup();
        for kind in kinds {
            let names: Vec<String> = self
                .inner
                .iter()
                .filter(|f| f.returns == kind)
                .map(Function::return_spec)
                .collect();
            let _ = writeln!(
                p,
                "{} /@ed[tid] > 1/ {{ $d = @ed[tid] - 1; @ed[tid] = $d; if ($d < {MAX_DEPTH}) {{ {} }} }}",
                names.join(", "),
                self.frame(kind)
            );
        }
    }

    /// The returning frame `$d` joins the failing path, starts a new one, or ends it.
    fn frame(&self, kind: Returns) -> String {
        let slow = match self.latency_ns {
            Some(ns) => format!(" || $dur >= {ns}"),
            None => String::new(),
        };
        format!(
            "$t = @et[tid, $d]; $dur = nsecs - $t; $r = {retval}; $f = (uint64)func; \
             $fail = {}{slow}; $l = @sl[tid]; $p = @sp[tid]; \
             if ($l > 0 && $d < $p) {{ if ($fail) {{ @sp[tid] = $d; {keep} }} else {{ @sl[tid] = 0; }} }} \
             else {{ if ($fail) {{ @sl[tid] = $d + 1; @sp[tid] = $d; {keep} }} }}",
            kind.test(),
            retval = retval(kind),
            keep = "@sf[tid, $d] = $f; @sr[tid, $d] = $r; @sd[tid, $d] = $dur; @ss[tid, $d] = $t;",
        )
    }

    /// The entry function returns: when it failed, its path is printed, deepest frame last,
    /// then the call's record with the arguments kept at entry.
    fn entry_return(&self, p: &mut String) {
        let args: String = (0..self.args.len()).map(|i| format!(", @a{i}[tid]")).collect();
        let forget: String = (0..self.args.len()).map(|i| format!(" delete @a{i}[tid];")).collect();
        let _ = writeln!(
            p,
            "{} /@ed[tid] > 0/ {{ if (@en[tid] > 0) {{ @en[tid] = @en[tid] - 1; return; }} \
             $lost = @ed[tid] - 1; $d = 0; {} \
             if ($fail && @sl[tid] > 0 && @sp[tid] == 0) {{ $n = @sl[tid]; \
             for ($i : 0..{MAX_DEPTH}) {{ if ($i >= $n) {{ break; }} \
             print({TAG_FRAME}, tid, $i, @sf[tid, $i], @sr[tid, $i], @sd[tid, $i], @ss[tid, $i]); }} \
             print({TAG_CALL}, tid, pid, comm, cpu, $n, $lost{args}); }} \
             delete @ed[tid]; delete @en[tid]; delete @sl[tid]; delete @sp[tid];{forget} }}",
            self.entry.return_spec(),
            self.frame(self.entry.returns)
        );
    }
}

/// `s` as the inside of a string literal of the language: every byte that is not plainly
/// printable is an escape, so no text of the user's can end the literal.
fn escaped(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.:+/ ".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

#[cfg(test)]
mod tests;
