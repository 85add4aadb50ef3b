//! A user binary's own types, for casts in uprobes (`P tprog:work x=!(struct pt *)%1->x`): the
//! kernel's `struct pt` has nothing to do with the program's. The types come from the binary's
//! `.BTF` section, or from its DWARF (the binary's own or its separate debug file, looked for
//! where `perf probe` looks), turned into BTF so one type layer (sonde-btf) serves both.

mod dwarf;
mod find;

use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};
use sonde_btf::Btf;

pub use find::debug_candidates;

/// Why a binary's types cannot be had, as one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoTypes {
    #[error("{path} has no type information (no DWARF debug info, no .BTF section, no separate debug file), and the kernel's types do not apply to a user program: build it with -g or install its debug package")]
    None { path: PathBuf },
    #[error("cannot read the types of {path}: {why}")]
    Unreadable { path: PathBuf, why: String },
}

/// The types of the binary at `path`: its `.BTF` section, else the DWARF of the first of
/// [`debug_candidates`] that has some.
pub fn user_types(path: &Path) -> Result<Btf, NoTypes> {
    let bad = |p: &Path, why: String| NoTypes::Unreadable { path: p.into(), why };
    let data = std::fs::read(path).map_err(|e| bad(path, e.to_string()))?;
    let file = object::File::parse(&data[..]).map_err(|e| bad(path, e.to_string()))?;
    if let Some(btf) = file.section_by_name(".BTF") {
        let bytes = btf.uncompressed_data().map_err(|e| bad(path, e.to_string()))?;
        return Btf::from_bytes(bytes.into_owned()).map_err(|e| bad(path, e.to_string()));
    }
    for candidate in debug_candidates(path, &file) {
        if candidate == path {
            if has_dwarf(&file) {
                return from_dwarf(path, &file);
            }
            continue;
        }
        let Ok(bytes) = std::fs::read(&candidate) else { continue };
        let Ok(debug) = object::File::parse(&bytes[..]) else { continue };
        if has_dwarf(&debug) {
            return from_dwarf(&candidate, &debug);
        }
    }
    Err(NoTypes::None { path: path.into() })
}

fn has_dwarf(file: &object::File) -> bool {
    file.section_by_name(".debug_info").is_some_and(|s| s.size() > 0)
}

fn from_dwarf(path: &Path, file: &object::File) -> Result<Btf, NoTypes> {
    let bytes = dwarf::to_btf(file)
        .map_err(|why| NoTypes::Unreadable { path: path.into(), why: why.to_string() })?;
    Btf::from_bytes(bytes)
        .map_err(|e| NoTypes::Unreadable { path: path.into(), why: e.to_string() })
}
