//! ELF symbols for uprobes: name → file offset, and virtual address → name.
//!
//! Reads .symtab and .dynsym (with GNU symbol versions). A separate debug file
//! found by build-id under /usr/lib/debug (distribution -dbg packages) adds its
//! .symtab, but only when needed: it is often larger than the library itself.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use object::elf::{
    NT_GNU_BUILD_ID, PF_X, PT_LOAD, PT_NOTE, SHN_UNDEF, SHT_DYNSYM, SHT_SYMTAB, STB_LOCAL,
    STT_FUNC, STT_GNU_IFUNC, STT_NOTYPE, STT_OBJECT,
};
use object::read::elf::{FileHeader, ProgramHeader, Sym as _};
use object::{Endianness, FileKind};

use crate::elf_read::read_symbol_parts;
use crate::error::{Error, Result};
use sonde_syntax::nearest;

/// Where to put a uprobe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UprobeTarget {
    pub path: PathBuf,
    /// The symbol, as found (without any `+OFF`).
    pub symbol: String,
    /// File offset: what the uprobe PMU (`uprobe_path` + `probe_offset`) wants.
    pub offset: u64,
    /// Virtual address in the ELF's own address space.
    pub address: u64,
    /// Size of the symbol (0 when unknown).
    pub size: u64,
    /// The symbol is a GNU indirect function: probing it probes the resolver,
    /// which runs once at load time, not the implementation.
    pub ifunc: bool,
}

/// A function symbol in an ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElfFunction {
    pub name: String,
    pub address: u64,
    pub size: u64,
}

/// Finds `spec` (`name`, `name@@VERSION`, `name+OFF`, or an address) in the ELF at `path`,
/// checked as [`crate::uprobe::resolve_uprobe`] checks: an offset must start an instruction
/// (see [`crate::insn`]) of a function with a size.
pub fn resolve_symbol(path: impl AsRef<Path>, spec: &str) -> Result<UprobeTarget> {
    crate::uprobe::resolve_uprobe(path.as_ref(), spec, true)
}

/// glibc 2.34 moved libpthread's, librt's, libdl's and libutil's functions into libc, leaving
/// stubs: a symbol missing from one of those that libc beside it has is named there.
pub(crate) fn moved_into_libc(path: &Path, spec: &str, err: Error) -> Error {
    const MERGED: &[&str] = &["libpthread.so", "librt.so", "libdl.so", "libutil.so"];
    let Error::SymbolNotFound { path: lib, symbol, .. } = &err else { return err };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if !MERGED.iter().any(|m| name.starts_with(m)) {
        return err;
    }
    let libc = path.with_file_name("libc.so.6");
    match ElfSymbols::load(&libc).and_then(|e| e.resolve(spec)) {
        Ok(_) => Error::SymbolInLibc { path: lib.clone(), symbol: symbol.clone(), libc },
        Err(_) => err,
    }
}

/// Function symbols of the ELF at `path` (and its debug file), sorted by name, one per name.
pub fn functions(path: impl AsRef<Path>) -> Result<Vec<ElfFunction>> {
    let mut elf = ElfSymbols::load(path.as_ref())?;
    elf.add_debug_symbols();
    Ok(elf.functions())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Func,
    Ifunc,
    Other,
}

#[derive(Debug, Clone)]
struct Sym {
    name: Box<str>,
    version: Option<Box<str>>,
    /// `@@` (default) rather than `@` (hidden, kept for old binaries).
    default_version: bool,
    address: u64,
    size: u64,
    kind: Kind,
    global: bool,
}

impl Sym {
    fn is_code(&self) -> bool {
        self.kind != Kind::Other
    }

    /// Which of several same-named symbols to use: functions, default versions, globals, sized.
    fn rank(&self) -> (bool, bool, bool, bool) {
        (self.is_code(), self.version.is_none() || self.default_version, self.global, self.size > 0)
    }

    /// Which of several names at one address to show: `getpid` over `__getpid`,
    /// `fopen` over `fopen64`.
    fn display_rank(&self) -> (bool, bool, bool, bool, std::cmp::Reverse<usize>) {
        (
            self.is_code(),
            self.global,
            !self.name.starts_with('_'),
            self.size > 0,
            std::cmp::Reverse(self.name.len()),
        )
    }
}

#[derive(Debug, Clone, Copy)]
struct Segment {
    vaddr: u64,
    offset: u64,
    filesz: u64,
    exec: bool,
}

/// The symbols and load segments of one ELF file.
#[derive(Debug, Clone)]
pub struct ElfSymbols {
    path: PathBuf,
    syms: Vec<Sym>,
    /// Indices of code symbols, sorted by address, one per address;
    /// built on the first address lookup (name lookups do not need it).
    by_addr: OnceLock<Vec<u32>>,
    segments: Vec<Segment>,
    /// Separate debug file found by build-id under /usr/lib/debug.
    debug_file: Option<PathBuf>,
    /// Whether a separate debug file's symbols were looked for already.
    debug_read: bool,
}

impl ElfSymbols {
    /// Reads the symbols of the ELF at `path` (not those of its debug file).
    pub fn load(path: &Path) -> Result<Self> {
        Self::parse(path, &read_symbol_parts(path)?)
    }

    /// [`load`](Self::load) plus the debug file's symbols: complete names for stacks.
    pub fn load_with_debug(path: &Path) -> Result<Self> {
        let mut me = Self::load(path)?;
        me.add_debug_symbols();
        Ok(me)
    }

    /// Adds the symbols of the separate debug file, if there is one not read yet.
    /// Best effort: a broken debug file must not hide the main file's symbols.
    pub fn add_debug_symbols(&mut self) -> bool {
        if std::mem::replace(&mut self.debug_read, true) {
            return false;
        }
        // Else wherever the binary's DWARF would be looked for (`--debuginfo` directories,
        // debuglink), for a fully stripped binary.
        let found = self.debug_file.take().or_else(|| crate::debuginfo::separate_file(&self.path));
        let Some(debug) = found else {
            return false;
        };
        let Ok(extra) = read_symbol_parts(&debug).and_then(|d| Self::parse(&debug, &d)) else {
            return false;
        };
        self.syms.extend(extra.syms);
        self.by_addr = OnceLock::new();
        true
    }

    /// Parses ELF bytes; `path` is only used in messages and results.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Self> {
        let bad =
            |e: object::read::Error| Error::BadElf { path: path.into(), reason: e.to_string() };
        let (syms, segments) = match FileKind::parse(data) {
            Ok(FileKind::Elf64) => {
                read_elf::<object::elf::FileHeader64<Endianness>>(data).map_err(bad)?
            }
            Ok(FileKind::Elf32) => {
                read_elf::<object::elf::FileHeader32<Endianness>>(data).map_err(bad)?
            }
            _ => return Err(Error::NotElf { path: path.into() }),
        };
        Ok(ElfSymbols {
            path: path.into(),
            syms,
            by_addr: OnceLock::new(),
            segments,
            debug_file: debug_file(data),
            debug_read: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn by_addr(&self) -> &[u32] {
        self.by_addr.get_or_init(|| self.index())
    }

    fn index(&self) -> Vec<u32> {
        let mut idx: Vec<u32> =
            (0..self.syms.len() as u32).filter(|&i| self.syms[i as usize].is_code()).collect();
        // Same address: keep the best-ranked name (a global over its local alias).
        idx.sort_by(|&a, &b| {
            let (sa, sb) = (&self.syms[a as usize], &self.syms[b as usize]);
            sa.address.cmp(&sb.address).then(sb.display_rank().cmp(&sa.display_rank()))
        });
        idx.dedup_by(|a, b| self.syms[*a as usize].address == self.syms[*b as usize].address);
        idx
    }

    /// Resolves `name`, `name@VER`, `name@@VER`, optionally followed by `+OFF` (decimal or 0x hex).
    pub fn resolve(&self, spec: &str) -> Result<UprobeTarget> {
        let (name, off) = split_offset(spec)?;
        let (bare, version) = match name.split_once('@') {
            Some((b, v)) => (b, Some(v.trim_start_matches('@'))),
            None => (name, None),
        };
        if bare.is_empty() {
            return Err(Error::BadSymbolSpec {
                spec: spec.into(),
                reason: "the symbol name is empty".into(),
            });
        }
        let sym = self
            .syms
            .iter()
            .filter(|s| &*s.name == bare && (version.is_none() || s.version.as_deref() == version))
            .max_by_key(|s| s.rank())
            .ok_or_else(|| Error::SymbolNotFound {
                path: self.path.clone(),
                symbol: name.into(),
                near: nearest(name, self.syms.iter().filter(|s| s.is_code()).map(|s| &*s.name), 3),
            })?;
        if sym.size > 0 && off >= sym.size {
            return Err(Error::OffsetOutsideSymbol {
                path: self.path.clone(),
                symbol: name.into(),
                offset: off,
                size: sym.size,
            });
        }
        let address = sym.address.checked_add(off).ok_or_else(|| Error::BadSymbolSpec {
            spec: spec.into(),
            reason: "the offset overflows the address".into(),
        })?;
        let offset = self
            .vaddr_to_file_offset(address)
            .ok_or_else(|| Error::NotInLoadSegment { path: self.path.clone(), address })?;
        Ok(UprobeTarget {
            path: self.path.clone(),
            symbol: name.into(),
            offset,
            address,
            size: sym.size,
            ifunc: sym.kind == Kind::Ifunc,
        })
    }

    /// Function symbols sorted by name, one per name (the preferred version).
    pub fn functions(&self) -> Vec<ElfFunction> {
        let mut code: Vec<&Sym> = self.syms.iter().filter(|s| s.is_code()).collect();
        code.sort_by(|a, b| a.name.cmp(&b.name).then(b.rank().cmp(&a.rank())));
        code.dedup_by(|a, b| a.name == b.name);
        code.into_iter()
            .map(|s| ElfFunction { name: s.name.to_string(), address: s.address, size: s.size })
            .collect()
    }

    /// The function containing virtual address `vaddr`, and the offset into it.
    pub fn symbol_at(&self, vaddr: u64) -> Option<(&str, u64)> {
        let by_addr = self.by_addr();
        let i = by_addr.partition_point(|&i| self.syms[i as usize].address <= vaddr);
        let sym = &self.syms[*by_addr.get(i.checked_sub(1)?)? as usize];
        let off = vaddr - sym.address;
        // Unsized symbols (hand-written assembly) get the benefit of the doubt.
        (sym.size == 0 || off < sym.size).then_some((&*sym.name, off))
    }

    /// The function whose bounds hold virtual address `vaddr`: its name, the offset into it and
    /// its size. Unlike [`symbol_at`](Self::symbol_at), a symbol of size 0 holds nothing.
    pub fn function_holding(&self, vaddr: u64) -> Option<(String, u64, u64)> {
        let sym = self
            .syms
            .iter()
            .filter(|s| s.is_code() && s.size > 0 && vaddr >= s.address)
            .filter(|s| vaddr - s.address < s.size)
            .max_by_key(|s| (s.address, s.display_rank()))?;
        Some((sym.name.to_string(), vaddr - sym.address, sym.size))
    }

    /// Virtual address → file offset, through the PT_LOAD segment holding it.
    pub fn vaddr_to_file_offset(&self, vaddr: u64) -> Option<u64> {
        self.segments
            .iter()
            .find(|s| vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz)
            .and_then(|s| (vaddr - s.vaddr).checked_add(s.offset))
    }

    /// File offset → virtual address; executable segments win if two claim the offset.
    pub fn file_offset_to_vaddr(&self, offset: u64) -> Option<u64> {
        let holds = |s: &&Segment| offset >= s.offset && offset - s.offset < s.filesz;
        let seg = self.segments.iter().filter(holds).max_by_key(|s| s.exec)?;
        (offset - seg.offset).checked_add(seg.vaddr)
    }
}

/// /usr/lib/debug/.build-id/xx/yyyy.debug, if the distribution's debug package is installed.
fn debug_file(data: &[u8]) -> Option<PathBuf> {
    let id = match FileKind::parse(data).ok()? {
        FileKind::Elf64 => build_id::<object::elf::FileHeader64<Endianness>>(data),
        FileKind::Elf32 => build_id::<object::elf::FileHeader32<Endianness>>(data),
        _ => None,
    }?;
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let p = PathBuf::from(format!(
        "/usr/lib/debug/.build-id/{}/{}.debug",
        hex.get(..2)?,
        hex.get(2..)?
    ));
    p.exists().then_some(p)
}

/// `name+0x10` → ("name", 0x10). A `+` not followed by a number stays in the name (C++).
pub(crate) fn split_offset(spec: &str) -> Result<(&str, u64)> {
    let Some((name, off)) = spec.rsplit_once('+') else {
        return Ok((spec, 0));
    };
    let parsed = match off.strip_prefix("0x").or_else(|| off.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if off.bytes().all(|b| b.is_ascii_digit()) && !off.is_empty() => off.parse().ok(),
        None => return Ok((spec, 0)),
    };
    parsed.map(|o| (name, o)).ok_or_else(|| Error::BadSymbolSpec {
        spec: spec.into(),
        reason: format!("`{off}` is not a valid offset"),
    })
}

type Parsed = (Vec<Sym>, Vec<Segment>);

fn read_elf<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> object::read::Result<Parsed> {
    let header = Elf::parse(data)?;
    let endian = header.endian()?;
    let segments = header
        .program_headers(endian, data)?
        .iter()
        .filter(|ph| ph.p_type(endian) == PT_LOAD)
        .map(|ph| Segment {
            vaddr: ph.p_vaddr(endian).into(),
            offset: ph.p_offset(endian).into(),
            filesz: ph.p_filesz(endian).into(),
            exec: ph.p_flags(endian) & PF_X != 0,
        })
        .collect();
    let sections = header.sections(endian, data)?;
    let mut syms = Vec::new();
    for sh_type in [SHT_SYMTAB, SHT_DYNSYM] {
        let table = sections.symbols(endian, data, sh_type)?;
        // Versions only exist for .dynsym; a broken version table just drops versions.
        let versions = if sh_type == SHT_DYNSYM {
            sections.versions(endian, data).ok().flatten()
        } else {
            None
        };
        let strings = table.strings();
        for (index, sym) in table.enumerate() {
            let kind = match sym.st_type() {
                STT_FUNC => Kind::Func,
                STT_GNU_IFUNC => Kind::Ifunc,
                STT_OBJECT | STT_NOTYPE => Kind::Other,
                _ => continue,
            };
            let address: u64 = sym.st_value(endian).into();
            if sym.st_shndx(endian) == SHN_UNDEF || address == 0 {
                continue;
            }
            let Ok(raw) = sym.name(endian, strings) else {
                continue;
            };
            let Ok(full) = std::str::from_utf8(raw) else {
                continue;
            };
            // .symtab spells versions into the name: `fopen@@GLIBC_2.2.5`.
            let (mut name, mut version, mut default_version) = match full.split_once('@') {
                Some((n, v)) => (n, v.strip_prefix('@').or(Some(v)), v.starts_with('@')),
                None => (full, None, false),
            };
            if let Some(vt) = &versions {
                let vi = vt.version_index(endian, index);
                if let Ok(Some(v)) = vt.version(vi) {
                    if let Ok(v) = std::str::from_utf8(v.name()) {
                        (name, version, default_version) = (name, Some(v), !vi.is_hidden());
                    }
                }
            }
            if name.is_empty() {
                continue;
            }
            syms.push(Sym {
                name: name.into(),
                version: version.map(Into::into),
                default_version,
                address,
                size: sym.st_size(endian).into(),
                kind,
                global: sym.st_bind() != STB_LOCAL,
            });
        }
    }
    Ok((syms, segments))
}

fn build_id<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> Option<Vec<u8>> {
    let header = Elf::parse(data).ok()?;
    let endian = header.endian().ok()?;
    for ph in header.program_headers(endian, data).ok()? {
        if ph.p_type(endian) != PT_NOTE {
            continue;
        }
        let mut notes = ph.notes(endian, data).ok()??;
        while let Ok(Some(note)) = notes.next() {
            if note.name() == b"GNU" && note.n_type(endian) == NT_GNU_BUILD_ID {
                return Some(note.desc().to_vec());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_in_specs() {
        assert_eq!(split_offset("readline").unwrap(), ("readline", 0));
        assert_eq!(split_offset("readline+16").unwrap(), ("readline", 16));
        assert_eq!(split_offset("readline+0x10").unwrap(), ("readline", 16));
        assert_eq!(split_offset("operator+").unwrap(), ("operator+", 0));
        assert_eq!(split_offset("a+b").unwrap(), ("a+b", 0));
        assert!(split_offset("readline+0xzz").is_err());
        assert!(split_offset("readline+99999999999999999999999").is_err());
    }

    #[test]
    fn garbage_is_not_elf() {
        let p = Path::new("garbage");
        assert!(matches!(ElfSymbols::parse(p, b""), Err(Error::NotElf { .. })));
        assert!(matches!(ElfSymbols::parse(p, b"#!/bin/sh\n"), Err(Error::NotElf { .. })));
        assert!(matches!(
            ElfSymbols::parse(p, b"\x7fELF"),
            Err(Error::NotElf { .. } | Error::BadElf { .. })
        ));
    }
}
