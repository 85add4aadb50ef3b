//! Paths the entry could not read (their page not yet faulted in: the kernel's tracepoints may
//! not fault) are read again at the call's exit, when the call itself has brought the page in.
//! The entry cannot tell an unread path from an empty one (both copy as zeros): it remembers
//! the pointer of either, and user space shows the path from the exit's copy, or the pointer
//! when there is none (`TAG_AGAIN`).

use super::{Mode, Plan, TAG_AGAIN};

/// The map of pointers to read again, by (tid, argument index).
pub(super) const UNREAD: &str = "ur";
/// The program's function reading a remembered path again.
pub(super) const READ_AGAIN: &str = "read_again";

impl Plan<'_> {
    /// After the entry's copy of path argument `i` (`ptr`): its pointer remembered when the
    /// copy starts with a NUL.
    pub(crate) fn remember_unread(&self, ptr: &str, i: &str) -> String {
        if self.mode != Mode::Lines {
            return String::new();
        }
        format!(
            " if ({ptr} != 0 && strncmp(str({ptr}, 2), \"\", 1) == 0) {{ {UNREAD}[tid, {i}] = {ptr}; }}"
        )
    }

    /// At the exit, before its record: the remembered paths at these argument positions, read
    /// again.
    pub(crate) fn read_again(&self, positions: &[usize]) -> String {
        if self.mode != Mode::Lines {
            return String::new();
        }
        let again = |i: usize| {
            let tag = TAG_AGAIN + i as u64;
            match self.calls_functions() {
                true => format!("{READ_AGAIN}({tag}, {i}); "),
                false => format!(
                    "{} ",
                    self.path_again(&tag.to_string(), &i.to_string(), &format!("$u{i}"))
                ),
            }
        };
        positions.iter().map(|&i| again(i)).collect()
    }

    /// The definition of the function [`Plan::read_again`] calls.
    pub(super) fn read_again_function(&self) -> String {
        let body = self.path_again("$tag", "$i", "$u");
        format!("fn {READ_AGAIN}($tag: int64, $i: int64) {{ {body} }}\n")
    }

    /// Path argument `i` read again under `tag` if its pointer was remembered (held in `var`),
    /// and forgotten: in place, or as `read_again`'s body.
    fn path_again(&self, tag: &str, i: &str, var: &str) -> String {
        format!(
            "{var} = {UNREAD}[tid, {i}]; if ({var}) {{ print({tag}, tid, str({var}, {})); delete {UNREAD}[tid, {i}]; }}",
            self.string_size
        )
    }

    /// The argument positions holding a path (not a buffer) in any of these syscalls.
    pub(crate) fn path_positions(&self, nrs: impl Iterator<Item = u32>) -> Vec<usize> {
        let mut at: Vec<usize> = nrs
            .filter_map(|nr| self.table.get(nr))
            .flat_map(|sc| {
                sc.args
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.is_string && !a.name.contains("buf"))
                    .map(|(i, _)| i)
            })
            .collect();
        at.sort_unstable();
        at.dedup();
        at
    }
}
