//! What the verifier says of a program it accepted when asked for statistics only
//! (`log_level` 4, BPF_LOG_STATS: a few lines, no per-instruction log), read back as numbers:
//! what a program costs at load time, for `sonde -d`.

/// BPF_LOG_STATS.
pub const LOG_LEVEL_STATS: u32 = 4;

/// Bytes enough for the statistics: a few lines, and a line for each subprogram and each
/// loop's states the verifier reports on some kernels.
pub const LOG_BYTES: usize = 64 << 10;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifierStats {
    /// Instructions the verifier walked, every path counted (`processed N insns`).
    pub processed: u64,
    /// States it kept to prune paths (`total_states`).
    pub states: u64,
    /// Its own time, in microseconds (`verification time N usec`; none before 5.3).
    pub time_us: Option<u64>,
    /// Stack bytes the program and each subprogram use (`stack depth 312+0`).
    pub stack: u64,
}

impl VerifierStats {
    /// The numbers in the statistics log `text`; None when it has no `processed` line.
    pub fn parse(text: &str) -> Option<VerifierStats> {
        let processed = number_after(text, "processed ")?;
        let states = number_after(text, "total_states ").unwrap_or(0);
        let time_us = number_after(text, "verification time ");
        let stack = text
            .split_once("stack depth ")
            .map(|(_, rest)| {
                let depths = rest.split_whitespace().next().unwrap_or("");
                depths.split('+').filter_map(|d| d.parse::<u64>().ok()).sum()
            })
            .unwrap_or(0);
        Some(VerifierStats { processed, states, time_us, stack })
    }
}

/// The decimal number just after the first `label` in `text`.
fn number_after(text: &str, label: &str) -> Option<u64> {
    let (_, rest) = text.split_once(label)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_numbers_of_a_6x_log() {
        let log = "func#0 @0\nverification time 2712 usec\nstack depth 312+24\n\
                   processed 1635 insns (limit 1000000) max_states_per_insn 4 total_states 120 \
                   peak_states 118 mark_read 40\n";
        let s = VerifierStats::parse(log).unwrap();
        assert_eq!(
            s,
            VerifierStats { processed: 1635, states: 120, time_us: Some(2712), stack: 336 }
        );
    }

    #[test]
    fn reads_a_5_10_log_without_its_time() {
        let log = "processed 67 insns (limit 1000000) max_states_per_insn 0 total_states 3 \
                   peak_states 3 mark_read 2\n";
        let s = VerifierStats::parse(log).unwrap();
        assert_eq!((s.processed, s.states, s.time_us, s.stack), (67, 3, None, 0));
        assert_eq!(VerifierStats::parse(""), None);
    }
}
