//! Capabilities: which this process holds (capget(2)), and giving up the rest for good
//! (capset(2), and the bounding and ambient sets through prctl(2)). capget rather than
//! /proc/self/status, whose text the kernel builds from the whole task's state.

use super::{errno, Errno};

pub const CAP_DAC_READ_SEARCH: u32 = 2;
pub const CAP_SETPCAP: u32 = 8;
pub const CAP_SYS_PTRACE: u32 = 19;
pub const CAP_SYS_ADMIN: u32 = 21;
pub const CAP_SYSLOG: u32 = 34;
pub const CAP_PERFMON: u32 = 38;
pub const CAP_BPF: u32 = 39;

/// _LINUX_CAPABILITY_VERSION_3: 64-bit sets, as two of `CapData`.
const VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// The calling thread's (effective, permitted, inheritable) sets.
fn get() -> Result<[u64; 3], Errno> {
    let mut header = CapHeader { version: VERSION_3, pid: 0 };
    let mut data = [CapData::default(); 2];
    // SAFETY: for version 3 the kernel reads the header and writes two CapData.
    let r = unsafe {
        libc::syscall(libc::SYS_capget, &mut header as *mut CapHeader, data.as_mut_ptr())
    };
    if r != 0 {
        return Err(errno());
    }
    let join = |f: fn(&CapData) -> u32| f(&data[0]) as u64 | (f(&data[1]) as u64) << 32;
    Ok([join(|d| d.effective), join(|d| d.permitted), join(|d| d.inheritable)])
}

fn set(sets: [u64; 3]) -> Result<(), Errno> {
    let mut header = CapHeader { version: VERSION_3, pid: 0 };
    let half = |shift: u32| CapData {
        effective: (sets[0] >> shift) as u32,
        permitted: (sets[1] >> shift) as u32,
        inheritable: (sets[2] >> shift) as u32,
    };
    let data = [half(0), half(32)];
    // SAFETY: for version 3 the kernel reads the header and two CapData.
    let r =
        unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut CapHeader, data.as_ptr()) };
    if r != 0 {
        return Err(errno());
    }
    Ok(())
}

/// The effective set, as a test of one capability (none if capget fails).
pub fn effective() -> impl Fn(u32) -> bool {
    let eff = get().map_or(0, |s| s[0]);
    move |c: u32| eff & (1 << c) != 0
}

/// The highest capability this kernel knows (`/proc/sys/kernel/cap_last_cap`).
pub fn last_cap() -> Option<u32> {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap").ok()?.trim().parse().ok()
}

/// Keeps only the capabilities `keep` (those held) in the calling thread's effective and
/// permitted sets, empties its inheritable and ambient sets and, when it may
/// (CAP_SETPCAP), drops the others from its bounding set too, so not even an exec gets them
/// back. Threads started later inherit the result; threads already running keep theirs.
pub fn keep_only(keep: &[u32]) -> Result<(), Errno> {
    let mask = keep.iter().fold(0u64, |m, c| m | 1 << c);
    let [eff, perm, _] = get()?;
    if eff & (1 << CAP_SETPCAP) != 0 {
        for c in (0..=last_cap().unwrap_or(40)).filter(|c| mask & (1 << c) == 0) {
            // SAFETY: prctl with integer arguments only.
            if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, c as libc::c_ulong, 0, 0, 0) } != 0 {
                return Err(errno());
            }
        }
    }
    // SAFETY: as above. EINVAL before 4.3, which has no ambient set to clear.
    let r = unsafe { libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) };
    if r != 0 && errno() != libc::EINVAL {
        return Err(errno());
    }
    set([eff & mask, perm & mask, 0])
}
