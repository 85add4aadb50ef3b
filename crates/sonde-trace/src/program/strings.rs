//! The strings a raw entry copies: which argument of which syscall is a path or a written buffer
//! is looked up once per call in a map BEGIN fills (`sk[nr]`: bit `i` for a path at argument `i`,
//! bit `8 + i` for a buffer), rather than compared against every such syscall's number for each
//! argument position: a hundred comparisons a position cost every call, and the verifier time
//! a short run pays for.

use super::{Mode, Plan, TAG_STRING};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The map of string arguments by syscall number.
const KINDS: &str = "sk";

impl Plan<'_> {
    /// The copies before the entry record (`args`: each argument's expression), and BEGIN's fill.
    pub(crate) fn raw_strings(&self, p: &mut String, id: &str, args: &[String]) -> String {
        if self.mode != Mode::Lines {
            return String::new();
        }
        let mut kinds: BTreeMap<u32, u64> = BTreeMap::new();
        for &nr in &self.selection.nrs {
            let Some(sc) = self.table.get(nr) else { continue };
            for (i, a) in sc.args.iter().enumerate().take(6).filter(|(_, a)| a.is_string) {
                let bit = if a.name.contains("buf") { 8 + i } else { i };
                *kinds.entry(nr).or_default() |= 1 << bit;
            }
        }
        if kinds.is_empty() {
            return String::new();
        }
        let fill: String = kinds.iter().map(|(nr, k)| format!("{KINDS}[{nr}] = {k}; ")).collect();
        let _ = writeln!(p, "BEGIN {{ {fill}}}");
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
