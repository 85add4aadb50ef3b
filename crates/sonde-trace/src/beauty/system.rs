//! The structs of calls about the system as a whole, in strace's words: `struct statfs`,
//! `struct sysinfo`, clone3's `struct clone_args`, `struct rusage`. x86-64 layouts.

use super::consts::flags_or_zero;
use super::structs::{u32_at, u64_at};
use super::Table;

/// `%#x` as C prints it: `0` for zero.
fn hex(v: u64) -> String {
    match v {
        0 => "0".into(),
        v => format!("{v:#x}"),
    }
}

const MAGICS: Table = &[
    (0xef53, "EXT2_SUPER_MAGIC"),
    (0x0102_1994, "TMPFS_MAGIC"),
    (0x9fa0, "PROC_SUPER_MAGIC"),
    (0x6265_6572, "SYSFS_MAGIC"),
    (0x6367_7270, "CGROUP2_SUPER_MAGIC"),
    (0x0027_e0eb, "CGROUP_SUPER_MAGIC"),
    (0x794c_7630, "OVERLAYFS_SUPER_MAGIC"),
    (0x9123_683e, "BTRFS_SUPER_MAGIC"),
    (0x5846_5342, "XFS_SUPER_MAGIC"),
    (0x1cd1, "DEVPTS_SUPER_MAGIC"),
    (0x6969, "NFS_SUPER_MAGIC"),
    (0xf97c_ff8c, "SELINUX_MAGIC"),
    (0x6462_6720, "DEBUGFS_MAGIC"),
    (0x7472_6163, "TRACEFS_MAGIC"),
    (0x7363_6673, "SECURITYFS_MAGIC"),
    (0xcafe_4a11, "BPF_FS_MAGIC"),
    (0x1980_0202, "MQUEUE_MAGIC"),
    (0x9584_58f6, "HUGETLBFS_MAGIC"),
    (0x6573_5546, "FUSE_SUPER_MAGIC"),
    (0x7371_7368, "SQUASHFS_MAGIC"),
    (0x0102_1997, "V9FS_MAGIC"),
    (0x8584_58f6, "RAMFS_MAGIC"),
    (0xf2f5_2010, "F2FS_SUPER_MAGIC"),
    (0x4d44, "MSDOS_SUPER_MAGIC"),
    (0x9660, "ISOFS_SUPER_MAGIC"),
    (0x6e73_6673, "NSFS_MAGIC"),
];

/// strace's order (xlat/statfs_flags.in).
const ST_FLAGS: Table = &[
    (0x20, "ST_VALID"),
    (0x1, "ST_RDONLY"),
    (0x2, "ST_NOSUID"),
    (0x4, "ST_NODEV"),
    (0x8, "ST_NOEXEC"),
    (0x10, "ST_SYNCHRONOUS"),
    (0x40, "ST_MANDLOCK"),
    (0x400, "ST_NOATIME"),
    (0x800, "ST_NODIRATIME"),
    (0x1000, "ST_RELATIME"),
    (0x2000, "ST_NOSYMFOLLOW"),
];

/// Bytes of `struct statfs`.
pub const STATFS: usize = 120;

pub fn statfs(b: &[u8]) -> Option<String> {
    let f = |k: usize| u64_at(b, k * 8);
    let kind = f(0)?;
    let kind = match MAGICS.iter().find(|(m, _)| *m == kind) {
        Some((_, n)) => n.to_string(),
        None => hex(kind),
    };
    Some(format!(
        "{{f_type={kind}, f_bsize={}, f_blocks={}, f_bfree={}, f_bavail={}, f_files={}, \
         f_ffree={}, f_fsid={{val=[{}, {}]}}, f_namelen={}, f_frsize={}, f_flags={}}}",
        f(1)?,
        f(2)?,
        f(3)?,
        f(4)?,
        f(5)?,
        f(6)?,
        hex(u32_at(b, 56)? as u64),
        hex(u32_at(b, 60)? as u64),
        f(8)?,
        f(9)?,
        flags_or_zero(f(10)?, ST_FLAGS)
    ))
}

/// Bytes of `struct sysinfo`.
pub const SYSINFO: usize = 112;

pub fn sysinfo(b: &[u8]) -> Option<String> {
    let f = |at: usize| u64_at(b, at);
    Some(format!(
        "{{uptime={}, loads=[{}, {}, {}], totalram={}, freeram={}, sharedram={}, bufferram={}, \
         totalswap={}, freeswap={}, procs={}, totalhigh={}, freehigh={}, mem_unit={}}}",
        f(0)? as i64,
        f(8)?,
        f(16)?,
        f(24)?,
        f(32)?,
        f(40)?,
        f(48)?,
        f(56)?,
        f(64)?,
        f(72)?,
        u16::from_le_bytes(b.get(80..82)?.try_into().ok()?),
        f(88)?,
        f(96)?,
        u32_at(b, 104)?
    ))
}

/// Bytes of clone3's `struct clone_args` (the version with cgroup).
pub const CLONE_ARGS: usize = 88;

/// `{flags=..., child_tid=0x..., ..., tls=0x...}`, and at its end ` => {parent_tid=[N]}` (the
/// child's tid, which the call returns too).
pub fn clone_args(b: &[u8], ret: i64) -> Option<String> {
    let f = |k: usize| u64_at(b, k * 8);
    let flags = f(0)?;
    let ptr = |v: u64| if v == 0 { "NULL".to_string() } else { format!("{v:#x}") };
    let mut fields =
        vec![format!("flags={}", super::format(super::Kind::CloneFlags, flags & !0xff, false, 8))];
    if flags & libc::CLONE_PIDFD as u64 != 0 {
        fields.push(format!("pidfd={}", ptr(f(1)?)));
    }
    if flags & (libc::CLONE_CHILD_SETTID | libc::CLONE_CHILD_CLEARTID) as u64 != 0 {
        fields.push(format!("child_tid={}", ptr(f(2)?)));
    }
    let parent = flags & libc::CLONE_PARENT_SETTID as u64 != 0;
    if parent {
        fields.push(format!("parent_tid={}", ptr(f(3)?)));
    }
    fields.push(format!("exit_signal={}", super::consts::signal_or_zero(f(4)? as i64)));
    fields.push(format!("stack={}", ptr(f(5)?)));
    fields.push(format!("stack_size={}", hex(f(6)?)));
    if flags & libc::CLONE_SETTLS as u64 != 0 {
        fields.push(format!("tls={}", ptr(f(7)?)));
    }
    let mut s = format!("{{{}}}", fields.join(", "));
    if parent && ret > 0 {
        s.push_str(&format!(" => {{parent_tid=[{ret}]}}"));
    }
    Some(s)
}

/// getrusage's `who`.
pub const RUSAGE_WHO: Table =
    &[(0, "RUSAGE_SELF"), (u64::MAX, "RUSAGE_CHILDREN"), (1, "RUSAGE_THREAD")];

/// struct rusage's first fields, as strace shows them: `{ru_utime={tv_sec=0, tv_usec=1770},
/// ru_stime={tv_sec=0, tv_usec=0}, ...}`.
pub fn rusage(b: &[u8]) -> Option<String> {
    let tv = |at: usize| -> Option<String> {
        Some(format!("{{tv_sec={}, tv_usec={}}}", u64_at(b, at)? as i64, u64_at(b, at + 8)? as i64))
    };
    Some(format!("{{ru_utime={}, ru_stime={}, ...}}", tv(0)?, tv(16)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u64]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn statfs_as_strace_prints_it() {
        let mut b = words(&[0xef53, 4096, 66053021, 55862703, 13631154, 16777216, 16248759]);
        b.extend(0x5843_17b1u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(words(&[255, 4096, 0x1020, 0, 0, 0, 0]));
        assert_eq!(
            statfs(&b).unwrap(),
            "{f_type=EXT2_SUPER_MAGIC, f_bsize=4096, f_blocks=66053021, f_bfree=55862703, \
             f_bavail=13631154, f_files=16777216, f_ffree=16248759, f_fsid={val=[0x584317b1, 0]}, \
             f_namelen=255, f_frsize=4096, f_flags=ST_VALID|ST_RELATIME}"
        );
    }

    #[test]
    fn rusage_as_strace_prints_it() {
        assert_eq!(
            rusage(&words(&[0, 72186, 1, 5])).unwrap(),
            "{ru_utime={tv_sec=0, tv_usec=72186}, ru_stime={tv_sec=1, tv_usec=5}, ...}"
        );
    }

    #[test]
    fn sysinfo_as_strace_prints_it() {
        let mut b = words(&[12750, 586816, 296608, 178496, 25276063744, 20261502976, 9166848]);
        b.extend(words(&[64344064, 0, 0, 151, 0, 0, 1]));
        assert_eq!(
            sysinfo(&b).unwrap(),
            "{uptime=12750, loads=[586816, 296608, 178496], totalram=25276063744, \
             freeram=20261502976, sharedram=9166848, bufferram=64344064, totalswap=0, \
             freeswap=0, procs=151, totalhigh=0, freehigh=0, mem_unit=1}"
        );
    }

    #[test]
    fn clone_args_as_strace_prints_them() {
        let b = words(&[0x3d0f00, 0, 0x7f25_569b_a990, 0x7f25_569b_a990, 0, 0x7f25_561b_a000]);
        let b = [b, words(&[0x7fff80, 0x7f25_569b_a6c0, 0, 0, 0])].concat();
        assert_eq!(
            clone_args(&b, 3692).unwrap(),
            "{flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|\
             CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f25569ba990, \
             parent_tid=0x7f25569ba990, exit_signal=0, stack=0x7f25561ba000, \
             stack_size=0x7fff80, tls=0x7f25569ba6c0} => {parent_tid=[3692]}"
        );
    }
}
