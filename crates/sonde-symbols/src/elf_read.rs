//! Reads only the parts of an ELF file that symbol lookup needs.
//!
//! Headers, symbol/string/version tables and notes are read into a zeroed
//! buffer as long as the file. A fresh zeroed allocation is untouched virtual
//! memory, so skipped parts (code, data, DWARF) cost neither I/O nor page
//! faults, and `object` still parses a plain byte slice with its usual bounds
//! checks (a truncated file is still reported as truncated).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use object::elf::{
    PT_NOTE, SHT_DYNSYM, SHT_GNU_VERDEF, SHT_GNU_VERNEED, SHT_GNU_VERSYM, SHT_NOTE, SHT_STRTAB,
    SHT_SYMTAB,
};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, FileKind};

use crate::error::{Error, Result};

const WANTED: [u32; 7] =
    [SHT_SYMTAB, SHT_DYNSYM, SHT_STRTAB, SHT_GNU_VERSYM, SHT_GNU_VERDEF, SHT_GNU_VERNEED, SHT_NOTE];

/// The file's bytes, with everything symbol lookup does not need left as zeros.
pub fn read_symbol_parts(path: &Path) -> Result<Vec<u8>> {
    let io = |e| Error::io(path, e);
    let file = File::open(path).map_err(io)?;
    let len = usize::try_from(file.metadata().map_err(io)?.len()).unwrap_or(usize::MAX);
    let mut buf = vec![0u8; len];
    fill(&file, &mut buf, 0, 64).map_err(io)?;
    let plan = match FileKind::parse(&buf[..]) {
        Ok(FileKind::Elf64) => plan::<object::elf::FileHeader64<Endianness>>(&file, &mut buf),
        Ok(FileKind::Elf32) => plan::<object::elf::FileHeader32<Endianness>>(&file, &mut buf),
        _ => return Err(Error::NotElf { path: path.into() }),
    };
    // A header we cannot follow: read it all and let the parser say what is wrong.
    let ranges = match plan {
        Ok(r) => r,
        Err(_) => vec![(0, len as u64)],
    };
    for (off, size) in ranges {
        fill(&file, &mut buf, off, size).map_err(io)?;
    }
    Ok(buf)
}

/// Reads headers into `buf` and returns the (offset, size) ranges still to read.
fn plan<Elf: FileHeader<Endian = Endianness>>(
    file: &File,
    buf: &mut [u8],
) -> std::result::Result<Vec<(u64, u64)>, Box<dyn std::error::Error>> {
    let (endian, phoff, phentsize, shoff, shentsize) = {
        let h = Elf::parse(&*buf)?;
        let e = h.endian()?;
        (
            e,
            h.e_phoff(e).into(),
            h.e_phentsize(e) as u64,
            h.e_shoff(e).into(),
            h.e_shentsize(e) as u64,
        )
    };
    // Section 0 holds the real counts when they overflow the header's 16 bits.
    fill(file, buf, shoff, shentsize)?;
    let (phnum, shnum) = {
        let h = Elf::parse(&*buf)?;
        (h.phnum(endian, &*buf)? as u64, h.shnum(endian, &*buf)? as u64)
    };
    fill(file, buf, phoff, phnum.saturating_mul(phentsize))?;
    fill(file, buf, shoff, shnum.saturating_mul(shentsize))?;
    let h = Elf::parse(&*buf)?;
    let mut ranges: Vec<(u64, u64)> = h
        .program_headers(endian, &*buf)?
        .iter()
        .filter(|p| p.p_type(endian) == PT_NOTE)
        .map(|p| (p.p_offset(endian).into(), p.p_filesz(endian).into()))
        .collect();
    ranges.extend(
        h.section_headers(endian, &*buf)?
            .iter()
            .filter(|s| WANTED.contains(&s.sh_type(endian)))
            .map(|s| (s.sh_offset(endian).into(), s.sh_size(endian).into())),
    );
    Ok(ranges)
}

/// Reads `size` bytes at `off`, clipped to the file (a truncated file stays short).
fn fill(file: &File, buf: &mut [u8], off: u64, size: u64) -> std::io::Result<()> {
    let len = buf.len() as u64;
    let start = off.min(len);
    let end = off.saturating_add(size).min(len);
    if start < end {
        file.read_exact_at(&mut buf[start as usize..end as usize], start)?;
    }
    Ok(())
}
