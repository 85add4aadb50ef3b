//! The crate's own model of kernel types, independent of any compiler's type system.

use std::fmt;

/// A BTF type id. 0 is `void`; ids of module (split) BTF continue after vmlinux's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TypeId(pub u32);

impl TypeId {
    pub const VOID: TypeId = TypeId(0);

    pub fn is_void(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for TypeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What one type id is. Names are owned copies; "" means anonymous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Void,
    /// `bits`/`bit_offset` only differ from `size * 8`/0 in old-style bitfield encodings.
    /// pahole encodes plain `char` with no flags (`char: false, signed: false`): only its
    /// name tells it apart from `unsigned char`.
    Int {
        name: String,
        size: u32,
        signed: bool,
        char: bool,
        bool: bool,
        bits: u8,
        bit_offset: u8,
    },
    /// BTF has no pointer size; the kernel's is 8 on every arch sonde targets.
    Ptr(TypeId),
    Array {
        elem: TypeId,
        index: TypeId,
        len: u32,
    },
    Struct {
        name: String,
        size: u32,
        members: Vec<Member>,
    },
    Union {
        name: String,
        size: u32,
        members: Vec<Member>,
    },
    /// ENUM and ENUM64. Values of unsigned 64-bit enums above `i64::MAX` are stored
    /// bit-for-bit (negative here); `signed` tells how to read them.
    Enum {
        name: String,
        size: u32,
        signed: bool,
        values: Vec<(String, i64)>,
    },
    /// A declaration without a body (`struct foo;`); its size is unknown.
    Fwd {
        name: String,
        union: bool,
    },
    Typedef {
        name: String,
        ty: TypeId,
    },
    Volatile(TypeId),
    Const(TypeId),
    Restrict(TypeId),
    /// `__attribute__((btf_type_tag("user")))` and friends: kernel BTF tags pointees with
    /// "user", "rcu", "percpu"; "user" means the pointer must be read with probe_read_user.
    TypeTag {
        tag: String,
        ty: TypeId,
    },
    Func {
        name: String,
        proto: TypeId,
        linkage: Linkage,
    },
    FuncProto {
        params: Vec<Param>,
        ret: TypeId,
        variadic: bool,
    },
    Var {
        name: String,
        ty: TypeId,
        linkage: Linkage,
    },
    Datasec {
        name: String,
        size: u32,
        vars: Vec<SecVar>,
    },
    Float {
        name: String,
        size: u32,
    },
    /// A `btf_decl_tag` on `ty`, or on its `component`-th member/param.
    DeclTag {
        name: String,
        ty: TypeId,
        component: Option<u32>,
    },
}

/// A struct/union member as declared (anonymous members are not flattened here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// "" for an anonymous struct/union member or unnamed bitfield padding.
    pub name: String,
    pub ty: TypeId,
    /// From the start of the enclosing struct/union.
    pub bit_offset: u32,
    /// 0 when the member is not a bitfield.
    pub bitfield_size: u32,
}

/// Where a (possibly nested-anonymous) member sits, from the start of the outer struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberAt {
    pub ty: TypeId,
    pub bit_offset: u32,
    /// 0 when the member is not a bitfield.
    pub bitfield_size: u32,
}

impl MemberAt {
    /// The byte holding the member's first bit.
    pub fn byte_offset(&self) -> u32 {
        self.bit_offset / 8
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// "" when the prototype does not name it (function pointers).
    pub name: String,
    pub ty: TypeId,
}

/// A kernel function, with its prototype resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    pub name: String,
    /// The FUNC's id: what fentry/fexit programs pass as `attach_btf_id`.
    pub id: TypeId,
    /// The FUNC_PROTO's id, for `type_name`.
    pub proto: TypeId,
    /// Empty for `f(void)`; the trailing `...` of a variadic function is not a param.
    pub params: Vec<Param>,
    /// `TypeId::VOID` for functions returning nothing.
    pub ret: TypeId,
    pub variadic: bool,
    pub linkage: Linkage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    Static,
    Global,
    Extern,
    Other(u32),
}

impl Linkage {
    pub(crate) fn from_raw(v: u32) -> Linkage {
        match v {
            0 => Linkage::Static,
            1 => Linkage::Global,
            2 => Linkage::Extern,
            n => Linkage::Other(n),
        }
    }
}

/// A variable inside a DATASEC (e.g. a per-CPU variable in `.data..percpu`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SecVar {
    pub ty: TypeId,
    pub offset: u32,
    pub size: u32,
}

/// Which kinds `find_named` accepts: `struct x`, `union x`, `enum x`, or a bare name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedKind {
    Struct,
    Union,
    /// ENUM or ENUM64.
    Enum,
    Typedef,
    Int,
    Float,
    /// Any type kind (not functions or variables), preferring a full definition to a `Fwd`.
    Any,
}
