//! The locked-memory limit. Before 5.11 the kernel charges every BPF map and program to
//! RLIMIT_MEMLOCK (5.11 moved the charge to memory cgroups), and the usual limits (64 KiB in a
//! bare init, 8 MiB under systemd) are used up by one ring buffer: map creation fails with EPERM.
//! As libbpf, ply and bpftrace do, the limit is raised before the first bpf(2) call, and only on
//! kernels that charge it, so sonde leaves the process as it found it elsewhere.

use std::sync::OnceLock;

/// What the first bpf(2) call found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memlock {
    /// The kernel does not charge BPF memory to the limit (5.11+).
    NotCharged,
    /// It does, and the limit is (now) unlimited.
    Unlimited,
    /// It does, and the limit could not be raised from this many bytes (no CAP_SYS_RESOURCE, and
    /// the hard limit is lower).
    Limited { bytes: u64 },
}

/// Raises RLIMIT_MEMLOCK once per process where the kernel needs it; the answer is kept.
pub fn ensure() -> Memlock {
    static STATE: OnceLock<Memlock> = OnceLock::new();
    *STATE.get_or_init(|| {
        if !charges_memlock(&super::version::kernel_release()) {
            return Memlock::NotCharged;
        }
        let want = libc::rlimit { rlim_cur: libc::RLIM_INFINITY, rlim_max: libc::RLIM_INFINITY };
        // SAFETY: setrlimit reads the struct we pass; getrlimit writes only into `now`.
        if unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &want) } == 0 {
            return Memlock::Unlimited;
        }
        let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut now) };
        if now.rlim_cur == libc::RLIM_INFINITY {
            return Memlock::Unlimited;
        }
        // Without the privilege to go past the hard limit, at least go up to it.
        let up = libc::rlimit { rlim_cur: now.rlim_max, rlim_max: now.rlim_max };
        if unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &up) } == 0 {
            now = up;
        }
        if now.rlim_cur == libc::RLIM_INFINITY {
            Memlock::Unlimited
        } else {
            Memlock::Limited { bytes: now.rlim_cur }
        }
    })
}

/// Does a kernel of this release charge BPF memory to RLIMIT_MEMLOCK (before 5.11)? An
/// unreadable release counts as a new kernel: raising the limit is then left to the error path.
pub fn charges_memlock(release: &str) -> bool {
    super::version::parse(release).is_some_and(|v| v < (5, 11))
}

#[cfg(test)]
mod tests {
    use super::charges_memlock;

    #[test]
    fn kernels_before_5_11_charge_bpf_memory_to_the_limit() {
        assert!(charges_memlock("5.10.0-32-cloud-amd64"));
        assert!(charges_memlock("4.19.0-27-amd64"));
        assert!(!charges_memlock("5.11.0"));
        assert!(!charges_memlock("6.1.0-56-cloud-amd64"));
        assert!(!charges_memlock("6.18.1"));
        assert!(!charges_memlock("garbage"));
        assert!(!charges_memlock(""));
    }
}
