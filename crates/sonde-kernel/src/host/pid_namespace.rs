//! The pid namespace sonde runs in: bpftrace shows `pid` and `tid` as seen from its own.

use std::os::unix::fs::MetadataExt;

/// The initial pid namespace's inode (the kernel's PROC_PID_INIT_INO).
const INIT_INO: u64 = 0xEFFF_FFFC;

/// The device and inode of this process's pid namespace when it is not the initial one; `None`
/// in the initial namespace, or when /proc does not say.
pub fn own() -> Option<(u64, u64)> {
    let meta = std::fs::metadata("/proc/self/ns/pid").ok()?;
    (meta.ino() != INIT_INO).then(|| (meta.dev(), meta.ino()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_initial_namespace_is_none_and_another_is_its_device_and_inode() {
        let meta = std::fs::metadata("/proc/self/ns/pid").expect("/proc/self/ns/pid");
        use std::os::unix::fs::MetadataExt;
        match super::own() {
            None => assert_eq!(meta.ino(), super::INIT_INO),
            Some((dev, ino)) => assert_eq!((dev, ino), (meta.dev(), meta.ino())),
        }
    }
}
