//! Turning one raw record into the public [`Kind`] model.

use crate::model::{Func, Kind, Linkage, Member, Param, SecVar, TypeId};
use crate::raw::{self, Rec};
use crate::Btf;

// INT encoding bits (the tail word's bits 24-27).
const INT_SIGNED: u32 = 1;
const INT_CHAR: u32 = 2;
const INT_BOOL: u32 = 4;

impl Btf {
    /// What a type id is. Void for id 0 and for ids that do not exist (a malformed
    /// reference inside the data reads as void rather than failing).
    pub fn kind(&self, id: TypeId) -> Kind {
        let Some(r) = self.rec(id) else {
            return Kind::Void;
        };
        let name = || self.str_at(r.name_off).to_owned();
        let to = TypeId(r.size_or_type);
        match r.kind() {
            raw::INT => {
                let enc = r.word(0);
                Kind::Int {
                    name: name(),
                    size: r.size_or_type,
                    signed: (enc >> 24) & INT_SIGNED != 0,
                    char: (enc >> 24) & INT_CHAR != 0,
                    bool: (enc >> 24) & INT_BOOL != 0,
                    bits: enc as u8,
                    bit_offset: (enc >> 16) as u8,
                }
            }
            raw::PTR => Kind::Ptr(to),
            raw::ARRAY => {
                Kind::Array { elem: TypeId(r.word(0)), index: TypeId(r.word(1)), len: r.word(2) }
            }
            raw::STRUCT => {
                Kind::Struct { name: name(), size: r.size_or_type, members: self.members(r) }
            }
            raw::UNION => {
                Kind::Union { name: name(), size: r.size_or_type, members: self.members(r) }
            }
            raw::ENUM | raw::ENUM64 => Kind::Enum {
                name: name(),
                size: r.size_or_type,
                signed: r.kind_flag(),
                values: (0..r.vlen())
                    .map(|i| (self.str_at(enum_name_off(r, i)).to_owned(), enum_value(r, i)))
                    .collect(),
            },
            raw::FWD => Kind::Fwd { name: name(), union: r.kind_flag() },
            raw::TYPEDEF => Kind::Typedef { name: name(), ty: to },
            raw::VOLATILE => Kind::Volatile(to),
            raw::CONST => Kind::Const(to),
            raw::RESTRICT => Kind::Restrict(to),
            raw::TYPE_TAG => Kind::TypeTag { tag: name(), ty: to },
            raw::FUNC => {
                Kind::Func { name: name(), proto: to, linkage: Linkage::from_raw(r.vlen() as u32) }
            }
            raw::FUNC_PROTO => {
                let (params, variadic) = self.params(r);
                Kind::FuncProto { params, ret: to, variadic }
            }
            raw::VAR => Kind::Var { name: name(), ty: to, linkage: Linkage::from_raw(r.word(0)) },
            raw::DATASEC => Kind::Datasec {
                name: name(),
                size: r.size_or_type,
                vars: (0..r.vlen())
                    .map(|i| SecVar {
                        ty: TypeId(r.entry(i, 3, 0)),
                        offset: r.entry(i, 3, 1),
                        size: r.entry(i, 3, 2),
                    })
                    .collect(),
            },
            raw::FLOAT => Kind::Float { name: name(), size: r.size_or_type },
            raw::DECL_TAG => {
                let component = r.word(0) as i32;
                Kind::DeclTag { name: name(), ty: to, component: u32::try_from(component).ok() }
            }
            _ => Kind::Void,
        }
    }

    /// The declared members of a STRUCT/UNION record, with bitfields decoded.
    pub(crate) fn members(&self, r: Rec<'_>) -> Vec<Member> {
        (0..r.vlen())
            .map(|i| {
                let m = self.member_at(r, i);
                Member {
                    name: self.str_at(m.name_off).to_owned(),
                    ty: m.ty,
                    bit_offset: m.bit_offset,
                    bitfield_size: m.bitfield_size,
                }
            })
            .collect()
    }

    /// Member `i` of a STRUCT/UNION with its bitfield decoded either way BTF can encode it:
    /// with kind_flag set, `offset` packs bitfield size (bits 24-31) and bit offset (0-23);
    /// without it, a bitfield is a member whose INT type has fewer bits than its size (the
    /// INT's own bit offset adds to the member's).
    pub(crate) fn member_at(&self, r: Rec<'_>, i: usize) -> DecodedMember {
        let m = r.member(i);
        let ty = TypeId(m.ty);
        if r.kind_flag() {
            return DecodedMember {
                name_off: m.name_off,
                ty,
                bit_offset: m.offset & 0xff_ffff,
                bitfield_size: m.offset >> 24,
            };
        }
        let (mut bit_offset, mut bitfield_size) = (m.offset, 0);
        if let Some(t) = self.rec(ty).filter(|t| t.kind() == raw::INT) {
            let enc = t.word(0);
            let (bits, int_off) = (enc & 0xff, (enc >> 16) & 0xff);
            if int_off != 0 || u64::from(bits) != u64::from(t.size_or_type) * 8 {
                bitfield_size = bits;
                bit_offset = bit_offset.saturating_add(int_off);
            }
        }
        DecodedMember { name_off: m.name_off, ty, bit_offset, bitfield_size }
    }

    /// A FUNC_PROTO's params. A trailing entry with no name and type 0 marks `...`.
    pub(crate) fn params(&self, r: Rec<'_>) -> (Vec<Param>, bool) {
        let mut params: Vec<Param> = (0..r.vlen())
            .map(|i| {
                let (name_off, ty) = r.param(i);
                Param { name: self.str_at(name_off).to_owned(), ty: TypeId(ty) }
            })
            .collect();
        let variadic = params.last().is_some_and(|p| p.ty.is_void() && p.name.is_empty());
        if variadic {
            params.pop();
        }
        (params, variadic)
    }

    /// A FUNC record resolved through its FUNC_PROTO; `None` if the proto is not one.
    pub fn func(&self, id: TypeId) -> Option<Func> {
        let r = self.rec(id).filter(|r| r.kind() == raw::FUNC)?;
        let proto_id = TypeId(r.size_or_type);
        let proto = self.rec(proto_id).filter(|p| p.kind() == raw::FUNC_PROTO)?;
        let (params, variadic) = self.params(proto);
        Some(Func {
            name: self.str_at(r.name_off).to_owned(),
            id,
            proto: proto_id,
            params,
            ret: TypeId(proto.size_or_type),
            variadic,
            linkage: Linkage::from_raw(r.vlen() as u32),
        })
    }
}

/// A member with its bitfield decoded but its name not yet copied.
#[derive(Clone, Copy)]
pub(crate) struct DecodedMember {
    pub name_off: u32,
    pub ty: TypeId,
    pub bit_offset: u32,
    pub bitfield_size: u32,
}

pub(crate) fn enum_name_off(r: Rec<'_>, i: usize) -> u32 {
    let width = if r.kind() == raw::ENUM64 { 3 } else { 2 };
    r.entry(i, width, 0)
}

/// ENUM values are 32 bits, sign-extended only for signed enums (kind_flag); ENUM64 values
/// are split into low and high words.
pub(crate) fn enum_value(r: Rec<'_>, i: usize) -> i64 {
    if r.kind() == raw::ENUM64 {
        let (lo, hi) = (r.entry(i, 3, 1), r.entry(i, 3, 2));
        ((u64::from(hi) << 32) | u64::from(lo)) as i64
    } else {
        let v = r.entry(i, 2, 1);
        if r.kind_flag() {
            i64::from(v as i32)
        } else {
            i64::from(v)
        }
    }
}
