//! Expressions to definitions: member chains become `+OFFS(...)` nests at BTF's offsets, and the
//! member's type picks the fetch type.

use crate::arch;
use crate::def::{Arg, Fetch, FetchType};
use crate::env::Env;
use crate::error::ProbeError;
use crate::expr::ExprKind;
use crate::fetch::{Base, FetchExpr, Format, Step};
use crate::packet;
use crate::types::{self, parse_cast, shape, Shape, Ty};
use sonde_btf::{Btf, TypeId};

/// Where a probe stands, which decides what `%N` and `$retval` mean.
pub struct Site<'a> {
    pub kind: ExprKind,
    /// The kernel function (kprobes), for its BTF prototype.
    pub function: Option<&'a str>,
    /// The user binary (uprobes), whose own types casts name.
    pub binary: Option<&'a str>,
    /// Bytes into the function (`p SYM+OFF`).
    pub offset: u64,
    /// The whole expression, for messages.
    pub expr: &'a str,
}

/// Where the value is while a chain is followed.
enum Loc {
    /// The fetch yields the value itself.
    Value(Fetch),
    /// The value is in memory at (what `base` yields) + `offset`.
    Mem { base: Fetch, offset: i64 },
}

impl Loc {
    /// A fetch yielding the value (reading memory if needed).
    fn value(self) -> Fetch {
        match self {
            Loc::Value(f) => f,
            Loc::Mem { base, offset } => Fetch::Deref { offset, user: false, of: Box::new(base) },
        }
    }
}

/// One argument, and the members it unwrapped from an `atomic_t`-like struct (`.counter`).
pub fn resolve_arg(
    env: &dyn Env,
    site: &Site,
    name: &str,
    fx: &FetchExpr,
) -> Result<(Arg, String), ProbeError> {
    let user_types;
    let btf = match (site.binary, &fx.cast) {
        (None, _) => env.btf(),
        // A user program's types are its own: never the kernel's.
        (Some(path), Some(cast)) => match env.user_types(path) {
            Ok(types) => {
                user_types = types;
                Some(&user_types)
            }
            Err(_) if types::is_c_scalar(cast) => env.btf(),
            Err(why) => return Err(ProbeError::NoUserTypes { fetch: fx.text.clone(), why }),
        },
        (Some(_), None) => None,
    };
    let (fetch, mut ty) = base(env, site, fx)?;
    if let Some(cast) = &fx.cast {
        ty = parse_cast(btf, cast).ok_or_else(|| match (btf, site.binary) {
            (None, _) => ProbeError::NoBtf { fetch: fx.text.clone() },
            (Some(_), Some(binary)) => ProbeError::UnknownUserType {
                fetch: fx.text.clone(),
                ty: cast.clone(),
                binary: binary.into(),
            },
            (Some(_), None) => ProbeError::UnknownType { fetch: fx.text.clone(), ty: cast.clone() },
        })?;
    }
    if matches!(fetch, Fetch::Comm) {
        if !fx.chain.is_empty() {
            return Err(ProbeError::CommChain { fetch: fx.text.clone() });
        }
        return Ok((Arg { name: name.into(), fetch, ty: Some(FetchType::String) }, String::new()));
    }
    let mut chain = fx.chain.clone();
    let mut loc = match &fx.packet {
        None => Loc::Value(fetch),
        Some(pkt) => match packet::start(btf, fx, pkt, fetch, &ty)? {
            Err((fetch, fty)) => {
                return Ok((Arg { name: name.into(), fetch, ty: fty }, String::new()))
            }
            // The header is in memory: its first `->` is a `.` from there.
            Ok(start) => {
                ty = Ty::Btf(start.header);
                if let Some(Step::Arrow(m)) = chain.first().cloned() {
                    chain[0] = Step::Dot(m);
                }
                Loc::Mem { base: start.base, offset: start.offset }
            }
        },
    };
    let mut bitfield = None;
    for step in &chain {
        if matches!(ty, Ty::Unknown) {
            return Err(match (btf, site.binary) {
                (None, None) => ProbeError::NoBtf { fetch: fx.text.clone() },
                _ => ProbeError::Untyped { fetch: fx.text.clone() },
            });
        }
        let wrong = |op, member: &str, needs| ProbeError::WrongAccess {
            fetch: fx.text.clone(),
            op,
            member: member.to_string(),
            needs,
            ty: types::name(btf, &ty),
        };
        (loc, ty, bitfield) = match (step, shape(btf, &ty), loc) {
            (Step::Arrow(m), Shape::Ptr { to, .. }, loc) => {
                let Shape::Composite(id) = shape(btf, &to) else {
                    return Err(wrong("->", m, "a pointer to a struct or union"));
                };
                let (off, mty, bf) = member(btf, id, m, fx)?;
                (Loc::Mem { base: loc.value(), offset: off }, mty, bf)
            }
            (Step::Arrow(m), _, _) => return Err(wrong("->", m, "a pointer to a struct or union")),
            (Step::Dot(m), Shape::Composite(id), Loc::Mem { base, offset }) => {
                let (off, mty, bf) = member(btf, id, m, fx)?;
                (Loc::Mem { base, offset: offset + off }, mty, bf)
            }
            (Step::Dot(m), Shape::Ptr { .. }, _) => {
                return Err(wrong(".", m, "a struct (this is a pointer: use `->`)"))
            }
            (Step::Dot(m), _, _) => return Err(wrong(".", m, "a struct or union in memory")),
            (Step::Index(i), Shape::Array { elem, .. }, Loc::Mem { base, offset }) => {
                let size = types::size_of(btf, &elem).unwrap_or(0) as i64;
                (Loc::Mem { base, offset: offset + size * *i as i64 }, elem, None)
            }
            (Step::Index(i), Shape::Ptr { to, .. }, loc) => {
                let size = types::size_of(btf, &to).unwrap_or(0) as i64;
                (Loc::Mem { base: loc.value(), offset: size * *i as i64 }, to, None)
            }
            (Step::Index(i), _, _) => {
                return Err(wrong("[]", &i.to_string(), "an array or a pointer"))
            }
        };
    }
    let (ty, unwrapped) = types::unwrap_counter(btf, ty);
    let (fetch, fty) = finish(btf, site, fx, loc, &ty, bitfield)?;
    Ok((Arg { name: name.into(), fetch, ty: fty }, unwrapped))
}

/// The start of a fetch and its type.
fn base(env: &dyn Env, site: &Site, fx: &FetchExpr) -> Result<(Fetch, Ty), ProbeError> {
    let btf = env.btf();
    let func = site.function.and_then(|f| btf.and_then(|b| b.find_func(f)));
    Ok(match &fx.base {
        Base::Arg(n) => {
            if site.kind.is_return() {
                return Err(ProbeError::ArgOnReturn { expr: site.expr.into() });
            }
            if site.offset != 0 {
                return Err(ProbeError::ArgAtOffset);
            }
            let ty = match &func {
                Some(f) => match f.params.get(*n as usize) {
                    Some(p) => Ty::Btf(p.ty),
                    None => {
                        return Err(ProbeError::NoSuchArg {
                            n: *n,
                            func: f.name.clone(),
                            count: f.params.len(),
                        })
                    }
                },
                None => Ty::Unknown,
            };
            let fetch = match arch::ARG_REGS.get(*n as usize) {
                Some(r) => Fetch::Reg(r.to_string()),
                // Past the registers, arguments are on the stack above the return address.
                None => Fetch::Stack(*n - arch::ARG_REGS.len() as u32 + 1),
            };
            (fetch, ty)
        }
        Base::Reg(r) => {
            let reg =
                arch::register(r).ok_or_else(|| ProbeError::BadRegister { reg: r.clone() })?;
            (Fetch::Reg(reg.to_string()), Ty::Unknown)
        }
        Base::Retval => {
            if !site.kind.is_return() {
                return Err(ProbeError::RetvalOnEntry { expr: site.expr.into() });
            }
            let ty = func.map(|f| Ty::Btf(f.ret)).unwrap_or(Ty::Unknown);
            (Fetch::Retval, ty)
        }
        Base::Comm => (Fetch::Comm, Ty::Unknown),
        Base::Stack(n) => (Fetch::Stack(*n), Ty::Unknown),
        Base::Symbol(s) => {
            if !env.kernel_symbol(s) {
                return Err(ProbeError::UnknownSymbol { name: s.clone() });
            }
            (Fetch::Symbol { name: s.clone(), offset: 0 }, Ty::Unknown)
        }
        Base::Addr(a) => (Fetch::Addr(*a), Ty::Unknown),
    })
}

/// For a bitfield member: (bit offset from its first byte, width).
type Bitfield = Option<(u32, u32)>;

/// A member's byte offset, type and bitfield.
fn member(
    btf: Option<&Btf>,
    id: TypeId,
    name: &str,
    fx: &FetchExpr,
) -> Result<(i64, Ty, Bitfield), ProbeError> {
    let btf = btf.ok_or_else(|| ProbeError::NoBtf { fetch: fx.text.clone() })?;
    let Some(m) = btf.member(id, name) else {
        let names = btf.member_names(id);
        let near = btf
            .member_macro(id, name)
            .or_else(|| {
                sonde_syntax::closest(name, names.iter().map(String::as_str)).map(String::from)
            })
            .into_iter()
            .collect();
        return Err(ProbeError::NoMember {
            fetch: fx.text.clone(),
            ty: btf.type_name(id),
            member: name.into(),
            near,
        });
    };
    let bf = (m.bitfield_size != 0).then_some((m.bit_offset % 8, m.bitfield_size));
    Ok((m.byte_offset() as i64, Ty::Btf(m.ty), bf))
}

/// The last step: how the value is fetched and printed.
fn finish(
    btf: Option<&Btf>,
    site: &Site,
    fx: &FetchExpr,
    loc: Loc,
    ty: &Ty,
    bitfield: Option<(u32, u32)>,
) -> Result<(Fetch, Option<FetchType>), ProbeError> {
    let user = matches!(site.kind, ExprKind::Uprobe | ExprKind::Uretprobe);
    let int = |bytes: u8, signed: bool| {
        let bits = bytes * 8;
        match fx.format {
            Some(Format::Hex) => FetchType::Hex(bits),
            Some(Format::Signed) => FetchType::Signed(bits),
            Some(Format::Unsigned) => FetchType::Unsigned(bits),
            None if signed => FetchType::Signed(bits),
            None => FetchType::Unsigned(bits),
        }
    };
    let aggregate = || ProbeError::Aggregate { fetch: fx.text.clone(), ty: types::name(btf, ty) };
    Ok(match shape(btf, ty) {
        Shape::Int { bytes, signed, .. } => match (bitfield, loc) {
            (Some((bit, width)), Loc::Mem { base, offset }) => {
                // Read the 32- (or 64-) bit container the field lies in, aligned.
                let abs = offset as u64 * 8 + bit as u64;
                let container = if abs % 32 + width as u64 <= 32 { 32 } else { 64 };
                let start = abs / container * container;
                let fetch =
                    Fetch::Deref { offset: (start / 8) as i64, user: false, of: Box::new(base) };
                let ty = FetchType::Bitfield {
                    width: width as u8,
                    offset: (abs - start) as u8,
                    container: container as u8,
                };
                (fetch, Some(ty))
            }
            (_, loc) => (loc.value(), Some(int(bytes, signed))),
        },
        Shape::Ptr { to, user: tagged } => {
            let char_ptr = matches!(shape(btf, &to), Shape::Int { bytes: 1, char: true, .. });
            if char_ptr && fx.format.is_none() {
                let s = if tagged && !user { FetchType::Ustring } else { FetchType::String };
                let fetch = Fetch::Deref { offset: 0, user: false, of: Box::new(loc.value()) };
                (fetch, Some(s))
            } else {
                (loc.value(), Some(int(8, false)).map(hex_unless_asked(fx)))
            }
        }
        Shape::Array { elem, len } => {
            let Loc::Mem { base, offset } = loc else { return Err(aggregate()) };
            let fetch = Fetch::Deref { offset, user: false, of: Box::new(base) };
            match shape(btf, &elem) {
                Shape::Int { char: true, .. } if fx.format.is_none() => {
                    (fetch, Some(FetchType::String))
                }
                Shape::Int { bytes, signed, .. } if len < 64 => {
                    (fetch, Some(FetchType::Array { elem: Box::new(int(bytes, signed)), len }))
                }
                _ => return Err(aggregate()),
            }
        }
        Shape::Composite(_) | Shape::Other => return Err(aggregate()),
        // A bare register, stack slot or symbol: a machine word.
        Shape::Unknown => match loc {
            Loc::Value(Fetch::Symbol { .. }) if fx.format.is_none() => (loc.value(), None),
            loc => (loc.value(), Some(int(8, false))),
        },
    })
}

/// Pointers print in hex unless the user asked for S or U.
fn hex_unless_asked(fx: &FetchExpr) -> impl Fn(FetchType) -> FetchType + '_ {
    move |t| match (fx.format, t) {
        (None, FetchType::Unsigned(b)) => FetchType::Hex(b),
        (_, t) => t,
    }
}
