//! Cardinality: under `sonde serve` every exported map with keys is sized before it is
//! compiled. A map the program declared (`let @m = lruhash(N)`) keeps its kind, and its size
//! unless a `// metric: max=N` gives one; any other holds `--max-series` elements, or its
//! `max=N`. Whether it is an LRU
//! map is decided by its key expressions (sonde-serve's `bound`): keys bounded within the size
//! (a CPU, a probe, `x % 16`) keep a plain hash, which cannot fill; a key without bound (a pid,
//! a tid, a comm) makes it an LRU map, so the least recently updated series make room instead
//! of every new key being lost once it is full.
//!
//! Every LRU map is counted as `len(@m)` counts (inserts less deletes, in the program), so the
//! scrape can tell evictions; a plain hash's refused inserts are counted by the program already
//! (sonde-compile's `lower::full`). A map `len()` reads stays a plain hash, since an eviction
//! would not move its count.

use sonde_compile::tir::{AggFunc, MapInfo, MapValue, TProgram};
use sonde_serve::bound::{self, Host};
use sonde_serve::source::MapSource;

/// The default `--max-series`: the language's own map size.
pub const DEFAULT_MAX_SERIES: u32 = sonde_compile::lower::MAP_ENTRIES;

/// Sizes the exported maps of `typed`: (user map index, what its text says).
pub fn bound<'a>(
    typed: &mut TProgram,
    exported: impl IntoIterator<Item = (usize, Option<&'a MapSource>)>,
    max_series: u32,
) {
    let host = host(typed);
    for (i, source) in exported {
        size(&mut typed.maps[i], source, max_series, host);
    }
}

fn size(info: &mut MapInfo, source: Option<&MapSource>, max_series: u32, host: Host) {
    if info.single_key() {
        return;
    }
    let max_directive = source.and_then(|s| s.directive.max);
    if info.max_entries.is_some() {
        // Its own kind, and size unless `max=N` says otherwise; an LRU map is counted for its
        // evictions.
        info.max_entries = max_directive.or(info.max_entries);
        info.counted |= info.lru;
        return;
    }
    let max = max_directive.unwrap_or(max_series);
    info.max_entries = Some(max);
    if info.counted {
        return;
    }
    let keys = source.and_then(|s| bound::keys(&s.key_bounds, host));
    let elements = keys.and_then(|k| k.checked_mul(buckets(info)));
    if elements.is_none_or(|n| n > u64::from(max)) {
        info.lru = true;
        info.counted = true;
    }
}

/// Elements one key takes: one per bucket for hist() and lhist().
fn buckets(info: &MapInfo) -> u64 {
    match info.value {
        // Negative values, zero, and 2^k for k in 0..64.
        MapValue::Agg { func: AggFunc::Quantize { bits }, .. } => ((65 - bits as u64) << bits) + 2,
        // Below min, the steps, and from max up.
        MapValue::Agg { func: AggFunc::Lhist { min, max, step }, .. } => {
            (max.saturating_sub(min) / step.max(1)) as u64 + 2
        }
        _ => 1,
    }
}

/// What `cpu` and `probe` can be here: the possible CPUs, the program's attach points.
fn host(typed: &TProgram) -> Host {
    let cpus = sonde_kernel::host::cpus::possible_cpus().map_or(u64::MAX, |c| c.len() as u64);
    let probes = typed.probes.iter().map(|p| p.sites.len() as u64).sum();
    Host { cpus, probes }
}
