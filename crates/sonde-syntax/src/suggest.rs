//! "Did you mean ...?" hints.

/// Edit distance between two strings, in characters: insertions, deletions, substitutions and
/// swaps of two adjacent characters each cost 1 (so `prnitf` is 1 away from `printf`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the dynamic-programming table: two back for swaps.
    let mut prev2 = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(prev2[j - 2] + 1);
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate `name` was most likely a misspelling of: an exact match, else one differing only
/// in ASCII case, else the nearest within a third of the name's length (at least 1). Ties go to
/// the earliest candidate.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = name.chars().count().max(3) / 3;
    let mut case_match = None;
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == name {
            return Some(c);
        }
        if case_match.is_none() && c.eq_ignore_ascii_case(name) {
            case_match = Some(c);
        }
        let d = edit_distance(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    case_match.or(best.map(|(_, c)| c))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
