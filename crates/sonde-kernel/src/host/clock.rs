//! The clocks BPF timestamps relate to: bpf_ktime_get_ns() is CLOCK_MONOTONIC and
//! bpf_ktime_get_boot_ns() is CLOCK_BOOTTIME, so wall time = realtime_ns() - monotonic_ns() + ts.

pub fn monotonic_ns() -> u64 {
    crate::sys::clock_ns(libc::CLOCK_MONOTONIC)
}

pub fn realtime_ns() -> u64 {
    crate::sys::clock_ns(libc::CLOCK_REALTIME)
}

/// Seconds east of UTC of the local time zone at `unix_secs` (bpftrace prints local time).
pub fn utc_offset_secs(unix_secs: i64) -> i64 {
    crate::sys::utc_offset_secs(unix_secs)
}

pub fn boottime_ns() -> u64 {
    crate::sys::clock_ns(libc::CLOCK_BOOTTIME)
}

#[cfg(test)]
mod tests {
    #[test]
    fn clocks_move_forward_and_boottime_includes_monotonic() {
        let (m1, b) = (super::monotonic_ns(), super::boottime_ns());
        assert!(super::monotonic_ns() >= m1);
        assert!(b >= m1);
        assert!(super::realtime_ns() > 1_600_000_000_000_000_000);
    }
}
