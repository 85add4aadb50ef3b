//! surftrace's FETCH: `[S|U|X][!(TYPE)]BASE{->m|.m|[i]}` where BASE is `%N`, `%REG`, `$retval`,
//! `$comm`, `$stackN`, `@SYM` or `@0xADDR`.

use crate::error::ProbeError;
use crate::expr::is_name;

/// How the value prints: surftrace's S, U and X prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Signed,
    Unsigned,
    Hex,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// `%N`: the Nth argument, from 0.
    Arg(u32),
    /// `%REG`
    Reg(String),
    Retval,
    Comm,
    /// `$stackN`
    Stack(u32),
    /// `@SYM`
    Symbol(String),
    /// `@0xADDR`
    Addr(u64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `->m`
    Arrow(String),
    /// `.m`
    Dot(String),
    /// `[i]`
    Index(u64),
}

/// surftrace's packet parsing: `@(TYPE)MARK` before an skb, MARK the layer (2, 3 or 4) that
/// `skb->data` points at where the probe fires (l3 when not written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The header type, spaces normalised (`struct iphdr *`).
    pub ty: String,
    pub layer: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchExpr {
    /// The whole FETCH as written, for messages.
    pub text: String,
    pub format: Option<Format>,
    /// The type inside `!( )`, spaces normalised (`struct file *`).
    pub cast: Option<String>,
    /// `@(struct iphdr *)l3`: the skb's packet data read as this header.
    pub packet: Option<Packet>,
    pub base: Base,
    pub chain: Vec<Step>,
}

pub fn parse_fetch(text: &str) -> Result<FetchExpr, ProbeError> {
    let bad = |why: &'static str| ProbeError::BadFetch { fetch: text.to_string(), why };
    let mut s = text;
    let format = match s.as_bytes().first() {
        Some(b'S') => Some(Format::Signed),
        Some(b'U') => Some(Format::Unsigned),
        Some(b'X') => Some(Format::Hex),
        _ => None,
    };
    if format.is_some() {
        s = &s[1..];
    }
    let mut cast = None;
    if let Some(rest) = s.strip_prefix("!(") {
        let close = rest.find(')').ok_or_else(|| bad("the cast has no `)`"))?;
        cast = Some(normalise_type(&rest[..close]));
        s = &rest[close + 1..];
    }
    let mut packet = None;
    if let Some(rest) = s.strip_prefix("@(") {
        let close = rest.find(')').ok_or_else(|| bad("the packet cast has no `)`"))?;
        let ty = normalise_type(&rest[..close]);
        s = &rest[close + 1..];
        let mut layer = 3;
        for (mark, l) in [("l2", 2), ("l3", 3), ("l4", 4)] {
            if let Some(r) = s.strip_prefix(mark) {
                (layer, s) = (l, r);
            }
        }
        packet = Some(Packet { ty, layer });
    }
    let (base, mut s) = parse_base(s).ok_or_else(|| {
        bad("it must start with %N, %REG, $retval, $comm, $stackN, @SYM or @0xADDR")
    })?;
    let mut chain = Vec::new();
    while !s.is_empty() {
        let (step, rest) = if let Some(r) = s.strip_prefix("->") {
            let (n, r) = ident(r);
            (Step::Arrow(n.ok_or_else(|| bad("`->` needs a member name"))?), r)
        } else if let Some(r) = s.strip_prefix('.') {
            let (n, r) = ident(r);
            (Step::Dot(n.ok_or_else(|| bad("`.` needs a member name"))?), r)
        } else if let Some(r) = s.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| bad("`[` has no `]`"))?;
            let i = crate::def_parse::number(r[..close].trim())
                .ok_or_else(|| bad("an index must be a number"))?;
            (Step::Index(i), &r[close + 1..])
        } else {
            return Err(bad("after the start only ->member, .member and [index] may follow"));
        };
        chain.push(step);
        s = rest;
    }
    Ok(FetchExpr { text: text.to_string(), format, cast, packet, base, chain })
}

fn parse_base(s: &str) -> Option<(Base, &str)> {
    if let Some(r) = s.strip_prefix('%') {
        let end = r.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(r.len());
        let word = &r[..end];
        let base = match word.parse() {
            Ok(n) => Base::Arg(n),
            Err(_) if !word.is_empty() => Base::Reg(word.to_string()),
            Err(_) => return None,
        };
        return Some((base, &r[end..]));
    }
    if let Some(r) = s.strip_prefix('@') {
        if let Some(h) = r.strip_prefix("0x") {
            let end = h.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(h.len());
            return Some((Base::Addr(u64::from_str_radix(&h[..end], 16).ok()?), &h[end..]));
        }
        let (n, r) = ident(r);
        return Some((Base::Symbol(n?), r));
    }
    let r = s.strip_prefix('$')?;
    let (n, rest) = ident(r);
    let n = n?;
    let base = match n.as_str() {
        "retval" => Base::Retval,
        "comm" => Base::Comm,
        _ => Base::Stack(n.strip_prefix("stack")?.parse().ok()?),
    };
    Some((base, rest))
}

fn ident(s: &str) -> (Option<String>, &str) {
    let end = s.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(s.len());
    let word = &s[..end];
    (is_name(word).then(|| word.to_string()), &s[end..])
}

/// `struct file*` and `struct  file *` both become `struct file *`.
fn normalise_type(t: &str) -> String {
    let stars = t.chars().filter(|&c| c == '*').count();
    let base = t.replace('*', " ").split_whitespace().collect::<Vec<_>>().join(" ");
    if stars == 0 {
        base
    } else {
        format!("{base} {}", "*".repeat(stars))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_and_prefixes() {
        let f = parse_fetch("S%0->mm->mm_users").unwrap();
        assert_eq!(f.format, Some(Format::Signed));
        assert_eq!(f.base, Base::Arg(0));
        assert_eq!(f.chain, vec![Step::Arrow("mm".into()), Step::Arrow("mm_users".into())]);
        let f = parse_fetch("X!(struct file*)%ax->f_pos").unwrap();
        assert_eq!(f.cast.as_deref(), Some("struct file *"));
        assert_eq!(f.base, Base::Reg("ax".into()));
        let f = parse_fetch("%0->se.run_node.rb_left").unwrap();
        assert_eq!(f.chain.len(), 3);
        assert_eq!(parse_fetch("$stack3").unwrap().base, Base::Stack(3));
        assert_eq!(
            parse_fetch("@0xffffffff8647bc30").unwrap().base,
            Base::Addr(0xffffffff8647bc30)
        );
        assert_eq!(parse_fetch("%1->a[2]").unwrap().chain[1], Step::Index(2));
    }

    #[test]
    fn packet_casts_and_marks() {
        let f = parse_fetch("X@(struct iphdr*)l3%0->sdata[1]").unwrap();
        assert_eq!(f.format, Some(Format::Hex));
        assert_eq!(f.packet, Some(Packet { ty: "struct iphdr *".into(), layer: 3 }));
        assert_eq!(f.chain, vec![Step::Arrow("sdata".into()), Step::Index(1)]);
        let f = parse_fetch("@(struct icmphdr *)l2%di->type").unwrap();
        assert_eq!(f.packet.unwrap().layer, 2);
        assert_eq!(f.base, Base::Reg("di".into()));
        assert_eq!(parse_fetch("@(struct iphdr *)%0->saddr").unwrap().packet.unwrap().layer, 3);
    }

    #[test]
    fn garbage_is_refused() {
        assert!(parse_fetch("comm").is_err());
        assert!(parse_fetch("%0->").is_err());
        assert!(parse_fetch("%0+3").is_err());
    }
}
