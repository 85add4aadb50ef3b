//! `profile:hz:99` / `profile:99` / `profile:ms:10` (bpftrace) and `profile:99hz` (ply):
//! sampling on every CPU; ply's `profile:C:99hz` samples CPU C only. And `software:EVENT[:COUNT]`
//! (page-faults, context-switches, ...) on every CPU.

use crate::model::site::{AttachPoint, ProgKind, Site};

/// ply's bounds for its `Nhz` spellings (`provider/profile.c`).
const PLY_MAX_HZ: u64 = 1000;

pub fn expand_profile(definition: &str) -> Result<Vec<Site>, String> {
    let (cpu, rate) = match definition.split_once(':') {
        Some((c, rate)) if !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()) => {
            let cpu = c.parse::<u32>().map_err(|_| format!("`{}` is not a CPU number", c))?;
            (Some(cpu), rate)
        }
        _ => (None, definition),
    };
    let hz = parse_rate(rate)?;
    if (cpu.is_some() || rate.ends_with("hz")) && hz > PLY_MAX_HZ {
        return Err(format!(
            "`{}` samples {} times a second: ply's `profile:[CPU:]Nhz` takes 1 to {} (`profile:hz:N` \
             has no such bound)",
            definition, hz, PLY_MAX_HZ
        ));
    }
    Ok(vec![Site::new(AttachPoint::Profile { hz, cpu }, ProgKind::PerfEvent)])
}

/// Samples a second: `hz:99`, `99`, `99hz`, or a period `s:1`, `ms:10`, `us:100`.
fn parse_rate(def: &str) -> Result<u64, String> {
    let bad = || {
        format!(
            "`{}` is not a sampling rate: use `profile:hz:99`, `profile:99hz`, `profile:ms:10` \
             or `profile:CPU:99hz`",
            def
        )
    };
    let (unit, num) = match def.split_once(':') {
        Some((u, n)) => (u, n),
        None => {
            let split = def.find(|c: char| !c.is_ascii_digit()).unwrap_or(def.len());
            (&def[split..], &def[..split])
        }
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    if n == 0 {
        return Err(bad());
    }
    let hz = match unit {
        "" | "hz" => n,
        "s" => 1_000_000_000 / n.saturating_mul(1_000_000_000).max(1),
        "ms" => 1_000 / n,
        "us" => 1_000_000 / n,
        _ => return Err(bad()),
    };
    if hz == 0 {
        return Err(format!(
            "`{}` samples less than once a second: use interval: for slow timers",
            def
        ));
    }
    Ok(hz)
}

/// Software events by the names perf and bpftrace use, with their default sampling period.
pub const SOFTWARE_EVENTS: &[(&str, &str, u64)] = &[
    ("cpu-clock", "cpu", 1_000_000),
    ("task-clock", "", 1_000_000),
    ("page-faults", "faults", 100),
    ("context-switches", "cs", 1_000),
    ("cpu-migrations", "", 1),
    ("minor-faults", "", 100),
    ("major-faults", "", 1),
    ("alignment-faults", "", 1),
    ("emulation-faults", "", 1),
    ("dummy", "", 1),
];

pub fn expand_software(definition: &str) -> Result<Vec<Site>, String> {
    let events = SOFTWARE_EVENTS.iter().map(|&(n, alias, default)| (n, alias, default));
    let (event, _, period) = perf_event(definition, "software", events)?;
    Ok(vec![Site::new(
        AttachPoint::Software { event: event.to_string(), period },
        ProgKind::PerfEvent,
    )])
}

/// `EVENT[:COUNT]` of a perf event provider (`kind`: software, hardware): the event of
/// `events` (name, alias, default period) named or aliased, its index, and its period, COUNT or
/// the default.
pub(super) fn perf_event<'e>(
    definition: &str,
    kind: &str,
    events: impl Iterator<Item = (&'e str, &'e str, u64)> + Clone,
) -> Result<(&'e str, usize, u64), String> {
    let (name, count) = match definition.split_once(':') {
        Some((n, c)) => (n, Some(c)),
        None => (definition, None),
    };
    let found = events
        .clone()
        .enumerate()
        .find(|(_, (n, alias, _))| *n == name || (!alias.is_empty() && *alias == name));
    let Some((index, (event, _, default))) = found else {
        let names: Vec<&str> = events.map(|e| e.0).collect();
        return Err(format!("unknown {} event `{}`: one of {}", kind, name, names.join(", ")));
    };
    let period = match count {
        None => default,
        // bpftrace's spellings of a count: `1000000` and `1e6`.
        Some(c) => c
            .parse::<u64>()
            .ok()
            .or_else(|| sonde_syntax::lexer::exponent(c).flatten())
            .filter(|&p| p > 0)
            .ok_or_else(|| format!("`{}` is not a count of events", c))?,
    };
    Ok((event, index, period))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("hz:99"), Ok(99));
        assert_eq!(parse_rate("99"), Ok(99));
        assert_eq!(parse_rate("49hz"), Ok(49));
        assert_eq!(parse_rate("ms:10"), Ok(100));
        assert_eq!(parse_rate("us:100"), Ok(10_000));
        assert!(parse_rate("s:2").is_err());
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("x").is_err());
    }

    #[test]
    fn ply_spellings() {
        let point = |d: &str| expand_profile(d).map(|s| s[0].point.clone());
        assert_eq!(point("99hz"), Ok(AttachPoint::Profile { hz: 99, cpu: None }));
        assert_eq!(point("1:99hz"), Ok(AttachPoint::Profile { hz: 99, cpu: Some(1) }));
        assert_eq!(point("0:1000hz"), Ok(AttachPoint::Profile { hz: 1000, cpu: Some(0) }));
        // bpftrace's spellings keep their meaning, without ply's bound.
        assert_eq!(point("hz:99"), Ok(AttachPoint::Profile { hz: 99, cpu: None }));
        assert_eq!(point("ms:10"), Ok(AttachPoint::Profile { hz: 100, cpu: None }));
        assert_eq!(point("hz:4000"), Ok(AttachPoint::Profile { hz: 4000, cpu: None }));
        assert!(point("1001hz").unwrap_err().contains("1 to 1000"));
        assert!(point("2:5000hz").unwrap_err().contains("1 to 1000"));
        assert!(point("1:0hz").is_err());
        assert!(point("1:").is_err());
        assert!(point("99999999999:99hz").unwrap_err().contains("not a CPU number"));
    }

    #[test]
    fn software() {
        let s = expand_software("faults").unwrap();
        assert_eq!(s[0].point, AttachPoint::Software { event: "page-faults".into(), period: 100 });
        let s = expand_software("cs:10").unwrap();
        assert_eq!(
            s[0].point,
            AttachPoint::Software { event: "context-switches".into(), period: 10 }
        );
        assert!(expand_software("nosuch").is_err());
        let s = expand_software("cpu:1e6").unwrap();
        assert_eq!(
            s[0].point,
            AttachPoint::Software { event: "cpu-clock".into(), period: 1_000_000 }
        );
        assert!(expand_software("cpu:0e6").is_err());
        assert!(expand_software("cpu:9e99").is_err());
    }
}
