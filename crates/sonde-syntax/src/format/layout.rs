//! Comments and blank lines, the "layout" a formatter keeps: recorded while parsing, claimed by
//! the printer node by node (what lies before a node is printed with it).

use std::collections::BTreeMap;

/// One piece of layout: a comment's text (without `//` and one space) or blank lines.
#[derive(Clone, Debug, PartialEq)]
pub enum Meta {
    Comment(String),
    Vspace(usize),
}

/// Layout keyed by its byte offset in the source.
#[derive(Clone, Debug, Default)]
pub struct Metas {
    items: BTreeMap<usize, Meta>,
    /// Offsets of comments no place printed (inside an expression, as bpftrace drops them).
    pub dropped: Vec<usize>,
}

impl Metas {
    /// Removes and returns everything at or before `pos`.
    pub fn before(&mut self, pos: usize) -> Metas {
        let rest = self.items.split_off(&(pos + 1));
        Metas { items: std::mem::replace(&mut self.items, rest), dropped: Vec::new() }
    }

    /// Gives up `part` (claimed but not printed): its comments are counted as dropped.
    pub fn drop_part(&mut self, part: Metas) {
        self.dropped.extend(part.dropped);
        let comments = part.items.iter().filter(|(_, m)| matches!(m, Meta::Comment(_)));
        self.dropped.extend(comments.map(|(pos, _)| *pos));
    }

    pub fn all(&self) -> impl Iterator<Item = &Meta> {
        self.items.values()
    }

    fn add(&mut self, pos: usize, meta: Meta) {
        self.items.entry(pos).or_insert(meta);
    }
}

fn is_hspace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// Skips whitespace and comments from `pos`, recording comments and blank lines; returns the
/// offset of what follows. A newline right after `;`, `{`, `}` or a comment is not a blank line.
pub fn scan(text: &str, mut pos: usize, metas: &mut Metas) -> usize {
    let b = text.as_bytes();
    let mut after_comment = false;
    while pos < b.len() {
        let c = b[pos];
        if is_hspace(c) {
            pos += 1;
        } else if c == b'\n' {
            let prev = b[..pos].iter().rev().find(|c| !is_hspace(**c)).copied();
            let suppress = after_comment || matches!(prev, Some(b';' | b'{' | b'}'));
            if !suppress {
                metas.add(pos, Meta::Vspace(1));
            }
            pos += 1;
            after_comment = false;
        } else if text[pos..].starts_with("//") {
            pos = line_comment(text, pos, metas);
            after_comment = true;
        } else if text[pos..].starts_with("/*") {
            pos = block_comment(text, pos, metas);
            after_comment = true;
        } else {
            break;
        }
    }
    pos
}

fn line_comment(text: &str, pos: usize, metas: &mut Metas) -> usize {
    let mut lo = pos + 2;
    if text[lo..].starts_with(' ') {
        lo += 1;
    }
    let hi = text[lo..].find('\n').map_or(text.len(), |i| lo + i);
    metas.add(lo, Meta::Comment(text[lo..hi].to_string()));
    hi
}

/// Each line of a block comment is a comment of its own; leading `*`s and one space are dropped.
fn block_comment(text: &str, pos: usize, metas: &mut Metas) -> usize {
    let b = text.as_bytes();
    let mut p = pos + 2;
    if b.get(p) == Some(&b' ') {
        p += 1;
    }
    let closes = |p: usize| b.get(p) == Some(&b'*') && b.get(p + 1) == Some(&b'/');
    while p < b.len() {
        let lo = p;
        while p < b.len() && b[p] != b'\n' && !closes(p) {
            p += 1;
        }
        if p != lo {
            metas.add(lo, Meta::Comment(text[lo..p].to_string()));
        }
        if closes(p) {
            return p + 2;
        }
        if p >= b.len() {
            break;
        }
        p += 1;
        while p < b.len() && is_hspace(b[p]) {
            p += 1;
        }
        if closes(p) {
            continue;
        }
        let stars = p;
        while b.get(p) == Some(&b'*') {
            p += 1;
        }
        if p > stars && b.get(p) == Some(&b' ') {
            p += 1;
        }
        if b.get(p) == Some(&b'\n') || closes(p) {
            metas.add(p, Meta::Comment(String::new()));
        }
    }
    p
}
