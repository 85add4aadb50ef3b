//! bpftrace's `--mode bench`: each `bench:NAME` probe run by hand (BPF_PROG_TEST_RUN), more runs
//! each round until a round's runs add up to a millisecond (bpftrace's rule), and its average
//! time a run reported from the kernel's own run statistics (BPF_ENABLE_STATS), which time the
//! program alone, not the system call around it.

use crate::error::Failure;
use sonde_kernel::object::prog::{enable_run_stats, Program};

/// Runs each of `benches` (name, program) in order and reports it through
/// `report(index, average_ns, runs)`. `discard` empties the ring buffer of what a round printed:
/// as in bpftrace, a bench's own output is not shown.
pub fn run(
    benches: &[(String, &Program)],
    discard: &mut dyn FnMut() -> Result<(), Failure>,
    report: &mut dyn FnMut(usize, u64, u64),
) -> Result<(), Failure> {
    let _stats = enable_run_stats().map_err(Failure::kernel)?;
    for (index, (name, program)) in benches.iter().enumerate() {
        let mut runs = 1;
        loop {
            let (count, ns) = round(program, runs)?;
            discard()?;
            if count == 0 {
                return Err(Failure::Setup(format!(
                    "the kernel counted none of bench:{name}'s runs: timing a bench needs its run \
                     statistics (BPF_ENABLE_STATS, Linux 5.8+)"
                )));
            }
            match more_runs(runs, ns) {
                Some(next) => runs = next,
                None => {
                    report(index, ns / count, runs);
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Runs `program` `runs` times: the runs the kernel counted and their time in ns.
fn round(program: &Program, runs: u64) -> Result<(u64, u64), Failure> {
    let (count0, ns0) = program.run_stats().map_err(Failure::kernel)?;
    for _ in 0..runs {
        program.test_run(&[]).map_err(Failure::kernel)?;
    }
    let (count1, ns1) = program.run_stats().map_err(Failure::kernel)?;
    Ok((count1.saturating_sub(count0), ns1.saturating_sub(ns0)))
}

/// The runs of the next round after `runs` took `total_ns`, or None once they took a
/// millisecond: bpftrace's steps.
fn more_runs(runs: u64, total_ns: u64) -> Option<u64> {
    let factor = match total_ns {
        0..1_000 => 1000,
        1_000..10_000 => 100,
        10_000..100_000 => 10,
        100_000..1_000_000 => 2,
        _ => return None,
    };
    Some(runs.saturating_mul(factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_grow_by_bpftraces_steps_until_a_millisecond() {
        assert_eq!(more_runs(1, 50), Some(1000));
        assert_eq!(more_runs(1000, 5_000), Some(100_000));
        assert_eq!(more_runs(10, 50_000), Some(100));
        assert_eq!(more_runs(100, 500_000), Some(200));
        assert_eq!(more_runs(200, 1_000_000), None);
    }
}
