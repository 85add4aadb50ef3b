//! User-space addresses → (file, symbol, offset), for `ustack` and `usym()`.
//!
//! address − map start + map file offset = file offset; the ELF's PT_LOAD
//! headers turn that into the ELF's own virtual address, which works the same
//! for PIE executables, shared libraries and fixed-address executables.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::elf::ElfSymbols;
use crate::maps::{read_maps, MapEntry};

/// A resolved user address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserSymbol {
    /// The mapped file, or a pseudo name like `[vdso]`.
    pub file: String,
    /// `None` when the file has no symbol covering the address.
    pub symbol: Option<String>,
    /// Offset into the symbol, or the file offset when there is no symbol.
    pub offset: u64,
    /// The address's offset in its file (in a pseudo mapping, from the mapping's start).
    pub file_offset: u64,
}

/// The memory map of one process and the symbols of its files (loaded on demand, once per file).
#[derive(Debug)]
pub struct ProcessSymbols {
    pid: u32,
    maps: Vec<MapEntry>,
    files: HashMap<(String, u64), Option<ElfSymbols>>,
}

impl ProcessSymbols {
    /// Reads /proc/PID/maps now. A process that has already exited resolves
    /// nothing, and [`format`](Self::format) falls back to raw hex.
    pub fn for_pid(pid: u32) -> Self {
        Self::from_maps(pid, read_maps(pid).unwrap_or_default())
    }

    /// Uses a snapshot of the maps (e.g. taken while the process still ran).
    pub fn from_maps(pid: u32, mut maps: Vec<MapEntry>) -> Self {
        maps.sort_by_key(|m| m.start);
        ProcessSymbols { pid, maps, files: HashMap::new() }
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// False when the maps could not be read (the process has exited).
    pub fn has_maps(&self) -> bool {
        !self.maps.is_empty()
    }

    pub fn maps(&self) -> &[MapEntry] {
        &self.maps
    }

    /// Resolves `addr`; None when no file or pseudo mapping holds it (anonymous/JIT memory).
    pub fn resolve(&mut self, addr: u64) -> Option<UserSymbol> {
        let i = self.maps.partition_point(|m| m.start <= addr).checked_sub(1)?;
        let map = &self.maps[i];
        if addr >= map.end || map.path.is_empty() {
            return None;
        }
        let file_offset = (addr - map.start).wrapping_add(map.offset);
        if !map.is_file() {
            return Some(UserSymbol {
                file: map.path.clone(),
                symbol: None,
                offset: addr - map.start,
                file_offset: addr - map.start,
            });
        }
        let file = map.path.trim_end_matches(" (deleted)").to_string();
        let key = (map.path.clone(), map.inode);
        let sources = self.sources(map);
        let elf = self
            .files
            .entry(key)
            .or_insert_with(|| sources.iter().find_map(|p| ElfSymbols::load_with_debug(p).ok()));
        let hit = elf.as_ref().and_then(|elf| {
            let vaddr = elf.file_offset_to_vaddr(file_offset)?;
            elf.symbol_at(vaddr).map(|(name, off)| (name.to_string(), off))
        });
        Some(match hit {
            Some((name, off)) => UserSymbol { file, symbol: Some(name), offset: off, file_offset },
            None => UserSymbol { file, symbol: None, offset: file_offset, file_offset },
        })
    }

    /// `name+0x12 (/usr/bin/bash)`, `/usr/lib/libfoo.so+0x1234`, or `0x7f12...`.
    pub fn format(&mut self, addr: u64) -> String {
        match self.resolve(addr) {
            Some(UserSymbol { symbol: Some(s), offset: 0, file, .. }) => format!("{s} ({file})"),
            Some(UserSymbol { symbol: Some(s), offset, file, .. }) => {
                format!("{s}+{offset:#x} ({file})")
            }
            Some(UserSymbol { symbol: None, offset, file, .. }) => format!("{file}+{offset:#x}"),
            None => format!("{addr:#x}"),
        }
    }

    /// A user stack frame as bpftrace prints it: `name+37` (the offset in decimal, `+0` too),
    /// with `file` its file after it, `name+37 (/usr/bin/bash)` (perf's mode); an address with
    /// no symbol as [`ProcessSymbols::format`] prints it.
    pub fn frame(&mut self, addr: u64, file: bool) -> String {
        match self.resolve(addr) {
            Some(UserSymbol { symbol: Some(s), offset, file: path, .. }) if file => {
                format!("{s}+{offset} ({path})")
            }
            Some(UserSymbol { symbol: Some(s), offset, .. }) => format!("{s}+{offset}"),
            _ => self.format(addr),
        }
    }

    /// Where to read a mapped file from: map_files sees deleted files and other
    /// mount namespaces; the plain path still works after the process exits.
    fn sources(&self, map: &MapEntry) -> Vec<PathBuf> {
        let pid = self.pid;
        let plain = map.path.trim_end_matches(" (deleted)");
        vec![
            PathBuf::from(format!("/proc/{pid}/map_files/{:x}-{:x}", map.start, map.end)),
            PathBuf::from(format!("/proc/{pid}/root{plain}")),
            PathBuf::from(plain),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exited_process_gives_hex() {
        // PIDs above pid_max (at most 2^22) never exist.
        let mut p = ProcessSymbols::for_pid(u32::MAX - 1);
        assert!(!p.has_maps());
        assert_eq!(p.resolve(0x7f00_1234_5678), None);
        assert_eq!(p.format(0x7f00_1234_5678), "0x7f0012345678");
    }

    #[test]
    fn pseudo_and_anonymous_maps() {
        let maps = crate::maps::parse_maps(
            "7ffd5ebfa000-7ffd5ebfc000 r-xp 00000000 00:00 0 [vdso]\n\
             7f1e2c000000-7f1e2c001000 rwxp 00000000 00:00 0 \n\
             10000-20000 r-xp 00000000 fd:01 99 /nonexistent/lib.so\n",
        );
        let mut p = ProcessSymbols::from_maps(1, maps);
        assert_eq!(p.format(0x7ffd5ebfa010), "[vdso]+0x10");
        assert_eq!(p.format(0x7f1e2c000010), "0x7f1e2c000010");
        assert_eq!(p.format(0x10010), "/nonexistent/lib.so+0x10");
        assert_eq!(p.format(0x20000), "0x20000");
        assert_eq!(p.format(0), "0x0");
    }
}
