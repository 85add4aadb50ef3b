//! `hardware:EVENT[:COUNT]` (short `h:`): a hardware perf event (the CPU's counters: cycles,
//! instructions, cache misses) on every CPU, every COUNT events. Virtual machines often have
//! no such counters: the kernel then refuses the event when it is attached.

use crate::model::site::{AttachPoint, ProgKind, Site};

/// bpftrace's hardware events: name, alias, `PERF_COUNT_HW_*` number, default period.
pub const HARDWARE_EVENTS: &[(&str, &str, u64, u64)] = &[
    ("backend-stalls", "", 8, 1_000_000),
    ("branch-instructions", "branches", 4, 100_000),
    ("branch-misses", "", 5, 100_000),
    ("bus-cycles", "", 6, 100_000),
    ("cache-misses", "", 3, 1_000_000),
    ("cache-references", "", 2, 1_000_000),
    ("cpu-cycles", "cycles", 0, 1_000_000),
    ("frontend-stalls", "", 7, 1_000_000),
    ("instructions", "", 1, 1_000_000),
    ("ref-cycles", "", 9, 1_000_000),
];

pub fn expand(definition: &str) -> Result<Vec<Site>, String> {
    let events = HARDWARE_EVENTS.iter().map(|&(n, alias, _, default)| (n, alias, default));
    let (event, index, period) = super::profile::perf_event(definition, "hardware", events)?;
    let config = HARDWARE_EVENTS[index].2;
    let point = AttachPoint::Hardware { event: event.to_string(), config, period };
    Ok(vec![Site::new(point, ProgKind::PerfEvent)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_by_name_or_alias_with_their_default_period() {
        let point = |d: &str| expand(d).map(|s| s[0].point.clone());
        let cycles =
            |period| AttachPoint::Hardware { event: "cpu-cycles".into(), config: 0, period };
        assert_eq!(point("cpu-cycles"), Ok(cycles(1_000_000)));
        assert_eq!(point("cycles:1000"), Ok(cycles(1000)));
        let misses = AttachPoint::Hardware { event: "cache-misses".into(), config: 3, period: 10 };
        assert_eq!(point("cache-misses:10"), Ok(misses));
        assert!(point("cache-misses:0").is_err());
        assert!(point("nonsense").unwrap_err().starts_with("unknown hardware event `nonsense`"));
    }
}
