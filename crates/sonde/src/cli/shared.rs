//! What every face spells the same way: JSON (`--json`, `--format json`), durations, the command
//! after `--`.

use crate::child::Command;
use crate::error::Failure;
use clap::{Args, ValueEnum};

/// What a face writes: its text, or one JSON record a line (docs/json.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

/// `--json` or `--format json`; faces where `-f` is free add it as the short of `--format`
/// (`-f json`, the language's spelling), those whose anchor owns it (strace's follow, surftrace's
/// file) do not.
#[derive(Args, Debug, Default)]
pub struct JsonFormat {
    /// One JSON record a line (docs/json.md); the same as --format json.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// text, or json: one JSON record a line (docs/json.md).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<TextOrJson>,
}

impl JsonFormat {
    pub fn json(&self) -> bool {
        self.json || self.format == Some(TextOrJson::Json)
    }
}

/// The command to start: `-c LINE` as typed (split on blanks, or given to `sh -c` when it holds
/// shell syntax), or the words after `--` exactly as typed. One target at most: a command, or
/// `-p PID` (clap keeps `-c` and `-p` apart).
pub fn command(
    pid: Option<u32>,
    line: Option<&String>,
    words: &[String],
) -> Result<Option<Command>, Failure> {
    if line.is_some() && !words.is_empty() {
        return Err(Failure::Usage(
            "give the command once: -c LINE or `-- CMD ARGS...`, not both".into(),
        ));
    }
    if pid.is_some() && !words.is_empty() {
        return Err(Failure::Usage(
            "-p PID and a command after `--` are two targets: give one".into(),
        ));
    }
    Ok(match (line, words.is_empty()) {
        (Some(line), _) => Some(Command::Line(line.clone())),
        (None, false) => Some(Command::Argv(words.to_vec())),
        (None, true) => None,
    })
}

const UNITS: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];

/// A duration in nanoseconds: a number with a unit (`10us`, `2ms`, `1.5s`), or a bare number in
/// `bare` nanoseconds.
fn duration(text: &str, bare: f64, bare_name: &str) -> Result<u64, String> {
    let (num, unit) = UNITS
        .iter()
        .find_map(|(u, m)| text.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((text, bare));
    match num.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 0.0 && n * unit < u64::MAX as f64 => Ok((n * unit) as u64),
        _ => Err(format!(
            "`{text}` is not a duration: write a number with ns, us, ms or s (a bare number is {bare_name})"
        )),
    }
}

/// How long a run lasts (`--duration`): bare numbers are seconds, as funcgraph's `-d` and
/// timeout(1) take them.
pub fn run_time(text: &str) -> Result<u64, String> {
    duration(text, 1e9, "seconds")
}

/// The shortest call shown (`--min-duration`): bare numbers are milliseconds, as perf trace's
/// `--duration` takes them.
pub fn call_time(text: &str) -> Result<u64, String> {
    duration(text, 1e6, "milliseconds")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_a_default_unit() {
        assert_eq!(run_time("5"), Ok(5_000_000_000));
        assert_eq!(run_time("500ms"), Ok(500_000_000));
        assert_eq!(run_time("1.5s"), Ok(1_500_000_000));
        assert_eq!(call_time("2"), Ok(2_000_000));
        assert_eq!(call_time("10us"), Ok(10_000));
        assert_eq!(call_time("0.5"), Ok(500_000));
        assert_eq!(call_time("7ns"), Ok(7));
        for bad in ["", "-1", "nan", "1h", "ms", "inf"] {
            assert!(run_time(bad).is_err(), "{bad}");
        }
        let e = call_time("x").unwrap_err();
        assert_eq!(e, "`x` is not a duration: write a number with ns, us, ms or s (a bare number is milliseconds)");
    }
}
