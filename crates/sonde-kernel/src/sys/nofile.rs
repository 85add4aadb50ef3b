//! The open-file limit. Every map, program, perf event and link is a descriptor, so a program
//! with tens of thousands of probes runs out of the usual soft limit of 1,024 long before the
//! kernel minds. As bpftrace does, the soft limit is raised to the hard limit at start; what
//! still does not fit is said before anything is loaded (see `needed`).

use std::sync::OnceLock;

/// The soft open-file limit after raising it to the hard limit (once per process).
pub fn raise() -> u64 {
    static LIMIT: OnceLock<u64> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let mut now = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes only into `now`; setrlimit reads the struct we pass.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut now) } != 0 {
            return 1024;
        }
        let up = libc::rlimit { rlim_cur: now.rlim_max, rlim_max: now.rlim_max };
        if now.rlim_cur < now.rlim_max && unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &up) } == 0
        {
            now = up;
        }
        now.rlim_cur
    })
}
