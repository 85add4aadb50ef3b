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
            let ptr = &args[i];
            let again = if buffer { String::new() } else { self.remember_unread(ptr, i) };
            let _ = write!(
                out,
                " if ($k & {}) {{ print({}, tid, str({ptr}, {}));{again} }}",
                1u64 << bit,
                TAG_STRING + i as u64,
                self.string_size(buffer)
            );
        }
        out
    }
}
