//! /proc/PID/maps parsing, shared by library lookup and address symbolization.

use crate::error::{Error, Result};

/// One mapping of a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapEntry {
    pub start: u64,
    pub end: u64,
    /// `r-xp` and so on.
    pub perms: String,
    /// Offset in the mapped file.
    pub offset: u64,
    pub inode: u64,
    /// File path, `[vdso]`-style name, or empty for anonymous memory.
    /// A replaced file keeps its old path followed by ` (deleted)`.
    pub path: String,
}

impl MapEntry {
    /// True for mappings of a real file.
    pub fn is_file(&self) -> bool {
        self.inode != 0 && self.path.starts_with('/')
    }

    pub fn is_exec(&self) -> bool {
        self.perms.as_bytes().get(2) == Some(&b'x')
    }

    pub fn is_deleted(&self) -> bool {
        self.path.ends_with(" (deleted)")
    }
}

/// Reads /proc/PID/maps; a missing process becomes [`Error::NoSuchProcess`].
pub fn read_maps(pid: u32) -> Result<Vec<MapEntry>> {
    let path = format!("/proc/{pid}/maps");
    match std::fs::read(&path) {
        Ok(b) => Ok(parse_maps(&String::from_utf8_lossy(&b))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound || e.raw_os_error() == Some(3) => {
            Err(Error::NoSuchProcess { pid })
        }
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Parses maps text; malformed lines are skipped.
pub fn parse_maps(text: &str) -> Vec<MapEntry> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<MapEntry> {
    // `start-end perms offset dev inode<spaces>path`: the path may itself hold spaces.
    let mut f = line.splitn(6, ' ');
    let (start, end) = f.next()?.split_once('-')?;
    let perms = f.next()?;
    let offset = f.next()?;
    let _dev = f.next()?;
    let inode = f.next()?;
    let path = f.next().unwrap_or("").trim_start();
    Some(MapEntry {
        start: u64::from_str_radix(start, 16).ok()?,
        end: u64::from_str_radix(end, 16).ok()?,
        perms: perms.into(),
        offset: u64::from_str_radix(offset, 16).ok()?,
        inode: inode.parse().ok()?,
        path: path.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_maps() {
        let text = "\
55d0c0a00000-55d0c0a2e000 r--p 00000000 fd:01 1311 /usr/bin/bash
55d0c0a2e000-55d0c0b0d000 r-xp 0002e000 fd:01 1311 /usr/bin/bash
7f1e2a000000-7f1e2a028000 r-xp 00028000 fd:01 2222                       /usr/lib/x86_64-linux-gnu/libc.so.6
7f1e2b000000-7f1e2b001000 r-xp 00000000 fd:01 3333                       /tmp/my lib.so (deleted)
7ffd5e9f0000-7ffd5ea11000 rw-p 00000000 00:00 0                          [stack]
7ffd5ebfa000-7ffd5ebfc000 r-xp 00000000 00:00 0                          [vdso]
7f1e2c000000-7f1e2c001000 rw-p 00000000 00:00 0 
garbage
zz-10 r-xp 0 0 0 /x
";
        let m = parse_maps(text);
        assert_eq!(m.len(), 7);
        assert_eq!(m[1].offset, 0x2e000);
        assert!(m[1].is_exec() && m[1].is_file());
        assert_eq!(m[2].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
        assert_eq!(m[3].path, "/tmp/my lib.so (deleted)");
        assert!(m[3].is_deleted());
        assert!(!m[5].is_file());
        assert_eq!(m[6].path, "");
    }
}
