//! An LRU map's evictions, which the kernel does not count: the program counts the elements it
//! inserts less those it deletes (as for `len(@m)`), so the elements counted but no longer in
//! the map were evicted. A scrape reads the count, then the map; inserts meanwhile can make
//! one difference smaller than the last, so the largest seen is kept, and each
//! `clear()` (which zeroes the count) adds it to what came before.

/// One map's evictions over the scrapes of one set of programs.
#[derive(Default)]
pub struct Evictions {
    /// The map's `clear()`s seen by the last scrape.
    clears: u64,
    /// Evictions before the last `clear()`.
    before: u64,
    /// The largest difference seen since the last `clear()`.
    since: u64,
}

impl Evictions {
    /// The evictions so far, given the `clears` done, the elements `counted` by the program
    /// (read first) and those `held` in the map (read after).
    pub fn observe(&mut self, clears: u64, counted: u64, held: u64) -> u64 {
        if clears != self.clears {
            self.before += self.since;
            self.since = 0;
            self.clears = clears;
        }
        self.since = self.since.max(counted.saturating_sub(held));
        self.before + self.since
    }
}

#[cfg(test)]
mod tests {
    use super::Evictions;

    #[test]
    fn counted_less_held_never_goes_down() {
        let mut e = Evictions::default();
        assert_eq!(e.observe(0, 100, 100), 0);
        assert_eq!(e.observe(0, 150, 100), 50);
        // An insert seen by the map read but not by the count.
        assert_eq!(e.observe(0, 160, 111), 50);
        // Deletes take from both.
        assert_eq!(e.observe(0, 140, 80), 60);
    }

    #[test]
    fn a_clear_keeps_what_came_before() {
        let mut e = Evictions::default();
        assert_eq!(e.observe(0, 150, 100), 50);
        assert_eq!(e.observe(1, 0, 0), 50);
        assert_eq!(e.observe(1, 130, 100), 80);
    }
}
