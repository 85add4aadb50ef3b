//! surftrace's packet parsing: `@(struct iphdr *)l3%0->saddr` reads the header at the skb's
//! `data` pointer, `l2`/`l3`/`l4` saying which layer `data` points at where the probe fires.
//! Headers above that layer are found by the sizes of those below (an IPv4 header without
//! options, as surftrace assumes). The `xdata` members (`cdata`, `sdata`, `ldata`, `qdata`,
//! `Sdata`) read the bytes after the header, indexed in their own width.

use crate::def::{Fetch, FetchType};
use crate::error::ProbeError;
use crate::fetch::{FetchExpr, Format, Packet, Step};
use crate::types::{self, shape, Shape, Ty};
use sonde_btf::{Btf, NamedKind, TypeId};

/// The headers surftrace knows, with their layer.
const HEADERS: [(&str, u8); 5] =
    [("ethhdr", 2), ("iphdr", 3), ("icmphdr", 4), ("tcphdr", 4), ("udphdr", 4)];

/// Where a packet fetch starts: the header in memory, and the chain left to follow.
pub struct Start {
    /// `+data(skb)`: the address the header's offsets count from.
    pub base: Fetch,
    /// The header's offset from `skb->data`.
    pub offset: i64,
    pub header: TypeId,
}

/// An `xdata` read: the fetch and its type, done.
pub type Done = (Fetch, Option<FetchType>);

/// The header a packet cast names, and where it is; or the finished fetch of an `xdata` member.
pub fn start(
    btf: Option<&Btf>,
    fx: &FetchExpr,
    pkt: &Packet,
    skb: Fetch,
    skb_ty: &Ty,
) -> Result<Result<Start, Done>, ProbeError> {
    let btf = btf.ok_or_else(|| ProbeError::NoBtf { fetch: fx.text.clone() })?;
    let bad = |why: String| ProbeError::Packet { fetch: fx.text.clone(), why };
    let name = pkt.ty.strip_suffix(" *").and_then(|t| t.strip_prefix("struct ")).unwrap_or("");
    let Some(&(_, layer)) = HEADERS.iter().find(|(h, _)| *h == name) else {
        return Err(bad(format!(
            "`{}` is not one of struct ethhdr *, struct iphdr *, struct icmphdr *, struct tcphdr *, struct udphdr *",
            pkt.ty
        )));
    };
    if layer < pkt.layer {
        return Err(bad(format!(
            "`{}` is a layer {layer} header, below the l{} the skb's data points at",
            pkt.ty, pkt.layer
        )));
    }
    if !matches!(skb_ty, Ty::Unknown) && !is_skb(btf, skb_ty) {
        return Err(bad(format!(
            "packet parsing reads a `struct sk_buff *`, and this is `{}`",
            types::name(Some(btf), skb_ty)
        )));
    }
    let header = find(btf, name, fx)?;
    let sk_buff = find(btf, "sk_buff", fx)?;
    let data = btf.member(sk_buff, "data").ok_or_else(|| bad("sk_buff has no `data`".into()))?;
    let base = Fetch::Deref { offset: data.byte_offset() as i64, user: false, of: Box::new(skb) };
    // The headers between the layer data points at and the one asked for.
    let mut offset = 0i64;
    for l in pkt.layer..layer {
        let below = if l == 2 { "ethhdr" } else { "iphdr" };
        offset += btf.size_of(find(btf, below, fx)?).unwrap_or(0) as i64;
    }
    let Some(Step::Arrow(first)) = fx.chain.first() else {
        return Err(bad("name a member of the header with `->`".into()));
    };
    let Some((width, string)) = xdata(first) else {
        return Ok(Ok(Start { base, offset, header }));
    };
    // xdata: the bytes after the header, `[i]` counted in the member's width.
    let index = match &fx.chain[1..] {
        [] => 0,
        [Step::Index(i)] => *i as i64,
        _ => return Err(bad(format!("`{first}` takes only an index (`{first}[1]`)"))),
    };
    let size = btf.size_of(header).unwrap_or(0) as i64;
    let fetch =
        Fetch::Deref { offset: offset + size + index * width, user: false, of: Box::new(base) };
    let bits = (width * 8) as u8;
    let ty = match (string, fx.format) {
        (true, _) => FetchType::String,
        (false, Some(Format::Hex)) => FetchType::Hex(bits),
        (false, Some(Format::Signed)) => FetchType::Signed(bits),
        (false, _) => FetchType::Unsigned(bits),
    };
    Ok(Err((fetch, Some(ty))))
}

/// The width of an `xdata` member, and whether it is the string one.
fn xdata(member: &str) -> Option<(i64, bool)> {
    Some(match member {
        "cdata" => (1, false),
        "sdata" => (2, false),
        "ldata" => (4, false),
        "qdata" => (8, false),
        "Sdata" => (1, true),
        _ => return None,
    })
}

fn find(btf: &Btf, name: &str, fx: &FetchExpr) -> Result<TypeId, ProbeError> {
    btf.find_named(NamedKind::Struct, name).ok_or_else(|| ProbeError::UnknownType {
        fetch: fx.text.clone(),
        ty: format!("struct {name}"),
    })
}

fn is_skb(btf: &Btf, ty: &Ty) -> bool {
    let Shape::Ptr { to, .. } = shape(Some(btf), ty) else { return false };
    matches!(shape(Some(btf), &to), Shape::Composite(id) if btf.type_name(btf.strip(id)) == "struct sk_buff")
}
