//! `FILE:LINE[:COL]` to an address, through the line tables: the lowest address of a row that
//! starts a statement (`is_stmt`) of that line (at that column, when given), where a debugger
//! puts a breakpoint for it. Split DWARF
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
    #[error("line {line} of {file} has no statement at column {column}: its statements start at column {}", list(.columns))]
    NoColumn { file: String, line: u64, column: u64, columns: Vec<u64> },
}

fn list(columns: &[u64]) -> String {
    let text: Vec<String> = columns.iter().map(u64::to_string).collect();
    match text.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => text.concat(),
    }
}

fn nearest(before: &Option<u64>, after: &Option<u64>) -> String {
    match (before, after) {
        (Some(b), Some(a)) => format!(": the nearest lines with code are {b} and {a}"),
        (Some(n), None) | (None, Some(n)) => format!(": the nearest line with code is {n}"),
        (None, None) => String::new(),
    }
}

/// A source position: a file's name (`prog.c`) or the end of its path (`src/prog.c`,
/// `/abs/src/prog.c`), a line, and optionally a column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePlace<'a> {
    pub file: &'a str,
    pub line: u64,
    pub column: Option<u64>,
}

/// One statement row: where it starts in the source, and its address.
struct Row {
    line: u64,
    column: u64,
    address: u64,
}

/// The address (in the binary's own address space) of a source position.
pub fn line_address(info: &DebugInfo, place: &SourcePlace) -> Result<u64, LineError> {
    let SourcePlace { file, line, column } = *place;
    let rows = rows_of(info, Path::new(file))?;
    if rows.is_empty() {
        return Err(LineError::NoFile { binary: info.binary.clone(), file: file.into() });
    }
    let on_line: Vec<&Row> = rows.iter().filter(|r| r.line == line).collect();
    match (on_line.first(), column) {
        (Some(row), None) => return Ok(row.address),
        (Some(_), Some(column)) => {
            if let Some(row) = on_line.iter().find(|r| r.column == column) {
                return Ok(row.address);
            }
            let columns: BTreeSet<u64> = on_line.iter().map(|r| r.column).collect();
            let columns = columns.into_iter().collect();
            return Err(LineError::NoColumn { file: file.into(), line, column, columns });
        }
        (None, _) => {}
    }
    let lines: BTreeSet<u64> = rows.iter().map(|r| r.line).collect();
    Err(LineError::NoCode {
        file: file.into(),
        line,
        before: lines.range(..line).next_back().copied(),
        after: lines.range(line..).next().copied(),
    })
}

/// Every statement row of the files that `file` names, lowest address first.
fn rows_of(info: &DebugInfo, file: &Path) -> Result<Vec<Row>, NoDebugInfo> {
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
                let column = match row.column() {
                    gimli::ColumnType::LeftEdge => 0,
                    gimli::ColumnType::Column(c) => c.get(),
                };
                found.push(Row { line: line.get(), column, address: row.address() });
            }
        }
    }
    found.sort_by_key(|r| r.address);
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

/// Where a uprobe on a source position goes in `binary`: the file offset of its address, with
/// the address.
pub fn line_offset(binary: &Path, place: &SourcePlace) -> Result<(u64, u64), String> {
    let info = DebugInfo::of(binary).map_err(|e| e.to_string())?;
    let address = line_address(&info, place).map_err(|e| e.to_string())?;
    let elf = crate::ElfSymbols::load(binary).map_err(|e| e.to_string())?;
    let offset = elf.vaddr_to_file_offset(address).ok_or_else(|| {
        let (file, line) = (place.file, place.line);
        format!("{file}:{line} is at {address:#x}, in no loaded segment of {}", binary.display())
    })?;
    Ok((offset, address))
}
