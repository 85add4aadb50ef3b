//! A user binary's own types, for casts in uprobes (`P tprog:work x=!(struct pt *)%1->x`): the
//! kernel's `struct pt` has nothing to do with the program's. The types come from the binary's
//! `.BTF` section, or from its DWARF (wherever `crate::debuginfo` finds it: the binary, a
//! separate debug file, split DWARF), turned into BTF so one type layer (sonde-btf) serves both.

mod dwarf;

use std::path::{Path, PathBuf};

use object::{Object, ObjectSection};
use sonde_btf::Btf;

use crate::debuginfo::{DebugInfo, NoDebugInfo};

/// Why a binary's types cannot be had, as one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoTypes {
    #[error("{path} has no type information (no DWARF debug info, no .BTF section, no separate debug file), and the kernel's types do not apply to a user program: build it with -g, install its debug package, or name its directory with --debuginfo DIR")]
    None { path: PathBuf },
    #[error("cannot read the types of {path}: {why}")]
    Unreadable { path: PathBuf, why: String },
}

/// The types of the binary at `path`: its `.BTF` section, else its DWARF.
pub fn user_types(path: &Path) -> Result<Btf, NoTypes> {
    let bad = |p: &Path, why: String| NoTypes::Unreadable { path: p.into(), why };
    let data = std::fs::read(path).map_err(|e| bad(path, e.to_string()))?;
    let file = object::File::parse(&data[..]).map_err(|e| bad(path, e.to_string()))?;
    if let Some(btf) = file.section_by_name(".BTF") {
        let bytes = btf.uncompressed_data().map_err(|e| bad(path, e.to_string()))?;
        return Btf::from_bytes(bytes.into_owned()).map_err(|e| bad(path, e.to_string()));
    }
    let unreadable = |e: NoDebugInfo| match e {
        NoDebugInfo::None { path } => NoTypes::None { path },
        NoDebugInfo::Unreadable { path, why } => NoTypes::Unreadable { path, why },
    };
    let info = DebugInfo::of(path).map_err(unreadable)?;
    let bytes = dwarf::to_btf(&info).map_err(unreadable)?;
    Btf::from_bytes(bytes).map_err(|e| bad(&info.path, e.to_string()))
}
