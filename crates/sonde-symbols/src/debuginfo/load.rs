//! Opening a binary's DWARF: the first of the search's candidates that has some and proves to
//! be this build's, with its split units (`.dwo`, `.dwp`) reached through `split`.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use gimli::{EndianRcSlice, LittleEndian};
use object::{Object, ObjectSection};

use super::search::{candidates, proves};

/// The reader every DWARF section is read with: it owns its bytes, so split units' files can be
/// opened while the binary's units are walked.
pub type R = EndianRcSlice<LittleEndian>;

/// Why a binary's DWARF cannot be had, as one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoDebugInfo {
    #[error("{path} has no DWARF debug info (none in the file, no separate debug file found): build it with -g, install its debug package, or name its directory with --debuginfo DIR")]
    None { path: PathBuf },
    #[error("cannot read the debug info of {path}: {why}")]
    Unreadable { path: PathBuf, why: String },
}

/// A binary's DWARF.
pub struct DebugInfo {
    /// The binary the DWARF describes.
    pub binary: PathBuf,
    /// The file the DWARF was read from: the binary or its separate debug file.
    pub path: PathBuf,
    pub dwarf: gimli::Dwarf<R>,
}

impl DebugInfo {
    /// The DWARF of the binary at `binary`, wherever it is kept.
    pub fn of(binary: &Path) -> Result<DebugInfo, NoDebugInfo> {
        let bad = |p: &Path, why: String| NoDebugInfo::Unreadable { path: p.into(), why };
        let data = std::fs::read(binary).map_err(|e| bad(binary, e.to_string()))?;
        let file = object::File::parse(&data[..]).map_err(|e| bad(binary, e.to_string()))?;
        for (candidate, proof) in candidates(binary, &file) {
            let own;
            let bytes = if candidate == binary {
                &data
            } else {
                let Ok(b) = std::fs::read(&candidate) else { continue };
                own = b;
                &own
            };
            let Ok(debug) = object::File::parse(&bytes[..]) else { continue };
            if !has_dwarf(&debug) || !proves(&proof, bytes, &debug) {
                continue;
            }
            let dwarf = sections(&debug, false).map_err(|e| bad(&candidate, e.to_string()))?;
            return Ok(DebugInfo { binary: binary.into(), path: candidate, dwarf });
        }
        Err(NoDebugInfo::None { path: binary.into() })
    }

    /// Calls `f` with each compilation unit and the DWARF it belongs to (a split unit's own:
    /// its `.dwo` or its part of the `.dwp`), numbered by that DWARF (offsets are per DWARF).
    pub fn each_unit(
        &self,
        mut f: impl FnMut(usize, &gimli::Dwarf<R>, &gimli::Unit<R>) -> gimli::Result<()>,
    ) -> Result<(), NoDebugInfo> {
        let bad = |why: gimli::Error| NoDebugInfo::Unreadable {
            path: self.path.clone(),
            why: why.to_string(),
        };
        let mut split = super::split::Split::new(self);
        let mut units = self.dwarf.units();
        while let Some(header) = units.next().map_err(bad)? {
            let unit = self.dwarf.unit(header).map_err(bad)?;
            match split
                .unit_of(&unit)
                .map_err(|why| NoDebugInfo::Unreadable { path: self.path.clone(), why })?
            {
                Some((n, dwarf, unit)) => f(n, &dwarf, &unit).map_err(bad)?,
                None => f(0, &self.dwarf, &unit).map_err(bad)?,
            }
        }
        Ok(())
    }
}

/// The first separate debug file of `binary` that proves to be this build's, DWARF or not (a
/// fully stripped binary's symbols are there).
pub fn separate_file(binary: &Path) -> Option<PathBuf> {
    let data = std::fs::read(binary).ok()?;
    let file = object::File::parse(&data[..]).ok()?;
    candidates(binary, &file).into_iter().find_map(|(candidate, proof)| {
        if candidate == binary {
            return None;
        }
        let bytes = std::fs::read(&candidate).ok()?;
        let debug = object::File::parse(&bytes[..]).ok()?;
        proves(&proof, &bytes, &debug).then_some(candidate)
    })
}

fn has_dwarf(file: &object::File) -> bool {
    file.section_by_name(".debug_info").is_some_and(|s| s.size() > 0)
}

/// The DWARF sections of `file` (a `.dwo`'s or `.dwp`'s names when `dwo`).
pub fn sections(file: &object::File, dwo: bool) -> gimli::Result<gimli::Dwarf<R>> {
    gimli::Dwarf::load(|id| Ok::<_, gimli::Error>(section(file, id, dwo)))
}

/// One section's bytes (empty when the file has none).
pub fn section(file: &object::File, id: gimli::SectionId, dwo: bool) -> R {
    let name = if dwo { id.dwo_name() } else { Some(id.name()) };
    let data = name
        .and_then(|n| file.section_by_name(n))
        .and_then(|s| s.uncompressed_data().ok())
        .unwrap_or_default();
    EndianRcSlice::new(Rc::from(&*data), LittleEndian)
}
