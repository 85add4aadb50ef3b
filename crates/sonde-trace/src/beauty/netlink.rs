//! NETLINK_ROUTE messages as strace prints them: each message `[{nlmsg_len=.., nlmsg_type=..,
//! nlmsg_flags=.., nlmsg_seq=.., nlmsg_pid=..}, PAYLOAD]`, several in a list; the payload of
//! link and address messages as `{ifi_...}`/`{ifa_...}` followed by their attributes,
//! `[{nla_len=8, nla_type=IFLA_EXT_MASK}, RTEXT_FILTER_VF]`; a done message's `0`.

use super::consts::flags_or_zero;
use super::quote;
use super::structs::u32_at;
use super::{one, Table};

const NLMSG_HDRLEN: usize = 16;

const TYPES: Table = &[
    (1, "NLMSG_NOOP"),
    (2, "NLMSG_ERROR"),
    (3, "NLMSG_DONE"),
    (4, "NLMSG_OVERRUN"),
    (16, "RTM_NEWLINK"),
    (17, "RTM_DELLINK"),
    (18, "RTM_GETLINK"),
    (19, "RTM_SETLINK"),
    (20, "RTM_NEWADDR"),
    (21, "RTM_DELADDR"),
    (22, "RTM_GETADDR"),
    (24, "RTM_NEWROUTE"),
    (25, "RTM_DELROUTE"),
    (26, "RTM_GETROUTE"),
    (28, "RTM_NEWNEIGH"),
    (29, "RTM_DELNEIGH"),
    (30, "RTM_GETNEIGH"),
    (32, "RTM_NEWRULE"),
    (33, "RTM_DELRULE"),
    (34, "RTM_GETRULE"),
];

const FLAGS: Table = &[
    (0x1, "NLM_F_REQUEST"),
    (0x2, "NLM_F_MULTI"),
    (0x4, "NLM_F_ACK"),
    (0x8, "NLM_F_ECHO"),
    (0x10, "NLM_F_DUMP_INTR"),
    (0x20, "NLM_F_DUMP_FILTERED"),
];
/// A GET request's own flags (NLM_F_DUMP is ROOT|MATCH).
const GET_FLAGS: Table = &[
    (0x300, "NLM_F_DUMP"),
    (0x100, "NLM_F_ROOT"),
    (0x200, "NLM_F_MATCH"),
    (0x400, "NLM_F_ATOMIC"),
];
/// A NEW request's.
const NEW_FLAGS: Table = &[
    (0x100, "NLM_F_REPLACE"),
    (0x200, "NLM_F_EXCL"),
    (0x400, "NLM_F_CREATE"),
    (0x800, "NLM_F_APPEND"),
];

const ARPHRD: Table = &[
    (0, "ARPHRD_NETROM"),
    (1, "ARPHRD_ETHER"),
    (772, "ARPHRD_LOOPBACK"),
    (776, "ARPHRD_SIT"),
    (778, "ARPHRD_IPGRE"),
    (65534, "ARPHRD_NONE"),
];

const IFF: Table = &[
    (0x1, "IFF_UP"),
    (0x2, "IFF_BROADCAST"),
    (0x4, "IFF_DEBUG"),
    (0x8, "IFF_LOOPBACK"),
    (0x10, "IFF_POINTOPOINT"),
    (0x20, "IFF_NOTRAILERS"),
    (0x40, "IFF_RUNNING"),
    (0x80, "IFF_NOARP"),
    (0x100, "IFF_PROMISC"),
    (0x200, "IFF_ALLMULTI"),
    (0x400, "IFF_MASTER"),
    (0x800, "IFF_SLAVE"),
    (0x1000, "IFF_MULTICAST"),
    (0x2000, "IFF_PORTSEL"),
    (0x4000, "IFF_AUTOMEDIA"),
    (0x8000, "IFF_DYNAMIC"),
    (0x10000, "IFF_LOWER_UP"),
    (0x20000, "IFF_DORMANT"),
    (0x40000, "IFF_ECHO"),
];

const IFA_F: Table = &[
    (0x1, "IFA_F_SECONDARY"),
    (0x2, "IFA_F_NODAD"),
    (0x4, "IFA_F_OPTIMISTIC"),
    (0x8, "IFA_F_DADFAILED"),
    (0x10, "IFA_F_HOMEADDRESS"),
    (0x20, "IFA_F_DEPRECATED"),
    (0x40, "IFA_F_TENTATIVE"),
    (0x80, "IFA_F_PERMANENT"),
    (0x100, "IFA_F_MANAGETEMPADDR"),
    (0x200, "IFA_F_NOPREFIXROUTE"),
    (0x400, "IFA_F_MCAUTOJOIN"),
    (0x800, "IFA_F_STABLE_PRIVACY"),
];

const SCOPES: Table = &[
    (0, "RT_SCOPE_UNIVERSE"),
    (200, "RT_SCOPE_SITE"),
    (253, "RT_SCOPE_LINK"),
    (254, "RT_SCOPE_HOST"),
    (255, "RT_SCOPE_NOWHERE"),
];

const IFLA: Table = &[(3, "IFLA_IFNAME"), (4, "IFLA_MTU"), (29, "IFLA_EXT_MASK")];
const IFA: Table = &[
    (1, "IFA_ADDRESS"),
    (2, "IFA_LOCAL"),
    (3, "IFA_LABEL"),
    (4, "IFA_BROADCAST"),
    (5, "IFA_ANYCAST"),
    (6, "IFA_CACHEINFO"),
    (7, "IFA_MULTICAST"),
    (8, "IFA_FLAGS"),
    (9, "IFA_RT_PRIORITY"),
    (10, "IFA_TARGET_NETNSID"),
    (11, "IFA_PROTO"),
];
const RTEXT_FILTER: Table = &[
    (0x1, "RTEXT_FILTER_VF"),
    (0x2, "RTEXT_FILTER_BRVLAN"),
    (0x4, "RTEXT_FILTER_BRVLAN_COMPRESSED"),
    (0x8, "RTEXT_FILTER_SKIP_STATS"),
];

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// `len` bytes of NETLINK_ROUTE messages, of which `b` holds the copied start; None when the
/// copy holds less than one header (strace then prints the bytes).
pub fn messages(b: &[u8], len: usize) -> Option<String> {
    let b = &b[..b.len().min(len)];
    let mut items = Vec::new();
    let mut at = 0;
    while at + NLMSG_HDRLEN <= b.len() {
        let msg_len = u32_at(b, at)? as usize;
        let end = match msg_len {
            n if n < NLMSG_HDRLEN => None,
            n => Some((at + n).min(b.len())),
        };
        items.push(message(&b[at..end.unwrap_or(at + NLMSG_HDRLEN)], end.is_none()));
        if end.is_none() || at + msg_len > b.len() {
            break;
        }
        at += (msg_len + 3) & !3;
    }
    if items.is_empty() {
        return None;
    }
    Some(match items.len() {
        1 => items.remove(0),
        _ => format!("[{}]", items.join(", ")),
    })
}

/// One message: its header, and its payload when the header's length has one.
fn message(m: &[u8], header_only: bool) -> String {
    let ty = u16_at(m, 4).unwrap_or(0);
    let flags = u16_at(m, 6).unwrap_or(0) as u64;
    let type_text = match TYPES.iter().find(|(v, _)| *v == ty as u64) {
        Some((_, n)) => n.to_string(),
        None if ty == 0 => "0 /* NLMSG_??? */".into(),
        None if ty < 16 => format!("{ty:#x} /* NLMSG_??? */"),
        None => format!("{ty:#x} /* RTM_??? */"),
    };
    let header = format!(
        "{{nlmsg_len={}, nlmsg_type={type_text}, nlmsg_flags={}, nlmsg_seq={}, nlmsg_pid={}}}",
        u32_at(m, 0).unwrap_or(0),
        nlmsg_flags(ty, flags),
        u32_at(m, 8).unwrap_or(0),
        u32_at(m, 12).unwrap_or(0)
    );
    let payload = &m[NLMSG_HDRLEN.min(m.len())..];
    if header_only || payload.is_empty() {
        return header;
    }
    format!("[{header}, {}]", payload_text(ty, payload))
}

fn nlmsg_flags(ty: u16, flags: u64) -> String {
    let own = match ty {
        // rtnetlink: GET requests are types 4k+2, NEW ones 4k.
        16.. if ty % 4 == 2 => GET_FLAGS,
        16.. if ty.is_multiple_of(4) => NEW_FLAGS,
        _ => &[],
    };
    let (common, rest) = (flags & 0xff, flags & !0xff);
    let mut parts = Vec::new();
    if common != 0 {
        parts.push(super::flags(common, FLAGS));
    }
    if rest != 0 {
        parts.push(super::flags(rest, own));
    }
    match parts.is_empty() {
        true => "0".into(),
        false => parts.join("|"),
    }
}

fn payload_text(ty: u16, p: &[u8]) -> String {
    match ty {
        3 if p.len() >= 4 => (u32_at(p, 0).unwrap_or(0) as i32).to_string(),
        2 if p.len() >= 4 + NLMSG_HDRLEN => {
            let error = match u32_at(p, 0).unwrap_or(0) as i32 {
                0 => "0".to_string(),
                e => crate::errno::name(-e).map_or(e.to_string(), |n| format!("-{n}")),
            };
            format!("{{error={error}, msg={}}}", message(&p[4..4 + NLMSG_HDRLEN], true))
        }
        16..=19 if p.len() >= 16 => {
            let (fixed, attrs) = p.split_at(16);
            with_attrs(ifinfomsg(fixed), attrs, IFLA, "IFLA", &ifla_value)
        }
        20..=22 if p.len() >= 8 => {
            let (fixed, attrs) = p.split_at(8);
            let family = fixed[0];
            with_attrs(ifaddrmsg(fixed), attrs, IFA, "IFA", &|t, v| ifa_value(family, t, v))
        }
        _ => format!("\"{}\"", quote::escape(p)),
    }
}

fn ifinfomsg(f: &[u8]) -> String {
    format!(
        "{{ifi_family={}, ifi_type={}, ifi_index={}, ifi_flags={}, ifi_change={}}}",
        family(f[0]),
        one(u16_at(f, 2).unwrap_or(0) as i64, ARPHRD),
        index(u32_at(f, 4).unwrap_or(0)),
        flags_or_zero(u32_at(f, 8).unwrap_or(0) as u64, IFF),
        flags_or_zero(u32_at(f, 12).unwrap_or(0) as u64, IFF),
    )
}

fn ifaddrmsg(f: &[u8]) -> String {
    format!(
        "{{ifa_family={}, ifa_prefixlen={}, ifa_flags={}, ifa_scope={}, ifa_index={}}}",
        family(f[0]),
        f[1],
        flags_or_zero(f[2] as u64, IFA_F),
        one(f[3] as i64, SCOPES),
        index(u32_at(f, 4).unwrap_or(0)),
    )
}

fn family(f: u8) -> String {
    one(f as i64, super::DOMAINS)
}

/// An interface index, by name where this host has it (as strace's `if_nametoindex("lo")`).
fn index(i: u32) -> String {
    let mut name = [0u8; libc::IF_NAMESIZE];
    // SAFETY: the buffer holds IF_NAMESIZE bytes, as if_indextoname requires.
    let found = i != 0 && !unsafe { libc::if_indextoname(i, name.as_mut_ptr().cast()) }.is_null();
    match found {
        true => format!("if_nametoindex({})", quote::c_string(&name)),
        false => i.to_string(),
    }
}

type Value<'a> = &'a dyn Fn(u16, &[u8]) -> Option<String>;

/// The fixed part, then its attributes (one bare, several in a list).
fn with_attrs(fixed: String, attrs: &[u8], names: Table, prefix: &str, value: Value) -> String {
    let mut items = Vec::new();
    let mut at = 0;
    while at + 4 <= attrs.len() {
        let len = u16_at(attrs, at).unwrap_or(0) as usize;
        let ty = u16_at(attrs, at + 2).unwrap_or(0);
        if len < 4 || at + len > attrs.len() {
            break;
        }
        let data = &attrs[at + 4..at + len];
        let name = match names.iter().find(|(v, _)| *v == ty as u64) {
            Some((_, n)) => n.to_string(),
            None => format!("{ty:#x} /* {prefix}_??? */"),
        };
        let shown = value(ty, data).unwrap_or_else(|| format!("\"{}\"", hex(data)));
        items.push(format!("[{{nla_len={len}, nla_type={name}}}, {shown}]"));
        at += (len + 3) & !3;
    }
    match items.len() {
        0 => fixed,
        // A single attribute is printed without a list around it.
        1 => format!("{fixed}, {}", items[0]),
        _ => format!("{fixed}, [{}]", items.join(", ")),
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("\\x{x:02x}")).collect()
}

fn ifla_value(ty: u16, v: &[u8]) -> Option<String> {
    match ty {
        3 => Some(quote::c_string(v)),
        4 => Some(u32_at(v, 0)?.to_string()),
        29 => Some(flags_or_zero(u32_at(v, 0)? as u64, RTEXT_FILTER)),
        _ => None,
    }
}

fn ifa_value(family: u8, ty: u16, v: &[u8]) -> Option<String> {
    match ty {
        1 | 2 | 4 | 5 | 7 => address(family, v),
        3 => Some(quote::c_string(v)),
        6 => Some(format!(
            "{{ifa_prefered={}, ifa_valid={}, cstamp={}, tstamp={}}}",
            u32_at(v, 0)?,
            u32_at(v, 4)?,
            u32_at(v, 8)?,
            u32_at(v, 12)?
        )),
        8 => Some(flags_or_zero(u32_at(v, 0)? as u64, IFA_F)),
        9 => Some(u32_at(v, 0)?.to_string()),
        _ => None,
    }
}

fn address(family: u8, v: &[u8]) -> Option<String> {
    match family as i32 {
        libc::AF_INET if v.len() == 4 => {
            Some(format!("inet_addr(\"{}\")", std::net::Ipv4Addr::new(v[0], v[1], v[2], v[3])))
        }
        libc::AF_INET6 if v.len() == 16 => {
            let a: [u8; 16] = v.try_into().ok()?;
            Some(format!("inet_pton(AF_INET6, \"{}\")", std::net::Ipv6Addr::from(a)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
