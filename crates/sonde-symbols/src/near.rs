//! "Did you mean" suggestions: the closest names by edit distance.

/// Up to `n` names closest to `wanted`, nearest first, ignoring ones too far off to help.
pub fn nearest<'a>(
    wanted: &str,
    names: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<String> {
    let limit = (wanted.len() / 2).max(3);
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .filter(|name| name.len().abs_diff(wanted.len()) <= limit)
        .map(|name| (distance(wanted.as_bytes(), name.as_bytes()), name))
        .filter(|&(d, _)| d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, s)| s.to_string()).collect()
}

/// Levenshtein distance with two rows.
pub fn distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance(b"", b""), 0);
        assert_eq!(distance(b"readline", b"readlin"), 1);
        assert_eq!(distance(b"kitten", b"sitting"), 3);
        assert_eq!(distance(b"", b"abc"), 3);
    }

    #[test]
    fn suggestions() {
        let names = ["readline", "readlink", "read", "write", "rl_readline_name", "readline"];
        assert_eq!(nearest("readlin", names, 3), ["readline", "readlink", "read"]);
        assert!(nearest("zzzzzzzzzzzz", names, 3).is_empty());
    }
}
