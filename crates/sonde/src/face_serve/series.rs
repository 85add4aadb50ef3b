//! Cardinality: under `sonde serve` every exported map with keys that the program did not
//! size itself (`let @m = lruhash(N)`) becomes an LRU map of `--max-series` elements, so a key
//! without bound (a pid, a tid, a comm) evicts the least recently updated series instead of
//! filling the map and losing every new key from then on.

use sonde_compile::abi::FIRST_USER_MAP;
use sonde_compile::lower::MapKind;
use sonde_compile::Compiled;

/// The default `--max-series`: the language's own map size.
pub const DEFAULT_MAX_SERIES: u32 = sonde_compile::lower::MAP_ENTRIES;

/// Resizes the exported user maps `exported` of `c` (indices into `c.user_maps`) to `max`
/// elements and makes them LRU maps. A map counted by `len(@m)` stays a plain hash, since
/// an eviction would not move its counter.
pub fn bound(c: &mut Compiled, exported: impl IntoIterator<Item = usize>, max: u32) {
    for i in exported {
        let info = &c.user_maps[i];
        if info.max_entries.is_some() || info.single_key() {
            continue;
        }
        let counted = info.counted;
        let def = &mut c.maps[FIRST_USER_MAP + i];
        def.max_entries = max;
        if !counted {
            def.kind = match def.kind {
                MapKind::Hash => MapKind::LruHash,
                MapKind::PerCpuHash => MapKind::LruPerCpuHash,
                k => k,
            };
        }
    }
}
