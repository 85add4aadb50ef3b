//! `interval:1`, `interval:500ms`, `interval:s:1`: a timer on one CPU.

use crate::model::site::{AttachPoint, ProgKind, Site};

pub fn expand(definition: &str) -> Result<Vec<Site>, String> {
    let period_ns = parse_period(definition)?;
    Ok(vec![Site::new(AttachPoint::Interval { period_ns }, ProgKind::PerfEvent)])
}

/// The period in nanoseconds; the unit defaults to seconds.
pub fn parse_period(def: &str) -> Result<u64, String> {
    // bpftrace spells the unit first (`interval:s:1`), ply after the number (`interval:1s`).
    let (num, unit) = match def.split_once(':') {
        Some((unit, num)) => (num, unit),
        None => {
            let split = def.find(|c: char| !c.is_ascii_digit()).unwrap_or(def.len());
            (&def[..split], &def[split..])
        }
    };
    let n: u64 = num.parse().map_err(|_| {
        format!(
            "`{}` is not an interval: expected a number and an optional unit (m, s, ms, us, ns)",
            def
        )
    })?;
    let scale = match unit {
        "" | "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "ms" => 1_000_000,
        "us" => 1_000,
        "ns" => 1,
        "hz" => {
            if n == 0 {
                return Err("an interval of 0 hz never fires".into());
            }
            return Ok(1_000_000_000 / n);
        }
        _ => return Err(format!("unknown interval unit `{}`: use m, s, ms, us or ns", unit)),
    };
    match n.checked_mul(scale) {
        Some(0) => Err("an interval must be longer than 0".into()),
        Some(p) => Ok(p),
        None => Err(format!("interval `{}` is too long", def)),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_period;
    #[test]
    fn units() {
        assert_eq!(parse_period("1"), Ok(1_000_000_000));
        assert_eq!(parse_period("500ms"), Ok(500_000_000));
        assert_eq!(parse_period("s:1"), Ok(1_000_000_000));
        assert_eq!(parse_period("ms:100"), Ok(100_000_000));
        assert_eq!(parse_period("2m"), Ok(120_000_000_000));
        assert_eq!(parse_period("10us"), Ok(10_000));
        assert_eq!(parse_period("7ns"), Ok(7));
        assert!(parse_period("1d").is_err());
        assert!(parse_period("0").is_err());
        assert!(parse_period("x").is_err());
    }
}
