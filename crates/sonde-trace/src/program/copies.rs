//! The program's copies of user memory for strace's decoders ([`crate::memory`]): at entry the
//! structs a call reads, and the pointers of those it fills (in `cpN[tid]`), copied at exit
//! before the exit record.
//!
//! The loops (execve's arrays, getdents' entries, iovecs, epoll events: [`Plan::bounded`]) are,
//! where the kernel has `bpf_loop` (5.17+), ranges whose end is a variable,
//! `$end = N; for ($i : 0..$end)`, which the compiler builds as `bpf_loop` callbacks verified
//! once; `while` loops against the constant, which the verifier walks one iteration at a time,
//! made the two syscall programs take ~1.3 s to verify on 6.18. Elsewhere they are those `while`
//! loops (bounded loops, 5.3+): a range's end kept in scratch space is no constant to 5.10.

use super::{Mode, Plan};
use crate::memory::{self, TAG_IN, TAG_OUT};
use crate::program::TAG_STRING;
use std::collections::BTreeMap;
use std::fmt::Write;

impl Plan<'_> {
    /// The syscalls an entry or exit program handles: one (its number as `id`) or the
    /// selection's (told apart by `id`).
    fn copied(&self, id: &str) -> (Vec<(u32, &'static [memory::Copy])>, bool) {
        let one: Option<u32> = id.parse().ok();
        let nrs: Vec<u32> = match one {
            Some(nr) => vec![nr],
            None => self.selection.nrs.iter().copied().filter(|&nr| self.filterable(nr)).collect(),
        };
        let list = nrs
            .into_iter()
            .filter_map(|nr| Some((nr, memory::copies(&self.table.get(nr)?.name))))
            .filter(|(_, c)| !c.is_empty())
            .collect();
        (list, one.is_none())
    }

    fn copy_bytes(&self, c: &memory::Copy) -> usize {
        memory::bytes(c.size, self.buffer_size, self.string_size)
    }

    /// At entry: `print(TAG_IN + i, tid, mem(ARG, N))` and `cpI[tid] = ARG`, each under the
    /// syscalls that need it.
    pub(super) fn copies_at_entry(&self, id: &str, arg: &dyn Fn(usize) -> String) -> String {
        if self.mode != Mode::Lines || !self.copies {
            return String::new();
        }
        let (list, test) = self.copied(id);
        let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (nr, copies) in &list {
            for c in copies.iter() {
                if c.when.at_entry() {
                    let from = match c.size {
                        // msg_namelen, 8 bytes into the msghdr (in bytes: the pointer is typed).
                        memory::Size::NameLen => format!("(uint64){} + 8", arg(c.arg)),
                        _ => arg(c.arg),
                    };
                    let mut action = format!(
                        "print({}, tid, mem({from}, {}));",
                        TAG_IN + c.arg as u64,
                        self.copy_bytes(c)
                    );
                    // An iovec array's length is the next argument.
                    let limit = match c.size {
                        memory::Size::Iovec if c.arg < 5 => format!("(int64){}", arg(c.arg + 1)),
                        _ => "0".to_string(),
                    };
                    action.push_str(&self.nested(c.size, &arg(c.arg), false, &limit));
                    groups.entry(action).or_default().push(*nr);
                }
                if c.when.at_exit() {
                    let action = format!("cp{}[tid] = {};", c.arg, arg(c.arg));
                    groups.entry(action).or_default().push(*nr);
                }
            }
        }
        for (nr, name) in self.copied_names(id) {
            if let Some((argv, envp)) = memory::exec_arrays(name) {
                let action = self.exec_arrays(&arg(argv), &arg(envp));
                groups.entry(action).or_default().push(nr);
            }
        }
        guarded(groups, id, test)
    }

    fn copied_names(&self, id: &str) -> Vec<(u32, &str)> {
        let nrs: Vec<u32> = match id.parse() {
            Ok(nr) => vec![nr],
            Err(_) => {
                self.selection.nrs.iter().copied().filter(|&nr| self.filterable(nr)).collect()
            }
        };
        nrs.into_iter().filter_map(|nr| Some((nr, self.table.get(nr)?.name.as_str()))).collect()
    }

    /// execve's arrays: how many strings each has (`-s` in the count's high 32 bits), and argv's
    /// first ones (`-s` of them, at most [`memory::ARGV_MAX`]), each in a range whose end is a
    /// variable (see the module's text).
    fn exec_arrays(&self, argv: &str, envp: &str) -> String {
        let count = |array: &str, index: usize| {
            format!(
                "$xb = (uint64){array}; $xn = 0; {} print({tag}, tid, $xn | ({size} << 32));",
                self.bounded(
                    ("$xj", "$xm"),
                    0..memory::ARRAY_COUNT_MAX,
                    "$xp = (uint64 *)($xb + $xj * 8); if ($xb == 0 || $xp[0] == 0) { break; } \
                     $xn = $xj + 1;"
                ),
                size = self.buffer_size,
                tag = TAG_STRING + index as u64
            )
        };
        let shown = self.buffer_size.clamp(1, memory::ARGV_MAX);
        let strings = format!(
            "$xp = (uint64 *)($xb + $xi * 8); if ($xb == 0 || $xp[0] == 0) {{ break; }} \
             print({tag} + $xi, tid, str($xp[0], {bytes}));",
            tag = TAG_STRING + memory::ARGV_INDEX as u64,
            // One more than shown tells a longer string (cut, `...`) from one of `-s` bytes.
            bytes = self.buffer_size + 2,
        );
        format!(
            "{} {} $xb = (uint64){argv}; {}",
            count(argv, memory::ARGC_INDEX),
            count(envp, memory::ENVC_INDEX),
            self.bounded(("$xi", "$xm"), 0..shown, &strings)
        )
    }

    /// `body` for `i` from `range`'s start up to its end, as long as it does not `break`: a
    /// range ending at variable `end` where the kernel has `bpf_loop`, a `while` loop elsewhere
    /// (see the module's text).
    pub(super) fn bounded(
        &self,
        (i, end): (&str, &str),
        range: std::ops::Range<usize>,
        body: &str,
    ) -> String {
        let (from, to) = (range.start, range.end);
        match self.bpf_loop {
            true => format!("{end} = {to}; for ({i} : {from}..{end}) {{ {body} }}"),
            false => format!("{i} = {from}; while ({i} < {to}) {{ {body} {i}++; }}"),
        }
    }

    /// At exit, before the exit record: `print(TAG_OUT + i, tid, mem(cpI[tid], N))`.
    pub(super) fn copies_at_exit(&self, id: &str, ret: &str) -> String {
        // A failed call filled nothing: strace shows its pointers.
        if self.mode != Mode::Lines || !self.copies || self.failure {
            return String::new();
        }
        let (list, test) = self.copied(id);
        let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (nr, copies) in &list {
            for c in copies.iter().filter(|c| c.when.at_exit()) {
                let tag = TAG_OUT + c.arg as u64;
                let action = match c.size {
                    memory::Size::DirEntries => self.dir_entries(tag, c.arg, ret),
                    _ => {
                        let saved = format!("cp{}[tid]", c.arg);
                        let copy =
                            format!("print({tag}, tid, mem({saved}, {}));", self.copy_bytes(c));
                        // What the call filled: its result in bytes.
                        let limit = format!("(int64){ret}");
                        format!("{copy}{}", self.nested(c.size, &saved, true, &limit))
                    }
                };
                groups.entry(action).or_default().push(*nr);
            }
        }
        guarded(groups, id, test)
    }
}

impl Plan<'_> {
    /// getdents' entries, counted by walking their lengths (`d_reclen`, at 16 in both layouts).
    fn dir_entries(&self, tag: u64, arg: usize, ret: &str) -> String {
        let walk = self.bounded(
            ("$dj", "$dm"),
            0..memory::ARRAY_COUNT_MAX * 4,
            "if ($do >= $dl) { break; } $dr = (uint16 *)($db + $do + 16); \
             if ($dr[0] == 0) { break; } $do += $dr[0]; $dn = $dj + 1;",
        );
        format!(
            "$db = (uint64)cp{arg}[tid]; $dl = {ret}; $do = 0; $dn = 0; {walk} print({tag}, tid, $dn);"
        )
    }
}

/// Each action under `if (id == A || id == B)`, or bare when the program has one syscall.
fn guarded(groups: BTreeMap<String, Vec<u32>>, id: &str, test: bool) -> String {
    let mut out = String::new();
    for (action, nrs) in groups {
        if !test {
            let _ = write!(out, " {action}");
            continue;
        }
        let cond: Vec<String> = nrs.iter().map(|n| format!("{id} == {n}")).collect();
        let _ = write!(out, " if ({}) {{ {action} }}", cond.join(" || "));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::filter::parse_program;
    use crate::fixtures::fixtures;
    use crate::program::Plan;
    use crate::select::Selection;
    use crate::syscalls::SyscallTable;
    use sonde_compile::Options;

    fn plan<'a>(t: &'a SyscallTable, sel: &'a Selection, copies: bool) -> Plan<'a> {
        Plan { copies, ..crate::fixtures::plan(t, sel) }
    }

    /// The plan's program, compiled against the fixture kernel's formats.
    fn compiled(p: &Plan) -> String {
        let text = p.program();
        let opts = Options::new();
        let checked = parse_program(&text, None)
            .and_then(|ast| sonde_compile::check(&ast, &fixtures(), &opts))
            .and_then(|typed| sonde_compile::lower(&typed, &opts));
        if let Err(d) = checked {
            panic!("{text}\n{d:?}");
        }
        text
    }

    #[test]
    fn strace_s_layout_copies_what_its_decoders_read() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        let sel = Selection::parse("fstat,read,write,accept", &t).unwrap();
        let text = compiled(&plan(&t, &sel, true));
        let at = |tp: &str| text.lines().find(|l| l.contains(tp)).unwrap().to_string();
        // fstat fills its stat: the pointer saved at entry, 120 bytes copied at exit before the
        // exit record; read's bytes likewise, -s of them.
        assert!(at("sys_enter_newfstat ").contains("cp1[tid] = args->statbuf;"), "{text}");
        let exit = at("sys_exit_newfstat ");
        assert!(exit.contains("print(17, tid, mem(cp1[tid], 120)); print(2,"), "{text}");
        assert!(at("sys_exit_read ").contains("print(17, tid, mem(cp1[tid], 32));"), "{text}");
        // write's bytes whole at entry; accept's socklen at entry and at exit.
        assert!(at("sys_enter_write ").contains("print(23, tid, mem(args->buf, 32));"), "{text}");
        let enter = at("sys_enter_accept ");
        assert!(enter.contains("print(24, tid, mem(args->upeer_addrlen, 4));"), "{text}");
        assert!(at("sys_exit_accept ").contains("print(18, tid, mem(cp2[tid], 4));"), "{text}");
    }

    #[test]
    fn entries_send_their_copies_before_their_record() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        for set in ["openat,write,accept", "all"] {
            let sel = match set {
                "all" => Selection { nrs: (0..50).collect(), all: true },
                s => Selection::parse(s, &t).unwrap(),
            };
            let text = compiled(&plan(&t, &sel, true));
            let entries: Vec<&str> = text.lines().filter(|l| l.contains("print(1, tid")).collect();
            assert!(!entries.is_empty(), "{text}");
            for line in entries {
                // The record is the entry's last print, after at least one copy (a print, or
                // a call of the function copying a string).
                let record = line.find("print(1, tid").unwrap();
                assert_eq!(line.rfind("print("), Some(record), "{line}");
                let copied = ["print(", "copy_path(", "copy_buffer("];
                assert!(copied.iter().any(|c| line[..record].contains(c)), "{line}");
            }
        }
    }

    #[test]
    fn messages_and_iovecs_copy_what_their_pointers_lead_to() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        let names = "sendmsg,recvmsg,writev,readv,sendto,select,epoll_wait,epoll_ctl,wait4";
        let sel = Selection::parse(names, &t).unwrap();
        for all in [false, true] {
            let sel = Selection { all, ..sel.clone() };
            let text = compiled(&plan(&t, &sel, true));
            // sendmsg's name and iovecs at entry (80: name, 81: iovecs, 82: first buffer, 90:
            // -s), recvmsg's at exit from the saved pointer, as many buffers as bytes came.
            assert!(text.contains("print(90, tid, mem($mh[0], 112));"), "{text}");
            assert!(text.contains("print(92, tid, mem($iv[0], 256));"), "{text}");
            assert!(text.contains("print(100, tid, 32);"), "{text}");
            assert!(text.contains("$mh = (uint64 *)(uint64)cp1[tid];"), "{text}");
            assert!(text.contains("$il = $il - (int64)$iv[1];"), "{text}");
            // The buffers after the first in a range, tagged by their place.
            assert!(text.contains("$im = 8; for ($ik : 1..$im)"), "{text}");
            assert!(text.contains("print(92 + $ik, tid, mem($iv[0], 256));"), "{text}");
            // epoll_wait's events one by one, as many as it returned.
            assert!(text.contains("print(17, tid, mem(cp1[tid], 12));"), "{text}");
            assert!(
                text.contains("$eb = (uint64)cp1[tid]; $em = 9; for ($ek : 1..$em) { if ($el <= $ek) { break; } print(111 + $ek, tid, mem($eb + $ek * 12, 12)); }"),
                "{text}"
            );
        }
    }

    #[test]
    fn the_other_layouts_copy_nothing() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        let sel = Selection::parse("fstat,read,write,accept", &t).unwrap();
        let text = compiled(&plan(&t, &sel, false));
        assert!(!text.contains("mem(") && !text.contains("cp1"), "{text}");
    }

    #[test]
    fn many_syscalls_tell_theirs_apart_by_number() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        let sel = Selection { nrs: (0..50).collect(), all: false };
        let text = compiled(&plan(&t, &sel, true));
        assert!(
            text.contains("if (args->id == 0 || args->id == 5 || args->id == 19 || args->id == 23 || args->id == 43 || args->id == 44 || args->id == 47) { cp1[tid] = args->args[1]; }"),
            "{text}"
        );
    }

    #[test]
    fn execve_and_getdents_count_in_ranges_ending_at_a_variable() {
        let t = SyscallTable::load(&fixtures()).unwrap();
        let sel = Selection::parse("read", &t).unwrap();
        let p = plan(&t, &sel, true);
        let arrays = p.exec_arrays("args->argv", "args->envp");
        assert!(
            arrays.contains("$xm = 1024; for ($xj : 0..$xm)")
                && arrays.contains("$xm = 32; for ($xi : 0..$xm)")
                && arrays.contains("str($xp[0], 34)"),
            "{arrays}"
        );
        let dents = p.dir_entries(17, 1, "args->ret");
        assert!(dents.contains("$dm = 4096; for ($dj : 0..$dm)"), "{dents}");
        // Without bpf_loop: `while` loops against the constant, which the verifier bounds.
        let old = Plan { bpf_loop: false, ..p };
        let arrays = old.exec_arrays("args->argv", "args->envp");
        assert!(arrays.contains("$xj = 0; while ($xj < 1024) {"), "{arrays}");
        assert!(arrays.contains("$xn = $xj + 1; $xj++; }"), "{arrays}");
        let dents = old.dir_entries(17, 1, "args->ret");
        assert!(dents.contains("$dj = 0; while ($dj < 4096) {"), "{dents}");
        // The saved pointer is typed (struct linux_dirent64 *): walked in bytes, not in structs.
        assert!(dents.starts_with("$db = (uint64)cp1[tid];"), "{dents}");
    }
}
