//! The raw layer: every `unsafe` block of the crate lives in this module: the syscalls here, the
//! `#[repr(C)]` structs the kernel reads (`attr.rs`), the ring buffer mapping (`mmap.rs`) and the
//! `-c` command's held fork (`held.rs`). The modules above see safe functions that take checked
//! slices and return `OwnedFd`s or errnos.
//!
//! Each `bpf_attr` variant is its own struct with every byte spelled out (explicit padding, no
//! implicit holes) and `Default` zeroing it. We pass `size_of` the variant we fill: the kernel
//! zero-extends a short attr to its own union size and rejects a long one only if the tail it does not
//! know is non-zero, so the same struct works on 6.1 through 6.18.
//!
//! Soundness: attrs carry user addresses as plain `u64`s, and the kernel writes through them as far as
//! the map's or command's sizes say. So the functions that pass attrs are `pub(crate)`: the safe
//! modules above set addresses only from live slices they have length-checked against the object
//! (see `map.rs`), and nothing outside the crate can hand the kernel an arbitrary pointer.
#![allow(unsafe_code)]

mod attr;
pub mod caps;
mod held;
pub mod memlock;
mod mmap;
pub mod nofile;
pub mod version;

pub use attr::*;
pub(crate) use held::{continue_child, fork_held, kill_child, wait_child};
pub(crate) use mmap::Mmap;

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub type Errno = i32;

pub(crate) fn errno() -> Errno {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

/// bpf(2) with an attr variant; returns the non-negative result.
pub(crate) fn bpf<A: BpfAttr>(cmd: u32, attr: &mut A) -> Result<i64, Errno> {
    // Kernels before 5.11 charge maps and programs to RLIMIT_MEMLOCK: raise it first, once.
    memlock::ensure();
    // SAFETY: attr is a live, fully initialised repr(C) struct of the size we pass; pointers inside it
    // were set by safe callers from slices that outlive this call.
    let r = unsafe {
        libc::syscall(libc::SYS_bpf, cmd, attr as *mut A, std::mem::size_of::<A>() as u32)
    };
    if r < 0 {
        Err(errno())
    } else {
        Ok(r)
    }
}

/// bpf(2) for the commands whose result is a new fd.
pub(crate) fn bpf_fd<A: BpfAttr>(cmd: u32, attr: &mut A) -> Result<OwnedFd, Errno> {
    let fd = bpf(cmd, attr)?;
    // SAFETY: the kernel just returned this fd to us and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Address of a buffer for an attr field. Lives in the raw layer so callers never touch pointers.
pub(crate) fn addr(buf: &[u8]) -> u64 {
    if buf.is_empty() {
        0
    } else {
        buf.as_ptr() as u64
    }
}

pub(crate) fn addr_mut(buf: &mut [u8]) -> u64 {
    if buf.is_empty() {
        0
    } else {
        buf.as_mut_ptr() as u64
    }
}

pub(crate) fn addr_cstr(s: &CStr) -> u64 {
    s.as_ptr() as u64
}

pub(crate) fn addr_info(info: &mut ProgInfo) -> u64 {
    info as *mut ProgInfo as u64
}

pub(crate) fn addr_btf_info(info: &mut BtfInfo) -> u64 {
    info as *mut BtfInfo as u64
}

pub(crate) fn addr_u64s(v: &[u64]) -> u64 {
    if v.is_empty() {
        0
    } else {
        v.as_ptr() as u64
    }
}

/// The addresses of `strs`, for attrs that take an array of C-string pointers. The strings must
/// outlive every use of the returned addresses.
pub(crate) fn cstr_addrs(strs: &[std::ffi::CString]) -> Vec<u64> {
    strs.iter().map(|s| addr_cstr(s)).collect()
}

pub(crate) fn perf_event_open(
    attr: &mut PerfEventAttr,
    pid: i32,
    cpu: i32,
) -> Result<OwnedFd, Errno> {
    attr.size = std::mem::size_of::<PerfEventAttr>() as u32;
    // SAFETY: attr is a complete perf_event_attr of the size it declares.
    let r = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr as *mut PerfEventAttr,
            pid,
            cpu,
            -1,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if r < 0 {
        return Err(errno());
    }
    // SAFETY: a fresh fd from the kernel.
    Ok(unsafe { OwnedFd::from_raw_fd(r as RawFd) })
}

/// ioctl with an integer argument (all the perf ioctls we use).
pub(crate) fn ioctl(fd: &OwnedFd, req: u64, arg: u64) -> Result<(), Errno> {
    // SAFETY: the perf ioctls we pass take an integer, not a pointer.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), req as _, arg as libc::c_ulong) };
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// Whether this process holds the capabilities bpf(2) and perf_event_open(2) check: CAP_BPF and
/// CAP_PERFMON (5.8+), or CAP_SYS_ADMIN, in its effective set.
pub fn has_bpf_capabilities() -> bool {
    let has = caps::effective();
    (has(caps::CAP_BPF) && has(caps::CAP_PERFMON)) || has(caps::CAP_SYS_ADMIN)
}

/// Whether this process may write tracefs' event and tracer files: CAP_SYS_ADMIN (root has it).
pub fn has_sys_admin() -> bool {
    caps::effective()(caps::CAP_SYS_ADMIN)
}

pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory effects.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

pub(crate) fn epoll_create() -> Result<OwnedFd, Errno> {
    // SAFETY: no pointers.
    let r = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if r < 0 {
        return Err(errno());
    }
    // SAFETY: fresh fd.
    Ok(unsafe { OwnedFd::from_raw_fd(r) })
}

/// Watch `fd` for input on `ep`; `once`: wake a single time (EPOLLONESHOT), for an fd that stays
/// readable afterwards (a pidfd).
pub(crate) fn epoll_add(ep: &OwnedFd, fd: RawFd, once: bool) -> Result<(), Errno> {
    let flags = if once { libc::EPOLLIN | libc::EPOLLONESHOT } else { libc::EPOLLIN };
    let mut ev = libc::epoll_event { events: flags as u32, u64: fd as u64 };
    // SAFETY: ev is a valid epoll_event.
    let r = unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) };
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// Waits for readiness; returns how many fds are ready (0 on timeout or signal).
pub(crate) fn epoll_wait(ep: &OwnedFd, timeout_ms: i32) -> Result<usize, Errno> {
    let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 4];
    // SAFETY: evs has room for the count we pass.
    let r =
        unsafe { libc::epoll_wait(ep.as_raw_fd(), evs.as_mut_ptr(), evs.len() as i32, timeout_ms) };
    if r < 0 {
        let e = errno();
        return if e == libc::EINTR { Ok(0) } else { Err(e) };
    }
    Ok(r as usize)
}

pub fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid out-parameter; the clocks we pass always exist on Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The local time zone's offset from UTC, in seconds, at `unix_secs` (what `localtime_r` says;
/// 0 when it cannot tell).
pub fn utc_offset_secs(unix_secs: i64) -> i64 {
    let t: libc::time_t = unix_secs;
    // SAFETY: an all-zero `tm` is a valid value (integers and a null zone-name pointer).
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call; localtime_r is the thread-safe variant.
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    if r.is_null() {
        0
    } else {
        tm.tm_gmtoff
    }
}

pub(crate) fn mount_tracefs(target: &CStr) -> Result<(), Errno> {
    // SAFETY: all arguments are NUL-terminated strings or null.
    let r = unsafe {
        libc::mount(c"nodev".as_ptr(), target.as_ptr(), c"tracefs".as_ptr(), 0, std::ptr::null())
    };
    if r < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

/// pidfd_open(2) (Linux 5.3+): an fd that becomes readable when process `pid` exits.
pub(crate) fn pidfd_open(pid: u32) -> Result<OwnedFd, Errno> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: a non-negative return is a new fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// Whether `fd` is readable right now (poll(2) without waiting).
pub(crate) fn readable_now(fd: &OwnedFd) -> bool {
    let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    // SAFETY: one valid pollfd, no waiting.
    unsafe { libc::poll(&mut p, 1, 0) == 1 && p.revents & libc::POLLIN != 0 }
}

/// The effective user id.
pub(crate) fn euid() -> u32 {
    // SAFETY: geteuid has no arguments and always succeeds.
    unsafe { libc::geteuid() }
}

/// kill(pid, 0): whether process `pid` is gone (ESRCH). Signal 0 only checks that it exists.
pub(crate) fn process_gone(pid: u32) -> bool {
    // SAFETY: signal 0 sends nothing.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r != 0 && errno() == libc::ESRCH
}
