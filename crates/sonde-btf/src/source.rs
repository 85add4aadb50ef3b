//! Where the BTF bytes live: a private read-only mapping of the sysfs file, or an owned buffer.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

pub(crate) enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(m) => m,
            Bytes::Owned(v) => v,
        }
    }
}

/// Maps a `/sys/kernel/btf/*` file, falling back to reading it.
///
/// sysfs hands out binary attributes 4 KiB per read(2), so reading vmlinux's 5.5 MB takes
/// ~1350 syscalls (~4.4 ms); Linux 6.16+ lets vmlinux BTF be mapped (~40 us). The kernel
/// refuses shared or writable mappings, hence a private read-only ("copy") mapping. Module
/// BTF files and older kernels refuse mmap altogether; they are read instead.
pub(crate) fn load_sysfs(path: &Path) -> io::Result<Bytes> {
    let file = File::open(path)?;
    // SAFETY: memmap2 marks mapping unsafe because another process could change the file
    // under us. Kernel BTF in sysfs is immutable for the life of the kernel (or module) and
    // the mapping is private and read-only, so the bytes cannot change while we hold them.
    match unsafe { memmap2::MmapOptions::new().map_copy_read_only(&file) } {
        Ok(map) => Ok(Bytes::Mapped(map)),
        Err(_) => read_all(file).map(Bytes::Owned),
    }
}

fn read_all(mut file: File) -> io::Result<Vec<u8>> {
    use io::Read;
    // sysfs reports the real size, so one allocation suffices.
    let hint = file.metadata().map(|m| m.len() as usize).unwrap_or(0);
    let mut buf = Vec::with_capacity(hint);
    file.read_to_end(&mut buf)?;
    Ok(buf)
}
