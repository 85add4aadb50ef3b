//! The strings a raw entry copies: which argument of which syscall is a path or a written buffer
//! is looked up once per call in a map (`sk[nr]`: bit `i` for a path at argument `i`, bit `8 + i`
//! for a buffer), rather than compared against every such syscall's number for each argument
//! position: a hundred comparisons a position cost every call, and the verifier time a short run
//! pays for. User space fills the map before attaching ([`Plan::string_kinds`]), in one bpf(2)
//! call: a BEGIN filling it took ~2000 instructions, 5-20 ms to verify. BEGIN only gives the map
//! its type, with a key no syscall has and the value every other key means (no strings).

use super::{Mode, Plan, TAG_STRING};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The map of string arguments by syscall number.
pub const MAP_STRING_KINDS: &str = "sk";
const KINDS: &str = MAP_STRING_KINDS;

impl Plan<'_> {
    /// What user space puts in `sk` (by syscall number, the bits of its string arguments) when
    /// the program reads it: empty when it does not.
    pub fn string_kinds(&self) -> BTreeMap<u32, u64> {
        let mut kinds: BTreeMap<u32, u64> = BTreeMap::new();
        if self.mode != Mode::Lines || self.per_syscall() {
            return kinds;
        }
        for &nr in &self.selection.nrs {
            let Some(sc) = self.table.get(nr) else { continue };
            for (i, a) in sc.args.iter().enumerate().take(6).filter(|(_, a)| a.is_string) {
                let bit = if a.name.contains("buf") { 8 + i } else { i };
                *kinds.entry(nr).or_default() |= 1 << bit;
            }
        }
        kinds
    }

    /// The copies before the entry record (`args`: each argument's expression), and BEGIN's line
    /// typing `sk`.
    pub(crate) fn raw_strings(&self, p: &mut String, id: &str, args: &[String]) -> String {
        let kinds = self.string_kinds();
        if kinds.is_empty() {
            return String::new();
        }
        let _ = writeln!(p, "BEGIN {{ {KINDS}[-1] = 0; }}");
        let used = kinds.values().fold(0u64, |all, k| all | k);
        let mut out = format!(" $k = {KINDS}[{id}];");
        for bit in (0..16).filter(|b| used & (1 << b) != 0) {
            let (i, buffer) = (bit % 8, bit >= 8);
            let _ =
                write!(out, " if ($k & {}) {{ {} }}", 1u64 << bit, self.copy(i, &args[i], buffer));
        }
        out
    }

    /// The copy of string argument `i` (`ptr`), a path or the start of a written buffer: a call
    /// of one of the program's functions (see [`Plan::functions`]), or the same code in place.
    pub(crate) fn copy(&self, i: usize, ptr: &str, buffer: bool) -> String {
        let tag = TAG_STRING + i as u64;
        match (buffer, self.calls_functions()) {
            (true, true) => format!("{COPY_BUFFER}({tag}, {ptr});"),
            (false, true) => format!("{COPY_PATH}({tag}, {i}, {ptr});"),
            (true, false) => self.buffer_copy(&tag.to_string(), ptr),
            (false, false) => self.path_copy(&tag.to_string(), &i.to_string(), ptr),
        }
    }

    /// A path's copy under `tag` (argument `i` at `ptr`), its pointer remembered when it came
    /// out empty: in place, or as `copy_path`'s body (with its parameters' names).
    fn path_copy(&self, tag: &str, i: &str, ptr: &str) -> String {
        let again = self.remember_unread(ptr, i);
        format!("print({tag}, tid, str({ptr}, {}));{again}", self.string_size(false))
    }

    /// The start of a written buffer at `ptr`, copied under `tag`.
    fn buffer_copy(&self, tag: &str, ptr: &str) -> String {
        format!("print({tag}, tid, str({ptr}, {}));", self.string_size(true))
    }

    /// Are the copies calls of the program's functions (BPF global functions, each verified
    /// once)? Not where the decoding copies memory too (`--strace`, `-v`): with execve's
    /// counting loops in the same program, calls made the verifier walk past its million
    /// instructions on 6.18, where the same code in place loads.
    pub(crate) fn calls_functions(&self) -> bool {
        !self.copies
    }

    /// The functions the program's text calls, defined before its probes: each copy is a BPF
    /// function the kernel verifies once, not once for each argument position and path.
    pub(crate) fn functions(&self, text: &str) -> String {
        let mut defs = String::new();
        let calls = |name: &str| text.contains(&format!("{name}("));
        if calls(COPY_PATH) {
            let body = self.path_copy("$tag", "$i", "$p");
            let _ =
                writeln!(defs, "fn {COPY_PATH}($tag: int64, $i: int64, $p: int64) {{ {body} }}");
        }
        if calls(COPY_BUFFER) {
            let body = self.buffer_copy("$tag", "$p");
            let _ = writeln!(defs, "fn {COPY_BUFFER}($tag: int64, $p: int64) {{ {body} }}");
        }
        if calls(super::reread::READ_AGAIN) {
            defs.push_str(&self.read_again_function());
        }
        defs
    }
}

/// The program's functions copying a path argument, and a written buffer's start.
const COPY_PATH: &str = "copy_path";
const COPY_BUFFER: &str = "copy_buffer";
