//! The few shapes a fetch cares about, read from sonde-btf on demand (the same lookups the
//! language uses: `Btf::member`, `Btf::strip`, `Btf::size_of`, `Btf::find_named`).

use sonde_btf::{Btf, Kind, NamedKind, TypeId};

/// A value's type: from BTF, a cast, or unknown (a bare register).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Unknown,
    Int {
        bytes: u8,
        signed: bool,
    },
    Btf(TypeId),
    /// A pointer a cast made (`!(struct file *)`), which BTF may have no type id for.
    PtrTo(Box<Ty>),
}

/// What a type is, for fetching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Unknown,
    Int {
        bytes: u8,
        signed: bool,
        char: bool,
    },
    Ptr {
        to: Ty,
        user: bool,
    },
    Composite(TypeId),
    Array {
        elem: Ty,
        len: u32,
    },
    /// Functions, floats, void: nothing ftrace can print.
    Other,
}

pub fn shape(btf: Option<&Btf>, ty: &Ty) -> Shape {
    let id = match ty {
        Ty::Unknown => return Shape::Unknown,
        Ty::Int { bytes, signed } => {
            return Shape::Int { bytes: *bytes, signed: *signed, char: false }
        }
        Ty::PtrTo(to) => return Shape::Ptr { to: (**to).clone(), user: false },
        Ty::Btf(id) => *id,
    };
    let Some(btf) = btf else { return Shape::Unknown };
    match btf.kind(btf.strip(id)) {
        Kind::Int { size, signed, char, name, .. } => match size {
            1 | 2 | 4 | 8 => Shape::Int {
                bytes: size as u8,
                // pahole writes plain `char` with no flags: only its name says it is a char.
                signed,
                char: char || name.ends_with("char"),
            },
            _ => Shape::Other,
        },
        Kind::Enum { size, signed, .. } => Shape::Int { bytes: size as u8, signed, char: false },
        Kind::Ptr(to) => {
            let user = user_tagged(btf, to);
            Shape::Ptr { to: Ty::Btf(to), user }
        }
        Kind::Struct { .. } | Kind::Union { .. } | Kind::Fwd { .. } => Shape::Composite(id),
        Kind::Array { elem, len, .. } => Shape::Array { elem: Ty::Btf(elem), len },
        _ => Shape::Other,
    }
}

/// Whether a pointee carries the `user` type tag (clang-built kernels only).
fn user_tagged(btf: &Btf, mut id: TypeId) -> bool {
    for _ in 0..16 {
        match btf.kind(id) {
            Kind::TypeTag { tag, .. } if tag == "user" => return true,
            Kind::TypeTag { ty, .. } | Kind::Const(ty) | Kind::Volatile(ty) => id = ty,
            _ => return false,
        }
    }
    false
}

pub fn size_of(btf: Option<&Btf>, ty: &Ty) -> Option<u64> {
    match ty {
        Ty::Int { bytes, .. } => Some(*bytes as u64),
        Ty::PtrTo(_) => Some(8),
        Ty::Btf(id) => btf?.size_of(*id).map(|s| s as u64),
        Ty::Unknown => None,
    }
}

pub fn name(btf: Option<&Btf>, ty: &Ty) -> String {
    match ty {
        Ty::Unknown => "unknown".into(),
        Ty::Int { bytes, signed } => format!("{}{}", if *signed { 's' } else { 'u' }, bytes * 8),
        Ty::PtrTo(to) => format!("{} *", name(btf, to)),
        Ty::Btf(id) => btf.map(|b| b.type_name(*id)).unwrap_or_default(),
    }
}

/// A cast's type: `u8`..`u64`, `s8`..`s64`, or a kernel type with any number of `*`.
/// `None` when BTF does not know it.
pub fn parse_cast(btf: Option<&Btf>, text: &str) -> Option<Ty> {
    let stars = text.chars().filter(|&c| c == '*').count();
    let base = text.trim_end_matches(['*', ' ']);
    let mut ty = match builtin(base) {
        Some(t) => t,
        None => {
            let btf = btf?;
            let (kind, name) = if let Some(n) = base.strip_prefix("struct ") {
                (NamedKind::Struct, n)
            } else if let Some(n) = base.strip_prefix("union ") {
                (NamedKind::Union, n)
            } else if let Some(n) = base.strip_prefix("enum ") {
                (NamedKind::Enum, n)
            } else {
                (NamedKind::Any, base)
            };
            Ty::Btf(btf.find_named(kind, name)?)
        }
    };
    for _ in 0..stars {
        ty = Ty::PtrTo(Box::new(ty));
    }
    Some(ty)
}

/// Whether cast `text` names only C's own scalar types (`char *`, `unsigned long`, `u32`), which
/// are the same in a program and in the kernel on one ABI.
pub fn is_c_scalar(text: &str) -> bool {
    const WORDS: [&str; 14] = [
        "char", "short", "int", "long", "unsigned", "signed", "void", "const", "volatile", "_Bool",
        "bool", "float", "double", "*",
    ];
    let base = text.replace('*', " * ");
    let mut words = base.split_whitespace().peekable();
    words.peek().is_some() && words.all(|w| WORDS.contains(&w) || builtin(w).is_some())
}

fn builtin(name: &str) -> Option<Ty> {
    let (signed, bits) = match name.as_bytes().first()? {
        b'u' => (false, &name[1..]),
        b's' => (true, &name[1..]),
        _ => return None,
    };
    let bytes = match bits {
        "8" => 1,
        "16" => 2,
        "32" => 4,
        "64" => 8,
        _ => return None,
    };
    Some(Ty::Int { bytes, signed })
}

/// `atomic_t`, `refcount_t`, `kuid_t`: a struct around one integer at its start prints as that
/// integer (surftrace's `S%0->mm->mm_users` is an s32). Also the members walked (`.counter`),
/// which the language must name.
pub fn unwrap_counter(btf: Option<&Btf>, ty: Ty) -> (Ty, String) {
    let mut ty = ty;
    let mut path = String::new();
    for _ in 0..4 {
        let Some(b) = btf else { return (ty, path) };
        let Shape::Composite(id) = shape(btf, &ty) else { return (ty, path) };
        match b.kind(b.strip(id)) {
            Kind::Struct { members, .. }
                if members.len() == 1
                    && members[0].bit_offset == 0
                    && members[0].bitfield_size == 0 =>
            {
                path += &format!(".{}", members[0].name);
                ty = Ty::Btf(members[0].ty)
            }
            _ => return (ty, path),
        }
    }
    (ty, path)
}
