//! Shared memory mapped from a BPF map (the ring buffer's pages).
#![allow(unsafe_code)]

use super::{errno, Errno};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A shared mapping of a map's memory, unmapped on drop. Offsets are checked, so it is safe to use.
pub(crate) struct Mmap {
    ptr: *mut u8,
    len: usize,
}

impl Mmap {
    pub fn new(fd: RawFd, len: usize, offset: usize, writable: bool) -> Result<Mmap, Errno> {
        let prot = if writable { libc::PROT_READ | libc::PROT_WRITE } else { libc::PROT_READ };
        // SAFETY: a fresh shared mapping; we own it until drop.
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, offset as libc::off_t)
        };
        if p == libc::MAP_FAILED {
            return Err(errno());
        }
        Ok(Mmap { ptr: p as *mut u8, len })
    }

    fn at<T>(&self, off: usize) -> *mut T {
        assert!(
            off.is_multiple_of(std::mem::align_of::<T>())
                && off + std::mem::size_of::<T>() <= self.len
        );
        // SAFETY: in bounds by the assert above.
        unsafe { self.ptr.add(off) as *mut T }
    }

    pub fn load_acquire_u64(&self, off: usize) -> u64 {
        // SAFETY: aligned, in bounds, and the kernel only ever writes it atomically.
        unsafe { AtomicU64::from_ptr(self.at(off)) }.load(Ordering::Acquire)
    }

    pub fn load_acquire_u32(&self, off: usize) -> u32 {
        // SAFETY: as above.
        unsafe { AtomicU32::from_ptr(self.at(off)) }.load(Ordering::Acquire)
    }

    pub fn store_release_u64(&self, off: usize, v: u64) {
        // SAFETY: as above; only called on the read-write consumer page.
        unsafe { AtomicU64::from_ptr(self.at(off)) }.store(v, Ordering::Release)
    }

    /// Bytes the producer has committed and will not touch until we advance past them.
    pub fn bytes(&self, off: usize, len: usize) -> &[u8] {
        assert!(off.checked_add(len).is_some_and(|end| end <= self.len));
        // SAFETY: in bounds; the ring buffer protocol keeps the producer off committed records.
        unsafe { std::slice::from_raw_parts(self.ptr.add(off), len) }
    }
}

impl Drop for Mmap {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len) };
    }
}

// SAFETY: the mapping is plain shared memory accessed through atomics and read-only slices.
unsafe impl Send for Mmap {}
