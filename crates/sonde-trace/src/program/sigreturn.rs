//! rt_sigreturn's lines. At its exit the kernel has restored the registers of the code a signal
//! interrupted: the syscall number there is that code's (-1 on x86-64 and arm64) and the return
//! value its restored result. So its entry marks the task (`sr[tid]`), and the task's next exit
//! is rt_sigreturn's whatever the registers say. strace shows the mask the signal frame restores
//! (`rt_sigreturn({mask=[]})`): the task's blocked set once the call is done, read through BTF.

use super::{Mode, Plan};
use crate::memory::{TAG_IN, TAG_OUT};

/// Where x86-64's signal frame holds the mask rt_sigreturn restores, from the user stack
/// pointer at its entry: the frame starts 8 bytes below it (the handler's return popped its
/// restorer's address), then pretcode (8), uc_flags (8), uc_link (8), uc_stack (24) and
/// uc_mcontext (256) come before uc_sigmask.
const FRAME_MASK_FROM_SP: u64 = 296;

/// The map marking a task inside rt_sigreturn.
const MAP: &str = "sr";

impl Plan<'_> {
    /// rt_sigreturn's number, when lines are printed for it.
    pub(crate) fn sigreturn(&self) -> Option<u32> {
        if self.mode != Mode::Lines {
            return None;
        }
        let nr = self.table.by_name("rt_sigreturn")?.nr;
        let traced = self.selection.all || self.selection.nrs.contains(&nr);
        (traced && self.filterable(nr)).then_some(nr)
    }

    /// At an entry whose number is `id`: rt_sigreturn's marks its task.
    pub(crate) fn sigreturn_at_entry(&self, id: &str) -> String {
        match self.sigreturn() {
            Some(nr) if id == nr.to_string() => format!("{MAP}[tid] = 1; "),
            Some(nr) if id.parse::<u32>().is_err() => {
                format!("if ({id} == {nr}) {{ {MAP}[tid] = 1; }} ")
            }
            _ => String::new(),
        }
    }

    /// The exit predicate's syscall set (`set`, as [`Plan::set`] writes it for `id`). Lines
    /// leave out exits without a number (-1): rt_sigreturn's are let through by its mark.
    pub(crate) fn exit_set(&self, set: &str, id: &str) -> String {
        match self.mode == Mode::Lines && self.selection.all {
            true => format!(" && {id} != -1"),
            false => set.to_string(),
        }
    }

    /// The exit's predicate (`pred`, with `-Z`'s failure), and the condition the body must then
    /// check itself: a marked task's exit passes whatever else holds (`-Z`, `--cpu` where it
    /// moved), so that its mark is always taken off. `id`: as [`Plan::sigreturn_at_exit`] has it.
    pub(crate) fn exit_predicate(
        &self,
        pred: &str,
        id: &str,
        ret: &str,
    ) -> (String, Option<String>) {
        let failed = self.failure.then(|| format!("{ret} < 0"));
        let base = match &failed {
            Some(f) => format!("{pred} && {f}"),
            None => pred.to_string(),
        };
        match self.sigreturn() {
            Some(nr) if id == nr.to_string() => (format!("{MAP}[tid]"), failed),
            Some(_) if id.parse::<u32>().is_err() => (format!("({base}) || {MAP}[tid]"), failed),
            _ => (base, None),
        }
    }

    /// At the start of an exit's program (`id`: the registers' syscall number, or the one
    /// syscall the program is for): what to write first, and the call's number from then on.
    pub(crate) fn sigreturn_at_exit(&self, id: &str) -> (String, String) {
        match self.sigreturn() {
            Some(nr) if id == nr.to_string() => (format!("delete {MAP}[tid]; "), id.into()),
            Some(nr) if id.parse::<u32>().is_err() => (
                format!("$id = {id}; if ({MAP}[tid]) {{ $id = {nr}; delete {MAP}[tid]; }} "),
                "$id".into(),
            ),
            _ => (String::new(), id.into()),
        }
    }

    /// At a raw entry (`sp`: the user stack pointer there): the mask rt_sigreturn will restore,
    /// read from its signal frame, for the first part of a line another task splits (the
    /// exit's copy is the one trusted).
    pub(crate) fn sigreturn_mask_at_entry(&self, id: &str, sp: Option<&str>) -> String {
        let (Some(nr), Some(sp)) = (self.sigreturn().filter(|_| self.copies), sp) else {
            return String::new();
        };
        format!(
            " if ({id} == {nr}) {{ print({TAG_IN}, tid, mem({sp} + {FRAME_MASK_FROM_SP}, 8)); }}"
        )
    }

    /// With an exit's copies: rt_sigreturn's restored mask (strace's layout, where BTF types the
    /// task).
    pub(crate) fn sigreturn_mask(&self, id: &str) -> String {
        let Some(nr) = self.sigreturn().filter(|_| self.copies && self.fate) else {
            return String::new();
        };
        let copy = format!("print({TAG_OUT}, tid, curtask->blocked.sig[0]);");
        match id.parse::<u32>() {
            Ok(n) if n == nr => format!("{copy} "),
            Ok(_) => String::new(),
            Err(_) => format!("if ({id} == {nr}) {{ {copy} }} "),
        }
    }
}
