//! BEGIN and END: run once, before every other probe and after the last; bpftrace's
//! `self:signal:SIGUSR1`: run each time sonde receives the signal.

use crate::model::site::{AttachPoint, ProgKind, Site};

pub fn expand(provider: &str, definition: &str) -> Result<Vec<Site>, String> {
    if !definition.is_empty() {
        return Err(format!("`{}` takes no definition", provider));
    }
    let begin = provider.eq_ignore_ascii_case("BEGIN");
    let point = if begin { AttachPoint::Begin } else { AttachPoint::End };
    Ok(vec![Site::new(point, ProgKind::RawTracepoint)])
}

/// bpftrace's `bench:NAME`, run by `--mode bench`.
pub fn expand_bench(definition: &str) -> Result<Vec<Site>, String> {
    if definition.is_empty() || definition.contains(':') {
        return Err(format!("`bench:` takes a name, as in `bench:lookup`, not `{}`", definition));
    }
    let point = AttachPoint::Bench { name: definition.into() };
    Ok(vec![Site::new(point, ProgKind::RawTracepoint)])
}

/// `self:signal:SIGUSR1` (the one signal sonde leaves to the program; without such a probe,
/// SIGUSR1 prints the maps).
pub fn expand_self(definition: &str) -> Result<Vec<Site>, String> {
    match definition.split_once(':') {
        Some(("signal", "SIGUSR1")) => {
            let point = AttachPoint::Signal { name: "SIGUSR1".into() };
            Ok(vec![Site::new(point, ProgKind::RawTracepoint)])
        }
        Some(("signal", other)) => Err(format!(
            "`self:signal:` takes SIGUSR1, the signal sonde leaves to programs, not `{}`",
            other
        )),
        _ => Err(format!("`self:` takes `signal:SIGUSR1`, not `{}`", definition)),
    }
}
