//! A user binary's DWARF wherever it is kept: in the binary, in a separate debug file (found by
//! build-id or `.gnu_debuglink`, checked against the binary), in split DWARF's `.dwo` files or
//! `.dwp` package; and what it says: types (see `user_types`) and source lines.

mod crc32;
pub mod lines;
mod load;
mod search;
mod split;

pub use load::{separate_file, DebugInfo, NoDebugInfo, R};
pub use search::{candidates, set_search_dirs, Proof};
