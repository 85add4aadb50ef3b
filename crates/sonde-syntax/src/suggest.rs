//! "Did you mean ...?" hints: the one near-name search every face and provider uses.
//!
//! Candidate lists are large (60,000 BTF functions, 200,000 kernel symbols) and the wanted name
//! is whatever the user typed, so every comparison is bounded: a hint is at most `MAX_EDITS`
//! edits away, candidates whose length or letters already differ by more are skipped without
//! the dynamic-programming table, and the table itself is a band that stops as soon as every
//! cell in a row is over the bound. A 20,000-character typo costs one length check per name.

/// No hint is further than this from what was typed: further off, it is not a typo.
pub const MAX_EDITS: usize = 8;

/// Edit distance between two strings, in characters: insertions, deletions, substitutions and
/// swaps of two adjacent characters each cost 1 (so `prnitf` is 1 away from `printf`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    banded(&a, &b, a.len().max(b.len())).unwrap_or(usize::MAX)
}

/// The edit distance if it is at most `limit`, else `None`; costs O(len × limit) at worst and
/// usually much less.
pub fn distance_within(a: &str, b: &str, limit: usize) -> Option<usize> {
    let mut scratch = Scratch::default();
    scratch.set_wanted(a);
    scratch.within(b, limit)
}

/// The candidate `name` was most likely a misspelling of: an exact match, else one differing only
/// in ASCII case, else the nearest within a third of the name's length (at least 1, at most
/// `MAX_EDITS`). Ties go to the earliest candidate.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut limit = (name.chars().count().max(3) / 3).min(MAX_EDITS);
    let mut scratch = Scratch::default();
    scratch.set_wanted(name);
    let mut case_match = None;
    let mut best = None;
    for c in candidates {
        if c == name {
            return Some(c);
        }
        if case_match.is_none() && c.eq_ignore_ascii_case(name) {
            case_match = Some(c);
        }
        if let Some(d) = scratch.within(c, limit) {
            best = Some(c);
            // Only a strictly nearer later candidate can replace this one.
            limit = d.saturating_sub(1);
        }
    }
    case_match.or(best)
}

/// Up to `n` names closest to `wanted`, nearest first (then alphabetically), within half the
/// name's length (at least 3, at most `MAX_EDITS`).
pub fn nearest<'a>(
    wanted: &str,
    names: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<String> {
    let mut limit = (wanted.chars().count() / 2).clamp(3, MAX_EDITS);
    let mut scratch = Scratch::default();
    scratch.set_wanted(wanted);
    // The best `n` so far, sorted; once full, only names at most as far as its last can enter.
    let mut best: Vec<(usize, &str)> = Vec::with_capacity(n + 1);
    for name in names {
        if name.is_empty() || n == 0 {
            continue;
        }
        let Some(d) = scratch.within(name, limit) else { continue };
        let entry = (d, name);
        if let Err(at) = best.binary_search(&entry) {
            best.insert(at, entry);
            best.truncate(n);
            if best.len() == n {
                limit = best[n - 1].0;
            }
        }
    }
    best.into_iter().map(|(_, s)| s.to_string()).collect()
}

/// Buffers reused across candidates, so a search over 200,000 names allocates nothing per name.
struct Scratch {
    wanted: Vec<char>,
    /// Letter counts of `wanted`, folded into 64 buckets (a lower bound on the distance).
    wanted_bag: [i32; 64],
    cand: Vec<char>,
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch { wanted: Vec::new(), wanted_bag: [0; 64], cand: Vec::new() }
    }
}

impl Scratch {
    fn set_wanted(&mut self, w: &str) {
        self.wanted = w.chars().collect();
        self.wanted_bag = bag(&self.wanted);
    }

    fn within(&mut self, cand: &str, limit: usize) -> Option<usize> {
        // Length first: a name longer or shorter by more than `limit` cannot be near. Bytes
        // bound characters from above, so this check needs no decoding of `cand`.
        let wl = self.wanted.len();
        if cand.len() + limit < wl || cand.chars().take(wl + limit + 1).count() > wl + limit {
            return None;
        }
        self.cand.clear();
        self.cand.extend(cand.chars());
        // Each edit changes at most one letter in and one letter out of the bag.
        let cb = bag(&self.cand);
        let (mut more, mut fewer) = (0, 0);
        for (w, c) in self.wanted_bag.iter().zip(&cb) {
            if w > c {
                more += w - c;
            } else {
                fewer += c - w;
            }
        }
        if more.max(fewer) as usize > limit {
            return None;
        }
        banded(&self.wanted, &self.cand, limit)
    }
}

fn bag(s: &[char]) -> [i32; 64] {
    let mut b = [0; 64];
    for &c in s {
        b[c as usize % 64] += 1;
    }
    b
}

/// Damerau (optimal string alignment) distance within `limit`: only cells within `limit` of the
/// diagonal are computed, and the search stops when a whole row is over the bound.
fn banded(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    const FAR: usize = usize::MAX / 2;
    let width = b.len() + 1;
    // Three rows of the table: two back for swaps.
    let mut prev2 = vec![FAR; width];
    let mut prev: Vec<usize> = (0..width).map(|j| if j <= limit { j } else { FAR }).collect();
    let mut cur = vec![FAR; width];
    for i in 1..=a.len() {
        let lo = i.saturating_sub(limit).max(1);
        let hi = (i + limit).min(b.len());
        // Cells just outside the band are read by this row and the next: keep them "far".
        cur[0] = if i <= limit { i } else { FAR };
        if lo > 1 {
            cur[lo - 1] = FAR;
        }
        if hi < b.len() {
            cur[hi + 1] = FAR;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            cur[j] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", ""), 0);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("", "ab"), 2);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("prnitf", "printf"), 1);
        assert_eq!(edit_distance("filenme", "filename"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
        assert_eq!(edit_distance("readline", "readlin"), 1);
    }

    #[test]
    fn bounded_distances_agree_with_the_full_table() {
        let words = [
            "",
            "a",
            "ab",
            "ba",
            "abc",
            "kitten",
            "sitting",
            "printf",
            "prnitf",
            "sys_read",
            "sys_write",
            "vfs_read",
            "vfs_readv",
            "é",
            "ée",
            "aaaaaaaaaa",
            "aaaaabaaaa",
        ];
        for a in words {
            for b in words {
                let full = edit_distance(a, b);
                for limit in 0..12 {
                    let want = (full <= limit).then_some(full);
                    assert_eq!(distance_within(a, b, limit), want, "{a:?} {b:?} within {limit}");
                }
            }
        }
    }

    #[test]
    fn suggestions() {
        let funcs = ["print", "printf", "count", "clear"];
        assert_eq!(closest("prnitf", funcs), Some("printf"));
        assert_eq!(closest("printf", funcs), Some("printf"));
        assert_eq!(closest("cuont", funcs), Some("count"));
        assert_eq!(closest("hist", funcs), None);
        assert_eq!(closest("xyz", funcs), None);
        assert_eq!(closest("begin", ["END", "BEGIN"]), Some("BEGIN"));
        assert_eq!(closest("comm", ["com", "comms"]), Some("com")); // tie: the first
        assert_eq!(closest("x", std::iter::empty()), None);
        let owned = ["sys_enter_openat".to_string()];
        assert_eq!(
            closest("sys_enter_opnat", owned.iter().map(String::as_str)),
            Some("sys_enter_openat")
        );
        let names = ["readline", "readlink", "read", "write", "rl_readline_name", "readline"];
        assert_eq!(nearest("readlin", names, 3), ["readline", "readlink", "read"]);
        assert!(nearest("zzzzzzzzzzzz", names, 3).is_empty());
    }

    /// The issue 13 hang: a 20,000-character name against a kernel's worth of function names
    /// took 35 s. Each search must now be a matter of milliseconds.
    #[test]
    fn huge_names_are_answered_at_once() {
        let names: Vec<String> = (0..200_000).map(|i| format!("kernel_function_{i}_x")).collect();
        let long = "x".repeat(20_000);
        let near_miss = format!("kernel_function_{}_y{}", 7, "q".repeat(40));
        for wanted in [long.as_str(), near_miss.as_str()] {
            let t = Instant::now();
            let _ = closest(wanted, names.iter().map(String::as_str));
            let _ = nearest(wanted, names.iter().map(String::as_str), 3);
            assert!(
                t.elapsed() < Duration::from_secs(1),
                "{} chars took {:?}",
                wanted.len(),
                t.elapsed()
            );
        }
        assert_eq!(
            closest("kernel_function_12345_", names.iter().map(String::as_str)),
            Some("kernel_function_12345_x")
        );
    }
}
