//! The consumer side of a BPF ring buffer (BPF_MAP_TYPE_RINGBUF), read through shared memory.
//!
//! Layout (kernel/bpf/ringbuf.c): page 0 holds consumer_pos, which we own and map read-write; page 1
//! holds producer_pos, followed by the data area mapped twice in a row, so a record that wraps
//! around the end is still contiguous. All of that is read-only to us. Each record starts with an
//! 8-byte header: a u32 length carrying BUSY (still being written) and DISCARD flags, then a u32
//! page offset we do not need.

use crate::error::{KernelError, Result};
use crate::object::map::{Map, MapType};
use crate::sys::{self, Mmap};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};

const BUSY: u32 = 1 << 31;
const DISCARD: u32 = 1 << 30;
const HDR: usize = 8;

pub struct RingBuf {
    consumer: Mmap,
    producer: Mmap,
    epoll: OwnedFd,
    /// Our own copy of consumer_pos (only we write it).
    pos: u64,
    mask: u64,
    page: usize,
    // Keeps the map's file (and so the epoll registration) alive even if the Map is dropped first.
    _map: OwnedFd,
}

impl RingBuf {
    pub fn new(map: &Map) -> Result<RingBuf> {
        if map.map_type() != MapType::RingBuf {
            return Err(KernelError::Unsupported {
                what: "reading a map that is not a ring buffer as one",
                hint: "create the map with MapType::RingBuf",
            });
        }
        let fd = map.owned_fd().try_clone().map_err(|e| KernelError::Syscall {
            op: "fcntl(F_DUPFD_CLOEXEC)",
            errno: e.raw_os_error().unwrap_or(libc::EBADF),
        })?;
        let page = sys::page_size();
        let size = map.max_entries() as usize;
        let consumer = Mmap::new(fd.as_raw_fd(), page, 0, true)
            .map_err(KernelError::sys("mmap(ringbuf consumer page)"))?;
        let producer = Mmap::new(fd.as_raw_fd(), page + 2 * size, page, false)
            .map_err(KernelError::sys("mmap(ringbuf producer pages)"))?;
        let epoll = sys::epoll_create().map_err(KernelError::sys("epoll_create1"))?;
        sys::epoll_add(&epoll, fd.as_raw_fd(), false).map_err(KernelError::sys("epoll_ctl"))?;
        let pos = consumer.load_acquire_u64(0);
        Ok(RingBuf { consumer, producer, epoll, pos, mask: size as u64 - 1, page, _map: fd })
    }

    /// Wait until the kernel signals new data or `timeout_ms` passes (-1: forever). A signal ends the
    /// wait early without error, so the caller can check its flags.
    pub fn poll(&mut self, timeout_ms: i32) -> Result<()> {
        sys::epoll_wait(&self.epoll, timeout_ms).map_err(KernelError::sys("epoll_wait"))?;
        Ok(())
    }

    /// Also end [`RingBuf::poll`]'s wait, once, when `fd` becomes readable: a pidfd, so a
    /// process's exit wakes the reader at once (a SIGCHLD that lands just before the wait would
    /// not), and only once (the pidfd stays readable).
    pub fn wake_on(&self, fd: BorrowedFd<'_>) -> Result<()> {
        sys::epoll_add(&self.epoll, fd.as_raw_fd(), true).map_err(KernelError::sys("epoll_ctl"))
    }

    /// Hand every committed record to `f`, oldest first, and free its space. Stops at the first record
    /// still being written, and at the producer position seen on entry, so a flood cannot keep it
    /// here forever. Returns the number of records passed to `f` (discarded ones are skipped).
    pub fn drain(&mut self, mut f: impl FnMut(&[u8])) -> Result<usize> {
        let end = self.producer.load_acquire_u64(0);
        let mut n = 0;
        while self.pos < end {
            let at = self.page + (self.pos & self.mask) as usize;
            let len = self.producer.load_acquire_u32(at);
            if len & BUSY != 0 {
                break;
            }
            let data = (len & !(BUSY | DISCARD)) as usize;
            if len & DISCARD == 0 {
                f(self.producer.bytes(at + HDR, data));
                n += 1;
            }
            self.pos += (HDR + data).next_multiple_of(8) as u64;
            // Release: the kernel may reuse the space only after we are done reading it.
            self.consumer.store_release_u64(0, self.pos);
        }
        Ok(n)
    }
}
