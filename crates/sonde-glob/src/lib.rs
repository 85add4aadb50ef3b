//! Shell-style globs with fnmatch(3)'s rules: `*`, `?`, `[abc]`, `[a-z]`, `[!abc]`, and a `]`
//! right after `[` (or `[!`) is a member (`x[]]` matches `x]`). Works on bytes (kernel, ELF and
//! tracepoint names are ASCII); a `[` with no closing `]` matches itself. One matcher serves
//! probe specs (sonde-compile), `-l` and symbol and path lookups (sonde-symbols).

/// A compiled glob pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    pattern: Vec<u8>,
}

impl Glob {
    pub fn new(pattern: &str) -> Self {
        Glob { pattern: pattern.as_bytes().to_vec() }
    }

    /// True when the pattern has no wildcard, so it names exactly one symbol.
    pub fn is_literal(&self) -> bool {
        !is_glob(std::str::from_utf8(&self.pattern).unwrap_or(""))
    }

    pub fn matches(&self, name: &str) -> bool {
        match_bytes(&self.pattern, name.as_bytes())
    }
}

/// Does `text` match `pattern`? For one-off matches; [`Glob`] keeps a pattern for many.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    match_bytes(pattern.as_bytes(), text.as_bytes())
}

/// True when `s` contains a glob wildcard.
pub fn is_glob(s: &str) -> bool {
    s.bytes().any(|b| matches!(b, b'*' | b'?' | b'['))
}

/// Iterative matcher: remembers the last `*` and retries from there, so it is
/// linear-ish and never recurses (no stack blow-up on hostile patterns).
fn match_bytes(pat: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((hit, next)) = class_match(pat, p, text[t]) {
                        if hit {
                            p = next;
                            t += 1;
                            continue;
                        }
                    } else if text[t] == b'[' {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
                c if c == text[t] => {
                    p += 1;
                    t += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// Matches `c` against the class starting at `pat[start] == b'['`.
/// Returns (matched, index after `]`), or None if the class is unterminated.
fn class_match(pat: &[u8], start: usize, c: u8) -> Option<(bool, usize)> {
    let mut i = start + 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let lo = *pat.get(i)?;
        if lo == b']' && !first {
            return Some((hit != negate, i + 1));
        }
        first = false;
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&b| b != b']') {
            let hi = pat[i + 2];
            hit |= lo <= c && c <= hi;
            i += 3;
        } else {
            hit |= lo == c;
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Glob::new(p).matches(t)
    }

    #[test]
    fn basics() {
        assert!(m("vfs_*", "vfs_read"));
        assert!(m("vfs_*", "vfs_"));
        assert!(!m("vfs_*", "do_vfs_read"));
        assert!(m("*read*", "do_vfs_readv"));
        assert!(m("vfs_rea?", "vfs_read"));
        assert!(!m("vfs_rea?", "vfs_readv"));
        assert!(m("*", ""));
        assert!(!m("?", ""));
        assert!(m("a*b*c", "aXXbYYc"));
        assert!(!m("a*b*c", "aXXbYY"));
        assert!(m("exact", "exact"));
        assert!(!m("exact", "exactly"));
    }

    #[test]
    fn classes() {
        assert!(m("vfs_[rw]*", "vfs_read"));
        assert!(m("vfs_[rw]*", "vfs_write"));
        assert!(!m("vfs_[rw]*", "vfs_open"));
        assert!(m("x[a-c]", "xb"));
        assert!(!m("x[a-c]", "xd"));
        assert!(m("x[!a-c]", "xd"));
        assert!(!m("x[^a-c]", "xa"));
        assert!(m("x[]]", "x]"));
        assert!(m("x[a-]", "x-"));
    }

    #[test]
    fn malformed_never_panics() {
        assert!(m("x[", "x["));
        assert!(!m("x[", "xa"));
        assert!(m("[!", "[!"));
        for p in ["[", "[!", "[]", "[a-", "***", "[[[", "*[", "?*?[z-a]"] {
            for t in ["", "a", "[", "abc", "[!]"] {
                let _ = m(p, t);
            }
        }
        assert!(!m("[z-a]", "m"));
    }

    /// The probe-spec cases sonde-compile's own matcher had.
    #[test]
    fn probe_specs() {
        assert!(glob_match("sys_enter_*", "sys_enter_openat"));
        assert!(!glob_match("sys_enter_*", "sys_exit_openat"));
        assert!(glob_match("*", ""));
        assert!(glob_match("vfs_*read*", "vfs_readv"));
        assert!(glob_match("a?c", "abc"));
        assert!(glob_match("sys_[ef]*", "sys_exit"));
        assert!(!glob_match("sys_[!ef]*", "sys_exit"));
        assert!(glob_match("*_openat", "sys_enter_openat"));
        assert!(!glob_match("abc", "abcd"));
    }

    /// fnmatch(3): a `]` first in a class is a member, not the end of an empty class.
    #[test]
    fn a_leading_bracket_is_a_member() {
        assert!(glob_match("x[]]", "x]"));
        assert!(!glob_match("x[]]", "x]]"));
        assert!(glob_match("x[!]]", "xa"));
        assert!(!glob_match("x[!]]", "x]"));
        assert!(glob_match("x[]a]", "xa"));
    }

    #[test]
    fn literal() {
        assert!(Glob::new("schedule").is_literal());
        assert!(!Glob::new("sched*").is_literal());
    }
}
