//! bpftrace's `--probe-filter REGEX`: only the probes whose names the pattern matches (searched
//! anywhere in the name, as bpftrace's `std::regex_search`) are loaded and attached; BEGIN, END
//! and `self:signal` probes always stay. A probe's name is `probe`'s: the spec as written
//! (`interval:ms:200`), else sonde's spelling of it.

mod regex;

use crate::error::Failure;
use sonde_compile::provider::{AttachPoint, Site};
use sonde_compile::Compiled;

/// Keeps the probes of `compiled` that `pattern` matches (and those run by hand).
pub fn apply(compiled: &mut Compiled, pattern: &str) -> Result<(), Failure> {
    let re = regex::Regex::new(pattern).map_err(|why| {
        Failure::Usage(format!(
            "--probe-filter: `{}` is not a regular expression: {}",
            pattern, why
        ))
    })?;
    let kept = |s: &Site| by_hand(s) || re.is_match(&name(s));
    let had = compiled.programs.iter().flat_map(|p| &p.sites).any(|s| !by_hand(s));
    for p in &mut compiled.programs {
        p.sites.retain(kept);
    }
    compiled.programs.retain(|p| !p.sites.is_empty());
    let left = compiled.programs.iter().flat_map(|p| &p.sites).any(|s| !by_hand(s));
    if had && !left {
        let why = format!("--probe-filter: `{}` matches none of the program's probes", pattern);
        return Err(Failure::Usage(why));
    }
    Ok(())
}

fn by_hand(s: &Site) -> bool {
    matches!(
        s.point,
        AttachPoint::Begin
            | AttachPoint::End
            | AttachPoint::Signal { .. }
            | AttachPoint::Bench { .. }
    )
}

fn name(s: &Site) -> String {
    s.written.as_deref().map_or_else(|| s.point.describe(), str::to_string)
}
