//! Runs the kernel skipped: a probe that fires while another BPF program runs on the same CPU
//! (an interrupt during a busy syscall probe, say) is not run, only counted in the program's
//! `recursion_misses` (5.12+). A timer's program (`interval:`) skipped that way is counted
//! nowhere by the kernel, so its runs are counted in the program (CONTROL_MAP's slots) and set
//! against the time elapsed. Each skipped run is reported once, per probe, never silently.

use crate::output::Output;
use sonde_kernel::object::prog::Program;

/// Where a probe's count comes from: the kernel, or a test's numbers.
pub trait MissCounter {
    /// Runs skipped so far; None when the kernel does not count them (before 5.12).
    fn skipped(&self) -> Option<u64>;
}

impl MissCounter for Program {
    fn skipped(&self) -> Option<u64> {
        // A failed read is not a miss; the next report reads again.
        self.recursion_misses().ok().flatten()
    }
}

/// A probe's program and, for an `interval:` probe, its runs against the periods elapsed.
pub struct ProbeRuns<'a> {
    pub program: &'a Program,
    /// (runs counted, whole periods elapsed since it was attached).
    pub timer: Option<(u64, u64)>,
}

impl MissCounter for ProbeRuns<'_> {
    fn skipped(&self) -> Option<u64> {
        let kernel = self.program.skipped();
        let timer = self.timer.map(|(runs, periods)| timer_shortfall(runs, periods));
        match (kernel, timer) {
            (None, None) => None,
            (k, t) => Some(k.unwrap_or(0) + t.unwrap_or(0)),
        }
    }
}

/// Runs a timer missed: whole periods elapsed less the runs seen. The periods are counted from
/// after the attach returned (the event was enabled a little earlier), so a timer that ran
/// every time never shows a shortfall; one that fired just before the count was read may show
/// one run more than the periods, which is not a miss either.
pub fn timer_shortfall(runs: u64, periods: u64) -> u64 {
    periods.saturating_sub(runs)
}

/// Each `interval:` program's runs so far, from CONTROL_MAP's value (`control`), and the whole
/// periods `elapsed` holds, by program; None for other programs.
pub fn timer_runs(
    compiled: &sonde_compile::Compiled,
    control: &[u8],
    elapsed: std::time::Duration,
) -> Vec<Option<(u64, u64)>> {
    use sonde_compile::provider::AttachPoint;
    compiled
        .programs
        .iter()
        .map(|p| {
            let slot = p.run_slot?;
            let AttachPoint::Interval { period_ns } = p.sites.first()?.point else { return None };
            let bytes = control.get(8 * slot..8 * slot + 8)?;
            let runs = u64::from_le_bytes(bytes.try_into().ok()?);
            Some((runs, elapsed.as_nanos() as u64 / period_ns.max(1)))
        })
        .collect()
}

/// The probes' names and how many skipped runs each has had reported.
pub struct Misses {
    reported: Vec<(String, u64)>,
}

impl Misses {
    pub fn new(names: impl IntoIterator<Item = String>) -> Misses {
        Misses { reported: names.into_iter().map(|n| (n, 0)).collect() }
    }

    /// Hands `say` each probe whose count grew since the last report, with the growth;
    /// `counters` are in the order of the names.
    pub fn report<C: MissCounter>(&mut self, counters: &[C], mut say: impl FnMut(&str, u64)) {
        for ((name, seen), c) in self.reported.iter_mut().zip(counters) {
            if let Some(n) = c.skipped().filter(|&n| n > *seen) {
                say(name, n - *seen);
                *seen = n;
            }
        }
    }

    /// [`Misses::report`] through the run's writer.
    pub fn write<C: MissCounter>(&mut self, counters: &[C], output: &mut Output) {
        self.report(counters, |probe, runs| output.warn_missed(probe, runs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Fake(Cell<Option<u64>>);
    impl MissCounter for Fake {
        fn skipped(&self) -> Option<u64> {
            self.0.get()
        }
    }

    fn said(m: &mut Misses, c: &[Fake]) -> Vec<(String, u64)> {
        let mut v = Vec::new();
        m.report(c, |p, n| v.push((p.to_string(), n)));
        v
    }

    #[test]
    fn a_timer_that_ran_every_period_missed_nothing() {
        assert_eq!(timer_shortfall(89, 89), 0);
        assert_eq!(timer_shortfall(90, 89), 0);
        assert_eq!(timer_shortfall(81, 89), 8);
    }

    #[test]
    fn each_skipped_run_is_reported_once_per_probe() {
        let mut m = Misses::new(["a".to_string(), "b".to_string(), "c".to_string()]);
        let c = [Fake(Cell::new(Some(0))), Fake(Cell::new(Some(5))), Fake(Cell::new(None))];
        assert_eq!(said(&mut m, &c), [("b".to_string(), 5)]);
        assert_eq!(said(&mut m, &c), []);
        c[0].0.set(Some(2));
        c[1].0.set(Some(6));
        assert_eq!(said(&mut m, &c), [("a".to_string(), 2), ("b".to_string(), 1)]);
        // A kernel that stops answering is not a miss, and the next answer counts from before.
        c[1].0.set(None);
        assert_eq!(said(&mut m, &c), []);
        c[1].0.set(Some(9));
        assert_eq!(said(&mut m, &c), [("b".to_string(), 3)]);
    }
}
