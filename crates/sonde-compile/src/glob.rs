//! Shell-style globs (`*`, `?`, `[abc]`) for probe definitions.

pub fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    matches(&p, &t)
}

fn matches(p: &[char], t: &[char]) -> bool {
    // Iterative matcher with backtracking to the last `*`: linear in practice, no recursion blow-up.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ti));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((ok, next)) = class(&p[pi..], t[ti]) {
                        if ok {
                            pi += next;
                            ti += 1;
                            continue;
                        }
                    } else if t[ti] == '[' {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
                c if c == t[ti] => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Match a `[...]` class at the start of `p`; returns (matched, pattern length) or None if unterminated.
fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let end = p.iter().skip(1).position(|&x| x == ']')? + 1;
    let body = &p[1..end];
    let (negate, body) = match body.first() {
        Some('!') | Some('^') => (true, &body[1..]),
        _ => (false, body),
    };
    let mut hit = false;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            hit |= body[i] <= c && c <= body[i + 2];
            i += 3;
        } else {
            hit |= body[i] == c;
            i += 1;
        }
    }
    Some((hit != negate, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn globs() {
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
}
