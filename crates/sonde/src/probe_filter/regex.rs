//! The regular expressions `--probe-filter` takes (bpftrace's: C++ `std::regex`, ECMAScript,
//! searched anywhere in the name): literals, `.`, classes (`[a-z]`, `[^:]`, `\d \w \s`),
//! groups with `|`, the quantifiers `* + ? {m} {m,} {m,n}`, and the anchors `^ $`. Matched by
//! backtracking over the pattern's tree; probe names are short.

/// One piece of a pattern.
#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Any,
    Class { ranges: Vec<(char, char)>, negated: bool },
    Group(Vec<Vec<Node>>),
    Repeat { node: Box<Node>, min: usize, max: usize },
    Start,
    End,
}

/// A parsed pattern: its alternatives.
#[derive(Clone, Debug)]
pub struct Regex(Vec<Vec<Node>>);

impl Regex {
    /// Err: where and why the pattern is not one.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let alts = alternatives(&chars, &mut at)?;
        if at < chars.len() {
            return Err(format!("unmatched `)` at offset {}", at));
        }
        Ok(Regex(alts))
    }

    /// Does the pattern match somewhere in `text`?
    pub fn is_match(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        let whole = [Node::Group(self.0.clone())];
        (0..=t.len()).any(|from| matches(&whole, &t, from, &mut |_| true))
    }
}

fn alternatives(p: &[char], at: &mut usize) -> Result<Vec<Vec<Node>>, String> {
    let mut alts = vec![Vec::new()];
    while let Some(&c) = p.get(*at) {
        *at += 1;
        let node = match c {
            '|' => {
                alts.push(Vec::new());
                continue;
            }
            ')' => {
                *at -= 1;
                break;
            }
            '(' => {
                // `(?:` groups too.
                if p.get(*at..*at + 2) == Some(&['?', ':']) {
                    *at += 2;
                }
                let inner = alternatives(p, at)?;
                if p.get(*at) != Some(&')') {
                    return Err("a `(` is never closed".into());
                }
                *at += 1;
                Node::Group(inner)
            }
            '[' => class(p, at)?,
            '.' => Node::Any,
            '^' => Node::Start,
            '$' => Node::End,
            '\\' => escape(p, at)?,
            '*' | '+' | '?' | '{' => {
                return Err(format!("`{}` repeats nothing at offset {}", c, *at - 1))
            }
            c => Node::Char(c),
        };
        let node = quantified(p, at, node)?;
        alts.last_mut().expect("one alternative at least").push(node);
    }
    Ok(alts)
}

fn quantified(p: &[char], at: &mut usize, node: Node) -> Result<Node, String> {
    let (min, max) = match p.get(*at) {
        Some('*') => (0, usize::MAX),
        Some('+') => (1, usize::MAX),
        Some('?') => (0, 1),
        Some('{') => {
            let close = p[*at..].iter().position(|&c| c == '}').ok_or("a `{` is never closed")?;
            let inside: String = p[*at + 1..*at + close].iter().collect();
            let bound = |s: &str| {
                s.trim().parse::<usize>().map_err(|_| format!("bad count `{{{}}}`", inside))
            };
            let range = match inside.split_once(',') {
                None => (bound(&inside)?, bound(&inside)?),
                Some((m, "")) => (bound(m)?, usize::MAX),
                Some((m, n)) => (bound(m)?, bound(n)?),
            };
            *at += close;
            range
        }
        _ => return Ok(node),
    };
    *at += 1;
    if matches!(node, Node::Start | Node::End) || min > max {
        return Err(format!("a bad repetition at offset {}", *at - 1));
    }
    Ok(Node::Repeat { node: Box::new(node), min, max })
}

fn escape(p: &[char], at: &mut usize) -> Result<Node, String> {
    let c = *p.get(*at).ok_or("the pattern ends in `\\`")?;
    *at += 1;
    let class = |ranges: &[(char, char)], negated| Node::Class { ranges: ranges.to_vec(), negated };
    const DIGIT: &[(char, char)] = &[('0', '9')];
    const WORD: &[(char, char)] = &[('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
    const SPACE: &[(char, char)] = &[(' ', ' '), ('\t', '\r')];
    Ok(match c {
        'd' => class(DIGIT, false),
        'D' => class(DIGIT, true),
        'w' => class(WORD, false),
        'W' => class(WORD, true),
        's' => class(SPACE, false),
        'S' => class(SPACE, true),
        'n' => Node::Char('\n'),
        't' => Node::Char('\t'),
        c => Node::Char(c),
    })
}

fn class(p: &[char], at: &mut usize) -> Result<Node, String> {
    let negated = p.get(*at) == Some(&'^');
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *p.get(*at).ok_or("a `[` is never closed")?;
        *at += 1;
        if c == ']' && !first {
            break;
        }
        first = false;
        let lo = if c == '\\' {
            let e = *p.get(*at).ok_or("the pattern ends in `\\`")?;
            *at += 1;
            e
        } else {
            c
        };
        if p.get(*at) == Some(&'-') && p.get(*at + 1).is_some_and(|&n| n != ']') {
            let hi = p[*at + 1];
            *at += 2;
            if hi < lo {
                return Err(format!("the range `{}-{}` runs backwards", lo, hi));
            }
            ranges.push((lo, hi));
        } else {
            ranges.push((lo, lo));
        }
    }
    Ok(Node::Class { ranges, negated })
}

/// Does `nodes` match `t` from `i`, with `rest` accepting where the match ends?
fn matches(nodes: &[Node], t: &[char], i: usize, rest: &mut dyn FnMut(usize) -> bool) -> bool {
    let Some((node, more)) = nodes.split_first() else { return rest(i) };
    let mut next = |j: usize| matches(more, t, j, rest);
    match node {
        Node::Start => i == 0 && next(i),
        Node::End => i == t.len() && next(i),
        Node::Group(alts) => alts.iter().any(|a| matches(a, t, i, &mut next)),
        Node::Repeat { node, min, max } => repeat(node, (*min, *max), t, i, 0, &mut next),
        single => t.get(i).is_some_and(|&c| one(single, c)) && next(i + 1),
    }
}

/// `node` repeated `done` times so far, greedily, between `min` and `max` times in all.
fn repeat(
    node: &Node,
    (min, max): (usize, usize),
    t: &[char],
    i: usize,
    done: usize,
    rest: &mut dyn FnMut(usize) -> bool,
) -> bool {
    let more = done < max
        && matches(std::slice::from_ref(node), t, i, &mut |j| {
            // A repetition that matched nothing would repeat forever.
            j > i && repeat(node, (min, max), t, j, done + 1, rest)
        });
    more || (done >= min && rest(i))
}

fn one(node: &Node, c: char) -> bool {
    match node {
        Node::Char(x) => *x == c,
        Node::Any => c != '\n',
        Node::Class { ranges, negated } => {
            ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::Regex;

    fn m(p: &str, t: &str) -> bool {
        Regex::new(p).unwrap().is_match(t)
    }

    #[test]
    fn patterns_match_anywhere_as_bpftrace_searches() {
        assert!(m(":200", "interval:ms:200") && !m(":200", "interval:ms:100"));
        assert!(m("interval:ms:(200|300)", "interval:ms:300"));
        assert!(!m("^ms", "interval:ms:300") && m("^int.*0$", "interval:ms:300"));
        assert!(m("sys_(enter|exit)_[a-z]+at$", "tracepoint:syscalls:sys_enter_openat"));
        assert!(m(r"\d{3}", "i:ms:100") && !m(r"\d{4}", "i:ms:100"));
        assert!(m("a[^:]*b", "xaxyzb") && !m("a[^:]*b", "a:b"));
        assert!(m("(ab)?c+", "c") && m("x|y", "y"));
    }

    #[test]
    fn bad_patterns_say_why() {
        for bad in ["[invalid", "(a", "a)", "*a", "a{2", "[z-a]", "a\\"] {
            assert!(Regex::new(bad).is_err(), "{bad}");
        }
    }
}
