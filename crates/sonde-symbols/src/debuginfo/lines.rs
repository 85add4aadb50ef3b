//! `FILE:LINE` to an address, through the line tables: the lowest address of a row that starts
//! a statement (`is_stmt`) of that line, where a debugger puts a breakpoint for it. Split DWARF
//! keeps its line tables in the binary's skeleton units, so the binary's own units are read.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use gimli::Reader as _;

use super::load::{DebugInfo, NoDebugInfo, R};

/// Why a source line has no address, as one sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    NoDebugInfo(#[from] NoDebugInfo),
    #[error("the line tables of {binary} name no source file `{file}`")]
    NoFile { binary: PathBuf, file: String },
    #[error("line {line} of {file} has no code{}", nearest(.before, .after))]
    NoCode { file: String, line: u64, before: Option<u64>, after: Option<u64> },
}

fn nearest(before: &Option<u64>, after: &Option<u64>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => format!(": the nearest lines with code are {b} and {a}"),
        (Some(n), None) | (None, Some(n)) => format!(": the nearest line with code is {n}"),
        (None, None) => String::new(),
    }
}

/// The address (in the binary's own address space) of line `line` of source file `file`, a
/// name (`prog.c`) or the end of a path (`src/prog.c`, `/abs/src/prog.c`).
pub fn line_address(info: &DebugInfo, file: &str, line: u64) -> Result<u64, LineError> {
    let rows = rows_of(info, Path::new(file))?;
    if rows.is_empty() {
        return Err(LineError::NoFile { binary: info.binary.clone(), file: file.into() });
    }
    if let Some(&(_, address)) = rows.iter().find(|(l, _)| *l == line) {
        return Ok(address);
    }
    let lines: BTreeSet<u64> = rows.iter().map(|(l, _)| *l).collect();
    Err(LineError::NoCode {
        file: file.into(),
        line,
        before: lines.range(..line).next_back().copied(),
        after: lines.range(line..).next().copied(),
    })
}

/// Every statement row of the files that `file` names, as (line, address), lowest address
/// first.
fn rows_of(info: &DebugInfo, file: &Path) -> Result<Vec<(u64, u64)>, NoDebugInfo> {
    let bad = |why: gimli::Error| NoDebugInfo::Unreadable {
        path: info.path.clone(),
        why: why.to_string(),
    };
    let dwarf = &info.dwarf;
    let mut found = Vec::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next().map_err(bad)? {
        let unit = dwarf.unit(header).map_err(bad)?;
        let Some(program) = unit.line_program.clone() else { continue };
        let mut matches: HashMap<u64, bool> = HashMap::new();
        let mut rows = program.rows();
        while let Some((header, row)) = rows.next_row().map_err(bad)? {
            if row.end_sequence() || !row.is_stmt() {
                continue;
            }
            let index = row.file_index();
            let named = *matches
                .entry(index)
                .or_insert_with(|| source_path(dwarf, &unit, header, index).ends_with(file));
            if let (true, Some(line)) = (named, row.line()) {
                found.push((line.get(), row.address()));
            }
        }
    }
    found.sort_by_key(|&(_, address)| address);
    Ok(found)
}

/// A line table's file entry as a path: its directory joined with its name.
fn source_path(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    header: &gimli::LineProgramHeader<R>,
    index: u64,
) -> PathBuf {
    let text = |v| {
        dwarf
            .attr_string(unit, v)
            .ok()
            .and_then(|s| s.to_string_lossy().ok().map(|s| s.into_owned()))
            .unwrap_or_default()
    };
    let Some(entry) = header.file(index) else { return PathBuf::new() };
    let name = PathBuf::from(text(entry.path_name()));
    match entry.directory(header) {
        Some(dir) if name.is_relative() => PathBuf::from(text(dir)).join(name),
        _ => name,
    }
}

/// Where a uprobe on line `line` of `file` goes in `binary`: the file offset of the line's
/// address, with the address.
pub fn line_offset(binary: &Path, file: &str, line: u64) -> Result<(u64, u64), String> {
    let info = DebugInfo::of(binary).map_err(|e| e.to_string())?;
    let address = line_address(&info, file, line).map_err(|e| e.to_string())?;
    let elf = crate::ElfSymbols::load(binary).map_err(|e| e.to_string())?;
    let offset = elf.vaddr_to_file_offset(address).ok_or_else(|| {
        format!("{file}:{line} is at {address:#x}, in no loaded segment of {}", binary.display())
    })?;
    Ok((offset, address))
}
