//! strace's `-v`: structures with every member rather than strace's abbreviated few. Here for
//! struct stat (stat, fstat, lstat, newfstatat), struct statx and ioctl's struct termios, copied
//! whole at the call's exit; the other structures print as without -v.

use crate::beauty::consts::{flags_or_zero, STATX_MASK};
use crate::beauty::structs::{makedev, mode, u32_at, u64_at, STATX_ATTRS};
use crate::beauty::tty;
use sonde_output::calendar::civil_from_days;

/// Argument `arg` of `syscall` whole, from its copy at the exit (`out`), when -v knows it;
/// `raw` and `ret` are the call's arguments and result.
pub fn decode(syscall: &str, arg: usize, raw: &[u64; 6], ret: i64, out: &[u8]) -> Option<String> {
    match (syscall, arg) {
        ("newfstatat", 2) | ("fstat" | "stat" | "lstat", 1) => stat(out),
        ("statx", 4) => statx(out),
        ("ioctl", 2) => tty::ioctl_arg_whole(raw[1] as u32, out, ret),
        _ => None,
    }
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
        Some(format!("st_{name}={secs}{}, st_{name}_nsec={nsec}", dated(secs, nsec)))
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

const STATX_BTIME: u32 = 0x800;
const STATX_MNT_ID: u32 = 0x1000;

/// struct statx in strace -v's order; stx_btime and stx_mnt_id only when the mask says the
/// kernel filled them, as strace does.
fn statx(b: &[u8]) -> Option<String> {
    let mask = u32_at(b, 0)?;
    let time = |name: &str, at: usize| -> Option<String> {
        let (secs, nsec) = (u64_at(b, at)? as i64, u32_at(b, at + 8)?);
        Some(format!("stx_{name}={{tv_sec={secs}, tv_nsec={nsec}}}{}", dated(secs, nsec as u64)))
    };
    let mut parts = vec![
        format!("stx_mask={}", flags_or_zero(mask as u64, STATX_MASK)),
        format!("stx_blksize={}", u32_at(b, 4)?),
        format!("stx_attributes={}", flags_or_zero(u64_at(b, 8)?, STATX_ATTRS)),
        format!("stx_nlink={}", u32_at(b, 16)?),
        format!("stx_uid={}", u32_at(b, 20)?),
        format!("stx_gid={}", u32_at(b, 24)?),
        format!("stx_mode={}", mode(u32_at(b, 28)? & 0xffff)),
        format!("stx_ino={}", u64_at(b, 32)?),
        format!("stx_size={}", u64_at(b, 40)?),
        format!("stx_blocks={}", u64_at(b, 48)?),
        format!("stx_attributes_mask={}", flags_or_zero(u64_at(b, 56)?, STATX_ATTRS)),
        time("atime", 64)?,
    ];
    if mask & STATX_BTIME != 0 {
        parts.push(time("btime", 80)?);
    }
    parts.push(time("ctime", 96)?);
    parts.push(time("mtime", 112)?);
    for (name, at) in
        [("rdev_major", 128), ("rdev_minor", 132), ("dev_major", 136), ("dev_minor", 140)]
    {
        parts.push(format!("stx_{name}={}", u32_at(b, at)?));
    }
    if mask & STATX_MNT_ID != 0 {
        parts.push(format!("stx_mnt_id={:#x}", u64_at(b, 144)?));
    }
    Some(format!("{{{}}}", parts.join(", ")))
}

/// ` /* 2026-11-25T23:40:45+0000 */` after a time; nothing after a zero time (a time the
/// filesystem does not keep), as strace.
fn dated(secs: i64, nsec: u64) -> String {
    match (secs, nsec) {
        (0, 0) => String::new(),
        _ => format!(" /* {} */", utc(secs, nsec)),
    }
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
            decode("newfstatat", 2, &[0; 6], 0, &b).unwrap(),
            "{st_dev=makedev(0xfe, 0), st_ino=1196275, st_mode=S_IFREG|0644, st_nlink=1, st_uid=0, st_gid=0, st_blksize=4096, st_blocks=80, st_size=38595, st_atime=1795650045 /* 2026-11-25T23:40:45.966717773+0000 */, st_atime_nsec=966717773, st_mtime=1795650045 /* 2026-11-25T23:40:45.850717768+0000 */, st_mtime_nsec=850717768, st_ctime=1795650045 /* 2026-11-25T23:40:45.882717770+0000 */, st_ctime_nsec=882717770}"
        );
        // A copy cut short (the struct's first members only) is not shown whole.
        assert_eq!(decode("fstat", 1, &[0; 6], 0, &b[..64]), None);
    }

    /// strace 6.1 -v on this host: `statx(AT_FDCWD, "/dev/null", 0, STATX_BASIC_STATS, ...)`.
    #[test]
    fn struct_statx_whole() {
        let mut b = vec![0u8; 152];
        let mut put = |at: usize, v: &[u8]| b[at..at + v.len()].copy_from_slice(v);
        put(0, &0x17ffu32.to_le_bytes());
        put(4, &4096u32.to_le_bytes());
        put(16, &1u32.to_le_bytes());
        put(28, &0o20666u16.to_le_bytes());
        put(32, &3u64.to_le_bytes());
        put(56, &0x203070u64.to_le_bytes());
        for at in [64, 80, 96, 112] {
            put(at, &1795369216u64.to_le_bytes());
            put(at + 8, &779573746u32.to_le_bytes());
        }
        for (at, v) in [(128, 1u32), (132, 3), (136, 0), (140, 6)] {
            put(at, &v.to_le_bytes());
        }
        put(144, &0x18u64.to_le_bytes());
        assert_eq!(
            decode("statx", 4, &[0; 6], 0, &b).unwrap(),
            "{stx_mask=STATX_BASIC_STATS|STATX_MNT_ID, stx_blksize=4096, stx_attributes=0, stx_nlink=1, stx_uid=0, stx_gid=0, stx_mode=S_IFCHR|0666, stx_ino=3, stx_size=0, stx_blocks=0, stx_attributes_mask=STATX_ATTR_IMMUTABLE|STATX_ATTR_APPEND|STATX_ATTR_NODUMP|STATX_ATTR_AUTOMOUNT|STATX_ATTR_MOUNT_ROOT|STATX_ATTR_DAX, stx_atime={tv_sec=1795369216, tv_nsec=779573746} /* 2026-11-22T17:40:16.779573746+0000 */, stx_ctime={tv_sec=1795369216, tv_nsec=779573746} /* 2026-11-22T17:40:16.779573746+0000 */, stx_mtime={tv_sec=1795369216, tv_nsec=779573746} /* 2026-11-22T17:40:16.779573746+0000 */, stx_rdev_major=1, stx_rdev_minor=3, stx_dev_major=0, stx_dev_minor=6, stx_mnt_id=0x18}"
        );
        // With STATX_BTIME in the mask, the birth time follows the access time.
        b[0..4].copy_from_slice(&0x1fffu32.to_le_bytes());
        let whole = decode("statx", 4, &[0; 6], 0, &b).unwrap();
        assert!(whole.contains("*/, stx_btime={tv_sec=1795369216, tv_nsec=779573746} /* "));
        // A birth time the filesystem does not keep is zero, and has no date.
        b[80..92].fill(0);
        let whole = decode("statx", 4, &[0; 6], 0, &b).unwrap();
        assert!(whole.contains("*/, stx_btime={tv_sec=0, tv_nsec=0}, stx_ctime="));
    }

    /// strace 6.1 -v on this host: `ioctl(0, TCGETS, ...)` of `stty -a` on a pseudo-terminal.
    #[test]
    fn struct_termios_whole() {
        let mut b = vec![0u8; 36];
        for (at, v) in [(0, 0o2400u32), (4, 0o5), (8, 0o277), (12, 0o105073)] {
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        let cc = [3u8, 0x1c, 0x7f, 0x15, 4, 0, 1, 0, 0x11, 0x13, 0x1a, 0, 0x12, 0xf, 0x17, 0x16];
        b[17..17 + cc.len()].copy_from_slice(&cc);
        let tcgets = [0, 0x5401, 0, 0, 0, 0];
        assert_eq!(
            decode("ioctl", 2, &tcgets, 0, &b).unwrap(),
            "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, c_line=N_TTY, c_cc=[[VINTR]=0x3, [VQUIT]=0x1c, [VERASE]=0x7f, [VKILL]=0x15, [VEOF]=0x4, [VTIME]=0, [VMIN]=0x1, [VSWTC]=0, [VSTART]=0x11, [VSTOP]=0x13, [VSUSP]=0x1a, [VEOL]=0, [VREPRINT]=0x12, [VDISCARD]=0xf, [VWERASE]=0x17, [VLNEXT]=0x16, [VEOL2]=0, [17]=0, [18]=0]}"
        );
        // A failed TCGETS filled nothing; another request is not a termios.
        assert_eq!(decode("ioctl", 2, &tcgets, -25, &b), None);
        assert_eq!(decode("ioctl", 2, &[0, 0x5413, 0, 0, 0, 0], 0, &b), None);
    }
}
