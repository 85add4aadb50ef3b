//! Split DWARF (`-gsplit-dwarf`): the binary keeps a skeleton unit per compilation unit (its
//! line table and a DWO id); the types and functions are in `NAME.dwo` (named by the skeleton's
//! DW_AT_dwo_name, relative to its comp_dir), or bundled by `dwp` into `BIN.dwp` beside the
//! binary.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use gimli::{EndianRcSlice, LittleEndian, Reader as _};

use super::load::{section, sections, DebugInfo, R};

/// A DWARF with its number (each split file's offsets are its own).
type Numbered = (usize, Rc<gimli::Dwarf<R>>);

/// A split unit, in its numbered DWARF.
pub type SplitUnit = (usize, Rc<gimli::Dwarf<R>>, gimli::Unit<R>);

pub struct Split<'a> {
    info: &'a DebugInfo,
    /// `BIN.dwp`, opened on first need (`None` inside when there is none).
    package: Option<Option<gimli::DwarfPackage<R>>>,
    /// Each `.dwo` opened, by path, with its number.
    dwo: HashMap<PathBuf, Option<Numbered>>,
    next: usize,
}

impl<'a> Split<'a> {
    pub fn new(info: &'a DebugInfo) -> Split<'a> {
        Split { info, package: None, dwo: HashMap::new(), next: 1 }
    }

    /// The split unit a skeleton stands for, with its DWARF and that DWARF's number; `None` for
    /// a unit that is whole, or whose split part is nowhere to be found.
    pub fn unit_of(&mut self, skeleton: &gimli::Unit<R>) -> Result<Option<SplitUnit>, String> {
        let Some(id) = skeleton.dwo_id else { return Ok(None) };
        let parent = &self.info.dwarf;
        let package = self.package.get_or_insert_with(|| package(&self.info.binary));
        if let Some(dwp) = package {
            if let Some(dwarf) = dwp.find_cu(id, parent).map_err(|e| e.to_string())? {
                let n = self.next;
                self.next += 1;
                let dwarf = Rc::new(dwarf);
                return Ok(find(&dwarf, id, skeleton)?.map(|u| (n, dwarf, u)));
            }
        }
        let Some(path) = self.dwo_path(skeleton) else { return Ok(None) };
        if !self.dwo.contains_key(&path) {
            let opened = open_dwo(&path, parent).map(|d| {
                self.next += 1;
                (self.next - 1, Rc::new(d))
            });
            self.dwo.insert(path.clone(), opened);
        }
        let Some(Some((n, dwarf))) = self.dwo.get(&path) else { return Ok(None) };
        Ok(find(dwarf, id, skeleton)?.map(|u| (*n, dwarf.clone(), u)))
    }

    /// Where the skeleton's `.dwo` is: its name under its comp_dir, else beside the binary.
    fn dwo_path(&self, skeleton: &gimli::Unit<R>) -> Option<PathBuf> {
        let text = |v| self.info.dwarf.attr_string(skeleton, v).ok().map(|s| to_string(&s));
        let name = PathBuf::from(text(skeleton.dwo_name().ok()??)?);
        let comp_dir = skeleton.comp_dir.as_ref().map(|d| PathBuf::from(to_string(d)));
        let dir = self.info.binary.parent().unwrap_or(Path::new("."));
        let beside = name.file_name().map(|n| dir.join(n));
        let tries = [comp_dir.map(|d| d.join(&name)), Some(name.clone()), beside];
        tries.into_iter().flatten().find(|p| p.is_file())
    }
}

fn to_string(r: &R) -> String {
    r.to_string_lossy().map(|s| s.into_owned()).unwrap_or_default()
}

/// The unit of `dwarf` whose DWO id is `id`, with the skeleton's addresses.
fn find(
    dwarf: &gimli::Dwarf<R>,
    id: gimli::DwoId,
    skeleton: &gimli::Unit<R>,
) -> Result<Option<gimli::Unit<R>>, String> {
    let mut units = dwarf.units();
    while let Some(header) = units.next().map_err(|e| e.to_string())? {
        let mut unit = dwarf.unit(header).map_err(|e| e.to_string())?;
        if unit.dwo_id == Some(id) {
            unit.copy_relocated_attributes(skeleton);
            return Ok(Some(unit));
        }
    }
    Ok(None)
}

fn open_dwo(path: &Path, parent: &gimli::Dwarf<R>) -> Option<gimli::Dwarf<R>> {
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&data[..]).ok()?;
    let mut dwarf = sections(&file, true).ok()?;
    dwarf.make_dwo(parent);
    Some(dwarf)
}

/// `BIN.dwp` beside the binary, if there is one that reads.
fn package(binary: &Path) -> Option<gimli::DwarfPackage<R>> {
    let mut name = binary.as_os_str().to_owned();
    name.push(".dwp");
    let data = std::fs::read(PathBuf::from(name)).ok()?;
    let file = object::File::parse(&data[..]).ok()?;
    let empty = EndianRcSlice::new(Rc::from(&[][..]), LittleEndian);
    gimli::DwarfPackage::load(|id| Ok::<_, gimli::Error>(section(&file, id, true)), empty).ok()
}
