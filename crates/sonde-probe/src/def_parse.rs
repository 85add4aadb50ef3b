//! Reading a definition line back (`FromStr`), so every rendered line is checked to mean what
//! sonde built, and `-f FILE` lines or kprobe_events' own listing can be read.

use crate::def::{Arg, Definition, Fetch, FetchType, Location};
use std::str::FromStr;

/// A definition line that is not kprobetrace.rst's syntax; `what` says which part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a valid probe definition: {what}")]
pub struct DefinitionSyntax {
    pub text: String,
    pub what: &'static str,
}

fn bad(text: &str, what: &'static str) -> DefinitionSyntax {
    DefinitionSyntax { text: text.to_string(), what }
}

impl FromStr for Definition {
    type Err = DefinitionSyntax;

    fn from_str(line: &str) -> Result<Definition, DefinitionSyntax> {
        let mut words = line.split_whitespace();
        let head = words.next().ok_or_else(|| bad(line, "it is empty"))?;
        let (kind, event) = head.split_once(':').ok_or_else(|| bad(line, "no `:GROUP/EVENT`"))?;
        let (ret, maxactive) = match (kind.chars().next(), &kind[1.min(kind.len())..]) {
            (Some('p'), "") => (false, None),
            (Some('r'), "") => (true, None),
            (Some('r'), n) => (true, Some(n.parse().map_err(|_| bad(line, "bad maxactive"))?)),
            _ => return Err(bad(line, "it must start with `p` or `r`")),
        };
        let (group, event) = event.split_once('/').ok_or_else(|| bad(line, "no `GROUP/`"))?;
        let location = parse_location(words.next().ok_or_else(|| bad(line, "no location"))?)
            .ok_or_else(|| bad(line, "bad location"))?;
        let args: Result<Vec<Arg>, _> =
            words.map(|w| parse_arg(w).ok_or_else(|| bad(line, "bad argument"))).collect();
        Ok(Definition {
            ret,
            maxactive,
            group: group.to_string(),
            event: event.to_string(),
            location,
            args: args?,
        })
    }
}

fn parse_location(s: &str) -> Option<Location> {
    if s.starts_with('/') {
        let (path, off) = s.rsplit_once(':')?;
        return Some(Location::File { path: path.to_string(), offset: number(off)? });
    }
    if s.starts_with("0x") {
        return Some(Location::Address(number(s)?));
    }
    let (module, rest) = match s.split_once(':') {
        Some((m, r)) => (Some(m.to_string()), r),
        None => (None, s),
    };
    let (name, offset) = match rest.split_once('+') {
        Some((n, o)) => (n, number(o)?),
        None => (rest, 0),
    };
    Some(Location::Symbol { module, name: name.to_string(), offset })
}

fn parse_arg(s: &str) -> Option<Arg> {
    let (name, rest) = s.split_once('=')?;
    // The type follows the last `:` outside the fetcharg's parentheses.
    let close = rest.rfind(')').unwrap_or(0);
    let (fetch, ty) = match rest[close..].rfind(':') {
        Some(i) => (&rest[..close + i], Some(parse_type(&rest[close + i + 1..])?)),
        None => (rest, None),
    };
    Some(Arg { name: name.to_string(), fetch: parse_fetch(fetch)?, ty })
}

pub(crate) fn parse_fetch(s: &str) -> Option<Fetch> {
    if let Some(r) = s.strip_prefix('%') {
        return Some(Fetch::Reg(r.to_string()));
    }
    if let Some(v) = s.strip_prefix('\\') {
        return Some(Fetch::Imm(v.to_string()));
    }
    if let Some(at) = s.strip_prefix('@') {
        if at.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(Fetch::Addr(number(at)?));
        }
        let (name, offset) = match at.find(['+', '-']) {
            Some(i) => {
                let n = number(&at[i + 1..])? as i64;
                (&at[..i], if at.as_bytes()[i] == b'-' { -n } else { n })
            }
            None => (at, 0),
        };
        return Some(Fetch::Symbol { name: name.to_string(), offset });
    }
    match s {
        "$retval" => return Some(Fetch::Retval),
        "$comm" => return Some(Fetch::Comm),
        "$stack" => return Some(Fetch::StackAddr),
        _ => {}
    }
    if let Some(n) = s.strip_prefix("$stack") {
        return Some(Fetch::Stack(n.parse().ok()?));
    }
    if let Some(n) = s.strip_prefix("$arg") {
        return Some(Fetch::Arg(n.parse().ok().filter(|&n| n >= 1)?));
    }
    let neg = s.starts_with('-');
    let body = s.strip_prefix(['+', '-'])?;
    let (user, body) = match body.strip_prefix('u') {
        Some(b) => (true, b),
        None => (false, body),
    };
    let open = body.find('(')?;
    let inner = body[open + 1..].strip_suffix(')')?;
    let off = number(&body[..open])? as i64;
    Some(Fetch::Deref {
        offset: if neg { -off } else { off },
        user,
        of: Box::new(parse_fetch(inner)?),
    })
}

pub(crate) fn parse_type(s: &str) -> Option<FetchType> {
    if let Some(open) = s.find('[') {
        let len = s[open + 1..].strip_suffix(']')?.parse().ok()?;
        return Some(FetchType::Array { elem: Box::new(parse_type(&s[..open])?), len });
    }
    match s {
        "string" => return Some(FetchType::String),
        "ustring" => return Some(FetchType::Ustring),
        "symbol" => return Some(FetchType::Symbol),
        _ => {}
    }
    if let Some(b) = s.strip_prefix('b') {
        let (width, rest) = b.split_once('@')?;
        let (offset, container) = rest.split_once('/')?;
        return Some(FetchType::Bitfield {
            width: width.parse().ok()?,
            offset: offset.parse().ok()?,
            container: container.parse().ok()?,
        });
    }
    let bits: u8 = s.get(1..)?.parse().ok().filter(|b| matches!(b, 8 | 16 | 32 | 64))?;
    match s.as_bytes()[0] {
        b'u' => Some(FetchType::Unsigned(bits)),
        b's' => Some(FetchType::Signed(bits)),
        b'x' => Some(FetchType::Hex(bits)),
        _ => None,
    }
}

/// Decimal or 0x-hex, as the kernel's kstrtoul(.., 0) reads them.
pub(crate) fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}
