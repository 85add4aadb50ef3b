//! surftrace's expressions, as its guide spells them:
//! `p SYM[+OFF] [NAME=FETCH ...] [f:FILTER]`, `r SYM ...`, `e GROUP/EVENT [f:FILTER]`,
//! `P BIN:SYM[+OFF] ...`, `R BIN:SYM ...`.

use crate::error::ProbeError;
use crate::fetch::{parse_fetch, FetchExpr};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExprKind {
    /// `p`: a kprobe at a function's entry or inside it.
    Kprobe,
    /// `r`: a kretprobe.
    Kretprobe,
    /// `e`: a tracepoint, with a filter only.
    Event,
    /// `P`: a uprobe.
    Uprobe,
    /// `R`: a uretprobe.
    Uretprobe,
}

impl ExprKind {
    pub fn is_return(self) -> bool {
        matches!(self, ExprKind::Kretprobe | ExprKind::Uretprobe)
    }
}

/// One expression, parsed but not yet resolved against the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    /// `SYM[+OFF]`, `GROUP/EVENT` or `BIN:SYM[+OFF]`, as written.
    pub target: String,
    pub args: Vec<(String, FetchExpr)>,
    /// The ftrace filter after `f:`, as written.
    pub filter: Option<String>,
}

/// Parse one expression.
pub fn parse(text: &str) -> Result<Expr, ProbeError> {
    let text = text.trim();
    // The filter runs to the end of the line and may hold spaces.
    let (head, filter) = match find_filter(text) {
        Some(i) => (&text[..i], Some(text[i + 2..].trim().to_string())),
        None => (text, None),
    };
    let words = split_words(head);
    let mut words = words.iter();
    let kind = match words.next().map(String::as_str) {
        Some("p") => ExprKind::Kprobe,
        Some("r") => ExprKind::Kretprobe,
        Some("e") => ExprKind::Event,
        Some("P") => ExprKind::Uprobe,
        Some("R") => ExprKind::Uretprobe,
        Some(w) => return Err(ProbeError::BadKind { expr: text.into(), kind: w.into() }),
        None => return Err(ProbeError::Empty),
    };
    let target = words.next().ok_or_else(|| ProbeError::NoTarget { expr: text.into() })?.clone();
    let mut args = Vec::new();
    for w in words {
        let (name, fetch) = w
            .split_once('=')
            .filter(|(n, _)| is_name(n))
            .ok_or_else(|| ProbeError::BadArgument { arg: w.clone() })?;
        if kind == ExprKind::Event {
            return Err(ProbeError::EventArgs { arg: w.clone() });
        }
        if args.iter().any(|(n, _)| n == name) {
            return Err(ProbeError::DuplicateName { name: name.into() });
        }
        args.push((name.to_string(), parse_fetch(fetch)?));
    }
    if filter.as_deref() == Some("") {
        return Err(ProbeError::EmptyFilter { expr: text.into() });
    }
    Ok(Expr { kind, target, args, filter })
}

/// Where ` f:` starts the filter (outside parentheses).
fn find_filter(text: &str) -> Option<usize> {
    let mut depth = 0i32;
    let b = text.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b'f' if depth == 0
                && b.get(i + 1) == Some(&b':')
                && (i == 0 || b[i - 1].is_ascii_whitespace()) =>
            {
                return Some(i)
            }
            _ => {}
        }
    }
    None
}

/// Whitespace-separated words, keeping casts such as `!(struct file *)` in one word.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c.is_whitespace() && depth <= 0 {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_with_spaces_stay_one_word() {
        let e = parse("p do_filp_open+121 pos=X!(struct file *)%ax->f_pos f:pos == 0").unwrap();
        assert_eq!(e.kind, ExprKind::Kprobe);
        assert_eq!(e.target, "do_filp_open+121");
        assert_eq!(e.args.len(), 1);
        assert_eq!(e.filter.as_deref(), Some("pos == 0"));
    }

    #[test]
    fn an_unknown_kind_is_one_sentence() {
        let e = parse("x foo").unwrap_err().to_string();
        assert!(e.contains("`x`"), "{e}");
    }
}
