//! Where a uprobe goes, for each way bpftrace spells one: `SYMBOL[+OFF]`, a virtual address in
//! an ELF file (`0x401126`, or decimal), or a file offset in a file that is not ELF (a flat
//! binary mapped by hand). Checked (the default), a probe must start an instruction of a function
//! whose bounds the file gives; `--unsafe` drops the checks, as bpftrace's `--unsafe` does.

use std::path::Path;

use crate::elf::{split_offset, ElfSymbols, UprobeTarget};
use crate::error::{Error, Result};

/// Finds where `spec` is in the file at `path`. `checked`: refuse what cannot be shown to start
/// an instruction (an offset inside one, a symbol of size 0, an address in no function, a file
/// that is not ELF).
pub fn resolve_uprobe(path: &Path, spec: &str, checked: bool) -> Result<UprobeTarget> {
    if let Some(address) = parse_address(spec) {
        return resolve_address(path, address, checked);
    }
    let mut elf = ElfSymbols::load(path)?;
    let target = match elf.resolve(spec) {
        Err(Error::SymbolNotFound { .. }) if elf.add_debug_symbols() => elf.resolve(spec),
        other => other,
    }
    .map_err(|e| crate::elf::moved_into_libc(path, spec, e))?;
    if !checked {
        return Ok(target);
    }
    if target.size == 0 {
        return Err(Error::UnsizedSymbol { path: path.into(), symbol: target.symbol });
    }
    let (_, off) = split_offset(spec)?;
    crate::insn::check_boundary(&target.path, &target.symbol, target.offset - off, off)?;
    Ok(target)
}

/// `0x401126` or `4198694`: the whole spec is a number.
fn parse_address(spec: &str) -> Option<u64> {
    match spec.strip_prefix("0x").or_else(|| spec.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if spec.bytes().all(|b| b.is_ascii_digit()) => spec.parse().ok(),
        None => None,
    }
}

/// A virtual address in an ELF file, through the function holding it; a file offset in a file
/// that is not ELF (unchecked only: nothing there says where instructions start).
fn resolve_address(path: &Path, address: u64, checked: bool) -> Result<UprobeTarget> {
    let mut elf = match ElfSymbols::load(path) {
        Err(Error::NotElf { .. }) if checked => {
            return Err(Error::UncheckedFileOffset { path: path.into(), offset: address })
        }
        Err(Error::NotElf { .. }) => return file_offset(path, address),
        other => other?,
    };
    let mut holder = elf.function_holding(address);
    if holder.is_none() && elf.add_debug_symbols() {
        holder = elf.function_holding(address);
    }
    if holder.is_none() && checked {
        return Err(Error::AddressInNoFunction { path: path.into(), address });
    }
    let offset = elf
        .vaddr_to_file_offset(address)
        .ok_or_else(|| Error::NotInLoadSegment { path: path.into(), address })?;
    let Some((symbol, off, size)) = holder else {
        let symbol = format!("{address:#x}");
        return Ok(UprobeTarget {
            path: path.into(),
            symbol,
            offset,
            address,
            size: 0,
            ifunc: false,
        });
    };
    if checked {
        crate::insn::check_boundary(path, &symbol, offset - off, off)?;
    }
    Ok(UprobeTarget { path: path.into(), symbol, offset, address, size, ifunc: false })
}

/// `offset` bytes into a file that is not ELF: the uprobe PMU takes a file offset as it is.
fn file_offset(path: &Path, offset: u64) -> Result<UprobeTarget> {
    let len = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
    if offset >= len {
        return Err(Error::PastEndOfFile { path: path.into(), offset, len });
    }
    let symbol = format!("{offset:#x}");
    Ok(UprobeTarget { path: path.into(), symbol, offset, address: offset, size: 0, ifunc: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_addresses_and_names_are_not() {
        assert_eq!(parse_address("0x401126"), Some(0x401126));
        assert_eq!(parse_address("4198694"), Some(4198694));
        assert_eq!(parse_address("main"), None);
        assert_eq!(parse_address("main+0x10"), None);
        assert_eq!(parse_address("0xZZ"), None);
    }

    #[test]
    fn a_file_that_is_not_elf_takes_an_offset_only_unchecked() {
        let p = std::env::temp_dir().join(format!("sonde-flat-{}", std::process::id()));
        std::fs::write(&p, [0x90u8; 16]).unwrap();
        let err = resolve_uprobe(&p, "0x4", true).unwrap_err();
        assert!(matches!(err, Error::UncheckedFileOffset { offset: 4, .. }), "{err}");
        let t = resolve_uprobe(&p, "0x4", false).unwrap();
        assert_eq!((t.offset, t.symbol.as_str()), (4, "0x4"));
        let err = resolve_uprobe(&p, "16", false).unwrap_err();
        assert!(matches!(err, Error::PastEndOfFile { offset: 16, len: 16, .. }), "{err}");
        let _ = std::fs::remove_file(&p);
    }
}
