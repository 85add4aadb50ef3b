//! strace's `-P PATH`: only the calls that use PATH, chosen in the kernel as strace chooses them:
//! a path argument whose string is PATH, or an fd argument that refers to PATH. The kernel
//! cannot ask what an fd refers to (strace reads /proc), so the fds are followed: those an
//! open of PATH returns, their dups, and the ones a `-p` process held when sonde started
//! (`PathSet::fds`), until they are closed.
//!
//! A path the entry could not read (its page not yet faulted in) lets the call through to its
//! exit, where it is read again: a call whose path is not PATH there is dropped, its exit never
//! sent and user space told to forget its entry (`TAG_DROP`).

use super::reread::UNREAD;
use super::{Mode, Plan};
use crate::beauty::{self, Kind};
use std::collections::BTreeMap;
use std::fmt::Write;

/// `TAG_DROP`: the call of this thread let through at its entry did not use PATH after all.
pub const TAG_DROP: u64 = 6;

/// Bit `i`: argument `i` is a path; bit `FD + i`: an fd (or a dirfd).
const FD: u32 = 8;
/// The call returns an fd on PATH when its path is PATH (open), or when its fd is (dup); fcntl
/// when its command duplicates; close forgets its fd.
const OPENS: u64 = 1 << 16;
const DUPS: u64 = 1 << 17;
const FCNTL: u64 = 1 << 18;
const CLOSES: u64 = 1 << 19;
/// Found at the entry: a path is PATH, a path could not be read yet, an fd is on PATH.
const IS_PATH: u64 = 1 << 32;
const UNREAD_PATH: u64 = 1 << 33;
const ON_FD: u64 = 1 << 34;
/// Found at the exit: the call uses PATH.
const USES: u64 = 1 << 16;

/// The maps: argument kinds by syscall, the calls let through (1: they use PATH, 2: an unread
/// path, decided at the exit), the calls whose new fd is on PATH, the fds on PATH by process.
const KINDS: &str = "pk";
const CHOSEN: &str = "pp";
const OPENING: &str = "po";
const FDS: &str = "pf";

/// What `-P` asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathSet {
    /// The paths, as given (and resolved, when that differs, as strace adds them).
    pub paths: Vec<String>,
    /// (process, fd) already on one of the paths when tracing starts.
    pub fds: Vec<(u32, i32)>,
}

impl PathSet {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

impl Plan<'_> {
    /// The argument kinds of syscall `nr` as [`KINDS`]' bits.
    fn path_bits(&self, nr: u32) -> u64 {
        let Some(sc) = self.table.get(nr) else { return 0 };
        let mut bits = 0;
        for (i, a) in sc.args.iter().enumerate().take(6) {
            if a.is_string && !a.name.contains("buf") {
                bits |= 1 << i;
            } else if matches!(
                beauty::kind(&sc.name, &a.name, a.is_pointer),
                Kind::Fd | Kind::Dirfd
            ) {
                bits |= 1 << (FD as usize + i);
            }
        }
        bits | match sc.name.as_str() {
            "open" | "openat" | "openat2" | "creat" => OPENS,
            "dup" | "dup2" | "dup3" => DUPS,
            "fcntl" => FCNTL,
            "close" => CLOSES,
            _ => 0,
        }
    }

    /// The kinds of every selected syscall that has a path or an fd, and their union.
    fn kinds(&self, nrs: &[u32]) -> (BTreeMap<u32, u64>, u64) {
        let kinds: BTreeMap<u32, u64> = nrs
            .iter()
            .map(|&nr| (nr, self.path_bits(nr)))
            .filter(|(_, b)| b & 0xffff != 0)
            .collect();
        let union = kinds.values().fold(0, |all, b| all | b);
        (kinds, union)
    }

    /// `body` of an entry (`id`: the syscall's number there, one of `nrs`; `args`: its
    /// arguments), run only for calls that use one of the paths.
    /// The entry's test: `$pk` holds the kinds and, above them, what was found (`IS_PATH`,
    /// `UNREAD_PATH`, `ON_FD`): one variable, as the program's BPF stack is nearly full.
    pub(crate) fn paths_at_entry(
        &self,
        p: &mut String,
        id: &str,
        nrs: &[u32],
        args: &[String],
        body: &str,
    ) -> String {
        if self.paths.is_empty() {
            return body.to_string();
        }
        self.fill_kinds(p);
        let union = self.kinds(nrs).1;
        let tests = self.path_tests(union, args);
        let fds = self.fds_followed(union, args);
        format!(
            "$pk = {KINDS}[{id}]; {tests}\
             if ($pk >> 32) {{ {CHOSEN}[tid] = 1 + (($pk >> 32 & 5) == 0); {fds}{body}}}"
        )
    }

    /// BEGIN's fill, written once into `p`: every selected syscall's kinds, and the fds
    /// already on the paths.
    fn fill_kinds(&self, p: &mut String) {
        if p.contains(&format!("BEGIN {{ {KINDS}[")) {
            return;
        }
        let all: Vec<u32> = self.selection.nrs.iter().copied().collect();
        let fill: String =
            self.kinds(&all).0.iter().map(|(nr, b)| format!("{KINDS}[{nr}] = {b}; ")).collect();
        let seed: String = self
            .paths
            .fds
            .iter()
            .map(|(pid, fd)| format!("{FDS}[(uint32){pid}, (int32){fd}] = 1; "))
            .collect();
        let _ = writeln!(p, "BEGIN {{ {seed}{fill}}}");
    }

    /// `$pm`: a path argument is one of the paths; `$pu`: one could not be read (lines only:
    /// the exit reads it again); `$fm`: an fd argument is followed.
    fn path_tests(&self, union: u64, args: &[String]) -> String {
        let mut s = String::new();
        for i in (0..6).filter(|i| union & (1 << i) != 0) {
            let a = &args[i];
            let _ = write!(
                s,
                "if ($pk & {}) {{ if ({}) {{ $pk = $pk | {IS_PATH}; }}",
                1u64 << i,
                self.is_path(a)
            );
            if self.mode == Mode::Lines {
                let _ = write!(
                    s,
                    " else if ({a} != 0 && strncmp(str({a}, 2), \"\", 1) == 0) {{ $pk = $pk | {UNREAD_PATH}; }}"
                );
            }
            s.push_str(" } ");
        }
        for i in (0..6).filter(|i| union & (1 << (FD as usize + i)) != 0) {
            let bit = 1u64 << (FD as usize + i);
            let _ = write!(
                s,
                "if ($pk & {bit} && {FDS}[pid, (int32){}]) {{ $pk = $pk | {ON_FD}; }} ",
                args[i]
            );
        }
        s
    }

    /// A chosen call's fds: the one an open of a path or a dup of a followed fd returns is
    /// followed from its exit (`{OPENING}`); close forgets its fd.
    fn fds_followed(&self, union: u64, args: &[String]) -> String {
        let mut opening = vec![
            format!("($pk & {OPENS} && $pk & ({IS_PATH} | {UNREAD_PATH}))"),
            format!("($pk & {DUPS} && $pk & {ON_FD})"),
        ];
        if union & FCNTL != 0 {
            let a = &args[1];
            let (dup, dup_cloexec) = (libc::F_DUPFD, libc::F_DUPFD_CLOEXEC);
            opening.push(format!(
                "($pk & {FCNTL} && $pk & {ON_FD} && ({a} == {dup} || {a} == {dup_cloexec}))"
            ));
        }
        let mut s = format!("if ({}) {{ {OPENING}[tid] = 1; }} ", opening.join(" || "));
        if union & CLOSES != 0 {
            let _ = write!(s, "if ($pk & {CLOSES}) {{ delete {FDS}[pid, (int32){}]; }} ", args[0]);
        }
        s
    }

    /// The predicate part of an exit: only calls let through at their entry.
    pub(crate) fn paths_exit_predicate(&self) -> String {
        match self.paths.is_empty() {
            true => String::new(),
            false => format!(" && {CHOSEN}[tid]"),
        }
    }

    /// `body` of an exit (`ret`: the call's result), run for the calls that used one of the
    /// paths: a call let through on an unread path is decided by the path read again
    /// (`positions`: the path arguments' indexes).
    /// The exit's test: `$pc` holds what the entry chose (1, or 2 for an unread path) in its low
    /// byte, the opening mark at bit 8 and "uses PATH" at bit 16, and `$pv` each path read again:
    /// two variables, as this program's BPF stack is nearly full.
    pub(crate) fn paths_at_exit(&self, ret: &str, positions: &[usize], body: &str) -> String {
        if self.paths.is_empty() {
            return body.to_string();
        }
        let mut s = format!(
            "$pc = {CHOSEN}[tid] | ({OPENING}[tid] << 8); delete {CHOSEN}[tid]; delete {OPENING}[tid]; \
             if (($pc & 255) == 1) {{ $pc = $pc | {USES}; }} "
        );
        let again = match self.mode {
            Mode::Lines => positions,
            Mode::Summary => &[],
        };
        for i in again {
            let _ = write!(
                s,
                "$pv = {UNREAD}[tid, {i}]; if (($pc & 255) == 2 && $pv && {}) {{ $pc = $pc | {USES}; }} ",
                self.is_path("$pv")
            );
        }
        let forget: String = again.iter().map(|i| format!("delete {UNREAD}[tid, {i}]; ")).collect();
        let drop = match self.mode {
            Mode::Lines => format!("print({TAG_DROP}, tid); {forget}"),
            Mode::Summary => String::new(),
        };
        let _ = write!(
            s,
            "if ($pc & {USES}) {{ if (($pc & 256) && {ret} >= 0) {{ {FDS}[pid, (int32){ret}] = 1; }} {body}}} else if (($pc & 255) == 2) {{ {drop}}}"
        );
        s
    }

    /// `ptr`'s string is one of the paths.
    /// Read as long as PATH and one byte more: a longer string then differs, and the buffer on
    /// the BPF stack stays small beside the copies the same program makes.
    fn is_path(&self, ptr: &str) -> String {
        let each: Vec<String> = self
            .paths
            .paths
            .iter()
            .map(|path| format!("str({ptr}, {}) == {}", path.len() + 2, quoted(path)))
            .collect();
        format!("({})", each.join(" || "))
    }
}

/// A path as a string literal of sonde's language.
fn quoted(path: &str) -> String {
    let mut s = String::from("\"");
    for c in path.chars() {
        match c {
            '"' | '\\' => {
                s.push('\\');
                s.push(c);
            }
            _ => s.push(c),
        }
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests;
