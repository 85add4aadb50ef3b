//! The program's copies of user memory for strace's decoders ([`crate::memory`]): at entry the
//! structs a call reads, and the pointers of those it fills (in `cpN[tid]`), copied at exit
//! before the exit record.

use super::{Mode, Plan};
use crate::memory::{self, When, TAG_IN, TAG_OUT};
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
        if self.mode != Mode::Lines {
            return String::new();
        }
        let (list, test) = self.copied(id);
        let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (nr, copies) in &list {
            for c in copies.iter() {
                let action = match c.when {
                    When::Entry => format!(
                        "print({}, tid, mem({}, {}));",
                        TAG_IN + c.arg as u64,
                        arg(c.arg),
                        self.copy_bytes(c)
                    ),
                    When::Exit => format!("cp{}[tid] = {};", c.arg, arg(c.arg)),
                };
                groups.entry(action).or_default().push(*nr);
            }
        }
        guarded(groups, id, test)
    }

    /// At exit, before the exit record: `print(TAG_OUT + i, tid, mem(cpI[tid], N))`.
    pub(super) fn copies_at_exit(&self, id: &str) -> String {
        // A failed call filled nothing: strace shows its pointers.
        if self.mode != Mode::Lines || self.failure {
            return String::new();
        }
        let (list, test) = self.copied(id);
        let mut groups: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for (nr, copies) in &list {
            for c in copies.iter().filter(|c| c.when == When::Exit) {
                let action = format!(
                    "print({}, tid, mem(cp{}[tid], {}));",
                    TAG_OUT + c.arg as u64,
                    c.arg,
                    self.copy_bytes(c)
                );
                groups.entry(action).or_default().push(*nr);
            }
        }
        guarded(groups, id, test)
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
