//! strace's `-v`: structures with every member rather than strace's abbreviated few. Here for
//! struct stat (stat, fstat, lstat, newfstatat), copied whole at the call's exit; the other
//! structures print as without -v.

use crate::beauty::structs::{makedev, mode};
use sonde_output::calendar::civil_from_days;

/// Argument `arg` of `syscall` whole, from its copy at the exit (`out`), when -v knows it.
pub fn decode(syscall: &str, arg: usize, out: &[u8]) -> Option<String> {
    match (syscall, arg) {
        ("newfstatat", 2) | ("fstat" | "stat" | "lstat", 1) => stat(out),
        _ => None,
    }
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// x86-64's struct stat, in strace's order of its members.
fn stat(b: &[u8]) -> Option<String> {
    let m = u64_at(b, 24)? as u32;
    let size_or_rdev = match m & libc::S_IFMT {
        libc::S_IFCHR | libc::S_IFBLK => format!("st_rdev={}", makedev(u64_at(b, 40)?)),
        _ => format!("st_size={}", u64_at(b, 48)? as i64),
    };
    let time = |name: &str, at: usize| -> Option<String> {
        let (secs, nsec) = (u64_at(b, at)? as i64, u64_at(b, at + 8)?);
        Some(format!("st_{name}={secs} /* {} */, st_{name}_nsec={nsec}", utc(secs, nsec)))
    };
    Some(format!(
        "{{st_dev={}, st_ino={}, st_mode={}, st_nlink={}, st_uid={}, st_gid={}, st_blksize={}, st_blocks={}, {size_or_rdev}, {}, {}, {}}}",
        makedev(u64_at(b, 0)?),
        u64_at(b, 8)?,
        mode(m),
        u64_at(b, 16)?,
        u64_at(b, 28)? as u32,
        u64_at(b, 32)? as u32,
        u64_at(b, 56)? as i64,
        u64_at(b, 64)? as i64,
        time("atime", 72)?,
        time("mtime", 88)?,
        time("ctime", 104)?,
    ))
}

/// `2026-11-25T23:40:45.966717773+0000` (no fraction when it is 0): strace's spelling of a
/// time, here always in UTC.
fn utc(secs: i64, nsec: u64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let fraction = match nsec {
        0 => String::new(),
        n => format!(".{n:09}"),
    };
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{s:02}{fraction}+0000")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_utc() {
        assert_eq!(utc(1795650045, 966717773), "2026-11-25T23:40:45.966717773+0000");
        assert_eq!(utc(0, 0), "1970-01-01T00:00:00+0000");
        assert_eq!(utc(951_782_400, 5), "2000-02-29T00:00:00.000000005+0000");
    }

    #[test]
    fn struct_stat_whole() {
        let mut b = vec![0u8; 120];
        let mut put = |at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        put(0, 0xfe00);
        put(8, 1196275);
        put(16, 1);
        put(24, 0o100644);
        put(48, 38595);
        put(56, 4096);
        put(64, 80);
        for (at, (s, ns)) in [
            (72, (1795650045, 966717773)),
            (88, (1795650045, 850717768)),
            (104, (1795650045, 882717770)),
        ] {
            put(at, s);
            put(at + 8, ns);
        }
        assert_eq!(
            decode("newfstatat", 2, &b).unwrap(),
            "{st_dev=makedev(0xfe, 0), st_ino=1196275, st_mode=S_IFREG|0644, st_nlink=1, st_uid=0, st_gid=0, st_blksize=4096, st_blocks=80, st_size=38595, st_atime=1795650045 /* 2026-11-25T23:40:45.966717773+0000 */, st_atime_nsec=966717773, st_mtime=1795650045 /* 2026-11-25T23:40:45.850717768+0000 */, st_mtime_nsec=850717768, st_ctime=1795650045 /* 2026-11-25T23:40:45.882717770+0000 */, st_ctime_nsec=882717770}"
        );
        // A copy cut short (the struct's first members only) is not shown whole.
        assert_eq!(decode("fstat", 1, &b[..64]), None);
    }
}
