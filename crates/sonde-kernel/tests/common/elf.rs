//! Just enough ELF to find where a dynamic symbol lives in its file, for uprobes (which take file
//! offsets), and where that is mapped in this process.

use std::path::{Path, PathBuf};

fn u16_at(d: &[u8], at: usize) -> u64 {
    u16::from_le_bytes(d[at..at + 2].try_into().unwrap()) as u64
}
fn u32_at(d: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(d[at..at + 4].try_into().unwrap()) as u64
}
fn u64_at(d: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(d[at..at + 8].try_into().unwrap())
}

/// The file offset of the defined dynamic symbol `name` in the ELF64 little-endian file `path`.
pub fn symbol_file_offset(path: &Path, name: &str) -> Option<u64> {
    let d = std::fs::read(path).ok()?;
    assert_eq!(&d[..4], b"\x7fELF");
    assert_eq!(d[4], 2, "ELF64");
    let (phoff, shoff) = (u64_at(&d, 0x20) as usize, u64_at(&d, 0x28) as usize);
    let (phnum, shnum) = (u16_at(&d, 0x38) as usize, u16_at(&d, 0x3c) as usize);
    let section = |i: usize| &d[shoff + i * 64..shoff + (i + 1) * 64];
    let dynsym = (0..shnum).find(|&i| u32_at(section(i), 4) == 11)?; // SHT_DYNSYM
    let sh = section(dynsym);
    let (sym_off, sym_size) = (u64_at(sh, 24) as usize, u64_at(sh, 32) as usize);
    let strtab = section(u32_at(sh, 40) as usize);
    let str_off = u64_at(strtab, 24) as usize;
    let value = (0..sym_size / 24).find_map(|i| {
        let s = &d[sym_off + i * 24..sym_off + (i + 1) * 24];
        let n = str_off + u32_at(s, 0) as usize;
        let end = n + d[n..].iter().position(|&b| b == 0)?;
        let defined = u16_at(s, 6) != 0 && u64_at(s, 8) != 0;
        (defined && &d[n..end] == name.as_bytes()).then(|| u64_at(s, 8))
    })?;
    (0..phnum).find_map(|i| {
        let ph = &d[phoff + i * 56..phoff + (i + 1) * 56];
        let (off, vaddr, filesz) = (u64_at(ph, 8), u64_at(ph, 16), u64_at(ph, 32));
        (u32_at(ph, 0) == 1 && (vaddr..vaddr + filesz).contains(&value))
            .then(|| value - vaddr + off)
    })
}

/// The C library this test binary runs with, from /proc/self/maps.
pub fn libc_path() -> PathBuf {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| {
            let f = p.rsplit('/').next().unwrap_or("");
            f.starts_with("libc.so") || f.starts_with("libc-")
        })
        .map(PathBuf::from)
        .expect("a dynamically linked libc")
}

/// Where file offset `offset` of `path` is mapped in this process.
pub fn runtime_address(path: &Path, offset: u64) -> Option<u64> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    maps.lines().find_map(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 6 || Path::new(f[5]) != path {
            return None;
        }
        let (start, end) = f[0].split_once('-')?;
        let (start, end) =
            (u64::from_str_radix(start, 16).ok()?, u64::from_str_radix(end, 16).ok()?);
        let map_off = u64::from_str_radix(f[2], 16).ok()?;
        (map_off..map_off + (end - start)).contains(&offset).then(|| start + offset - map_off)
    })
}
