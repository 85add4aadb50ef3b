//! Updates the kernel refused because a map was full: the programs count them per user map
//! (sonde-compile's `lower::full`), and each growth is reported once, through the run's writer,
//! at the end and, with `-d`, each second, as skipped runs are (`misses`).

use crate::misses::{MissCounter, Misses};
use crate::output::Output;
use sonde_compile::abi::FIRST_USER_MAP;
use sonde_compile::tir::MapInfo;
use sonde_compile::Compiled;
use sonde_kernel::object::map::Map;

pub struct FullMaps<'a> {
    compiled: &'a Compiled,
    maps: &'a [Map],
    reported: Misses,
}

/// One map's count of refused updates, as read.
struct Dropped(Option<u64>);

impl MissCounter for Dropped {
    fn skipped(&self) -> Option<u64> {
        self.0
    }
}

impl<'a> FullMaps<'a> {
    pub fn new(compiled: &'a Compiled, maps: &'a [Map]) -> FullMaps<'a> {
        let names = compiled.user_maps.iter().map(|m| m.name.clone());
        FullMaps { compiled, maps, reported: Misses::new(names) }
    }

    /// Hands `say` each map whose count grew since the last report: its name, the growth and
    /// its size. A failed read is no drop; the next report reads again.
    pub fn report(&mut self, mut say: impl FnMut(&str, u64, u32)) {
        let Some(counts) = refused(self.compiled, self.maps) else { return };
        let counts: Vec<Dropped> = counts.into_iter().map(Dropped).collect();
        let sizes: Vec<u32> = (0..counts.len())
            .map(|m| self.compiled.maps.get(FIRST_USER_MAP + m).map_or(0, |d| d.max_entries))
            .collect();
        let names: Vec<&str> = self.compiled.user_maps.iter().map(|m| m.name.as_str()).collect();
        self.reported.report(&counts, |name, n| {
            let size = names.iter().position(|m| *m == name).map_or(0, |m| sizes[m]);
            say(name, n, size)
        });
    }

    /// [`FullMaps::report`] through the run's writer.
    pub fn write(&mut self, output: &mut Output) {
        self.report(|map, dropped, size| output.warn_map_full(map, dropped, size));
    }
}

/// Each user map's updates refused so far (None for a map that cannot fill, or when the count
/// cannot be read); None when no map of the program can fill.
pub fn refused(compiled: &Compiled, maps: &[Map]) -> Option<Vec<Option<u64>>> {
    let i = compiled.dropped_map?;
    let value = maps[i].lookup(&0u32.to_le_bytes()).ok().flatten().unwrap_or_default();
    let fills = |m: &MapInfo| sonde_compile::lower::full::can_fill(m);
    let each = compiled.user_maps.iter().enumerate();
    Some(each.map(|(m, info)| count(&value, m).filter(|_| fills(info))).collect())
}

/// User map `m`'s count in the `dropped` array's value.
fn count(value: &[u8], m: usize) -> Option<u64> {
    let bytes = value.get(8 * m..8 * m + 8)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn each_map_has_its_u64() {
        let value: Vec<u8> = [0u64, 95_904, 3].iter().flat_map(|n| n.to_le_bytes()).collect();
        assert_eq!(count(&value, 1), Some(95_904));
        assert_eq!(count(&value, 2), Some(3));
        assert_eq!(count(&value, 3), None);
    }
}
