//! Kernel types from BTF turned into sonde's types: integers, pointers, strings, arrays, and
//! structs/unions kept by id (`Type::Btf`) so members are looked up only when a program uses them.

use crate::model::site::FuncSig;
use crate::model::types::{EnumDef, Type};
use sonde_btf::{Btf, Kind, TypeId};
use std::rc::Rc;

pub fn func_sig(btf: &Btf, name: &str) -> Option<FuncSig> {
    let f = btf.find_func(name)?;
    Some(FuncSig {
        name: f.name.clone(),
        btf_id: f.id.0,
        params: f.params.iter().map(|p| (p.name.clone(), convert(btf, p.ty))).collect(),
        ret: convert(btf, f.ret),
    })
}

/// The sonde type of BTF type `id`.
pub fn convert(btf: &Btf, id: TypeId) -> Type {
    convert_depth(btf, id, 0)
}

fn convert_depth(btf: &Btf, id: TypeId, depth: u32) -> Type {
    // Modifier chains are short; a bound keeps malformed BTF from recursing forever.
    if depth > 32 {
        return Type::U64;
    }
    match btf.kind(id) {
        Kind::Void => Type::Void,
        Kind::Int { size, signed, char, .. } => match size {
            1 | 2 | 4 | 8 => Type::Int { bytes: size as u8, signed: signed || char },
            n => Type::Bytes(n as usize),
        },
        Kind::Enum { size, signed, .. } => match size {
            1 | 2 | 4 | 8 => Type::Int { bytes: size as u8, signed },
            _ => Type::S32,
        },
        Kind::Ptr(to) => {
            let (to, user) = pointee(btf, to, depth);
            Type::Ptr { to: Box::new(to), user }
        }
        Kind::Array { elem, len, .. } => {
            let e = convert_depth(btf, elem, depth + 1);
            if e.is_char() {
                Type::Str(len as usize)
            } else if e.is_scalar() || matches!(e, Type::Btf { .. }) {
                Type::Array { elem: Box::new(e), len: len as usize }
            } else {
                Type::Bytes(e.size() * len as usize)
            }
        }
        Kind::Struct { name, size, .. } => Type::Btf {
            id: id.0,
            name: format!("struct {}", name),
            size: size as usize,
            user: None,
        },
        Kind::Union { name, size, .. } => {
            Type::Btf { id: id.0, name: format!("union {}", name), size: size as usize, user: None }
        }
        Kind::Fwd { name, union } => Type::Btf {
            id: id.0,
            name: format!("{} {}", if union { "union" } else { "struct" }, name),
            size: 0,
            user: None,
        },
        Kind::Typedef { ty, .. } | Kind::Const(ty) | Kind::Volatile(ty) | Kind::Restrict(ty) => {
            convert_depth(btf, ty, depth + 1)
        }
        Kind::TypeTag { ty, .. } => convert_depth(btf, ty, depth + 1),
        Kind::Float { size, .. } => Type::Bytes(size as usize),
        // Function pointers and the rest: an address.
        _ => Type::Void,
    }
}

/// What a pointer points to, and whether a `user` type tag marks it as user memory.
fn pointee(btf: &Btf, mut id: TypeId, depth: u32) -> (Type, bool) {
    let mut user = false;
    for _ in 0..32 {
        match btf.kind(id) {
            Kind::TypeTag { tag, ty } => {
                user |= tag == "user";
                id = ty;
            }
            Kind::Const(ty) | Kind::Volatile(ty) | Kind::Restrict(ty) => id = ty,
            _ => break,
        }
    }
    (convert_depth(btf, id, depth + 1), user)
}

/// A member of struct/union `id`: its byte offset, type and, for bitfields, (bit shift, bits).
pub struct MemberType {
    pub offset: usize,
    pub ty: Type,
    pub bitfield: Option<(u32, u32)>,
    /// The enum the member is declared with, whose names its values print as.
    pub symbols: Option<Rc<EnumDef>>,
}

/// Look `name` up in the struct or union with BTF id `id` (through anonymous members).
/// `Err` carries the closest member names for a hint.
pub fn member(btf: &Btf, id: u32, name: &str) -> Result<MemberType, Vec<String>> {
    let Some(m) = btf.member(TypeId(id), name) else {
        return Err(btf.member_names(TypeId(id)));
    };
    let ty = convert(btf, m.ty);
    let bitfield = (m.bitfield_size != 0).then_some((m.bit_offset % 8, m.bitfield_size));
    Ok(MemberType { offset: m.byte_offset() as usize, ty, bitfield, symbols: enum_def(btf, m.ty) })
}

/// The enum BTF type `id` is (through typedefs and modifiers), with its enumerators.
pub fn enum_def(btf: &Btf, id: TypeId) -> Option<Rc<EnumDef>> {
    match btf.kind(btf.strip(id)) {
        Kind::Enum { name, values, .. } if !values.is_empty() => {
            Some(Rc::new(EnumDef { name, values }))
        }
        _ => None,
    }
}

/// `enum NAME` in the kernel's BTF, with its enumerators.
pub fn named_enum(btf: &Btf, name: &str) -> Option<Rc<EnumDef>> {
    let id = btf.find_named(sonde_btf::NamedKind::Enum, name.trim())?;
    enum_def(btf, id)
}

/// A type named in a cast: `struct task_struct`, `union x`, a typedef (`pid_t`), a base type.
pub fn named(btf: &Btf, base: &str) -> Option<Type> {
    use sonde_btf::NamedKind;
    let (kind, name) = if let Some(n) = base.strip_prefix("struct ") {
        (NamedKind::Struct, n.trim())
    } else if let Some(n) = base.strip_prefix("union ") {
        (NamedKind::Union, n.trim())
    } else if let Some(n) = base.strip_prefix("enum ") {
        (NamedKind::Enum, n.trim())
    } else {
        (NamedKind::Any, base.trim())
    };
    btf.find_named(kind, name).map(|id| convert(btf, id))
}

/// `ty` with each struct or union in it (through pointers and arrays) marked as `binary`'s.
pub fn of_user(ty: Type, binary: &std::rc::Rc<str>) -> Type {
    match ty {
        Type::Btf { id, name, size, .. } => {
            Type::Btf { id, name, size, user: Some(binary.clone()) }
        }
        Type::Ptr { to, user } => Type::Ptr { to: Box::new(of_user(*to, binary)), user },
        Type::Array { elem, len } => Type::Array { elem: Box::new(of_user(*elem, binary)), len },
        t => t,
    }
}
