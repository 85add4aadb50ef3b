//! DWARF's types as BTF: base types, pointers, structs and unions (with bitfields), enums,
//! arrays, typedefs and qualifiers, each DWARF type entry one BTF type; and functions with
//! their parameters' names and types (a FUNC_PROTO and a FUNC each), for uprobe arguments. What BTF cannot say
//! (C++ classes' methods, templates) is left out; a reference to a type left out reads as void.

use std::collections::HashMap;

use gimli::{constants as dw, AttributeValue, Reader as _};
use sonde_btf::builder::Builder;

use crate::debuginfo::{DebugInfo, NoDebugInfo, R};

/// A reference to another type entry: the number of the DWARF it is in (split DWARF has one a
/// `.dwo`) and its offset in that DWARF's .debug_info (`None` is void).
type Ref = Option<(usize, usize)>;

/// One BTF type to write, with its references still DWARF offsets.
enum Item {
    Int {
        name: String,
        size: u32,
        encoding: u32,
    },
    Float {
        name: String,
        size: u32,
    },
    Ptr(Ref),
    Typedef(String, Ref),
    Const(Ref),
    Volatile(Ref),
    Restrict(Ref),
    Composite {
        union: bool,
        name: String,
        size: u32,
        members: Vec<Member>,
    },
    Fwd {
        union: bool,
        name: String,
    },
    Enum {
        name: String,
        size: u32,
        signed: bool,
        values: Vec<(String, i64)>,
    },
    /// One dimension; `inner` is the next dimension's id, else the element type.
    Array {
        elem: Ref,
        inner: Option<u32>,
        len: u32,
    },
    Proto(Ref),
    /// A function's prototype (the FUNC after it names it): return type, named parameters.
    FuncProto {
        ret: Ref,
        params: Vec<(String, Ref)>,
    },
    /// A function, named; `proto` is the BTF id of its FuncProto.
    Func {
        name: String,
        proto: u32,
    },
}

struct Member {
    name: String,
    ty: Ref,
    bit_offset: u32,
    bit_size: u32,
}

/// A binary's DWARF (split units' included) as a BTF blob.
pub fn to_btf(info: &DebugInfo) -> Result<Vec<u8>, NoDebugInfo> {
    let mut c = Collect { items: Vec::new(), ids: HashMap::new(), src: 0 };
    info.each_unit(|src, dwarf, unit| {
        c.src = src;
        let mut tree = unit.entries_tree(None)?;
        c.walk(dwarf, unit, tree.root()?)
    })?;
    Ok(c.emit())
}

struct Collect {
    /// Item `i` becomes BTF type `i + 2`; type 1 is the arrays' index type.
    items: Vec<Item>,
    ids: HashMap<(usize, usize), u32>,
    /// The number of the DWARF being walked.
    src: usize,
}

impl Collect {
    fn next_id(&self) -> u32 {
        self.items.len() as u32 + 2
    }

    fn walk(
        &mut self,
        dwarf: &gimli::Dwarf<R>,
        unit: &gimli::Unit<R>,
        node: gimli::EntriesTreeNode<R>,
    ) -> Result<(), gimli::Error> {
        let e = node.entry();
        let at = e.offset().to_debug_info_offset(&unit.header).map(|o| (self.src, o.0));
        let tag = e.tag();
        let name = name_of(dwarf, unit, e)?;
        let size = udata(e, dw::DW_AT_byte_size)?.unwrap_or(0) as u32;
        let ty = reference(unit, e, self.src)?;
        let func_name = (tag == dw::DW_TAG_subprogram).then(|| name.clone());
        let item = match tag {
            dw::DW_TAG_base_type => {
                let enc = match e.attr_value(dw::DW_AT_encoding)? {
                    Some(AttributeValue::Encoding(enc)) => enc,
                    _ => dw::DW_ATE_unsigned,
                };
                match enc {
                    dw::DW_ATE_float => Some(Item::Float { name, size }),
                    dw::DW_ATE_boolean => Some(Item::Int { name, size, encoding: 4 }),
                    dw::DW_ATE_signed => Some(Item::Int { name, size, encoding: 1 }),
                    dw::DW_ATE_signed_char => Some(Item::Int { name, size, encoding: 1 | 2 }),
                    dw::DW_ATE_unsigned_char => Some(Item::Int { name, size, encoding: 2 }),
                    _ => Some(Item::Int { name, size, encoding: 0 }),
                }
            }
            dw::DW_TAG_pointer_type | dw::DW_TAG_reference_type => Some(Item::Ptr(ty)),
            dw::DW_TAG_typedef => Some(Item::Typedef(name, ty)),
            dw::DW_TAG_const_type => Some(Item::Const(ty)),
            dw::DW_TAG_volatile_type | dw::DW_TAG_atomic_type => Some(Item::Volatile(ty)),
            dw::DW_TAG_restrict_type => Some(Item::Restrict(ty)),
            dw::DW_TAG_subroutine_type => Some(Item::Proto(ty)),
            dw::DW_TAG_structure_type | dw::DW_TAG_union_type | dw::DW_TAG_class_type => {
                let union = tag == dw::DW_TAG_union_type;
                if flag(e, dw::DW_AT_declaration)? {
                    Some(Item::Fwd { union, name })
                } else {
                    // Filled in below, from the children.
                    Some(Item::Composite { union, name, size, members: Vec::new() })
                }
            }
            dw::DW_TAG_enumeration_type => {
                let signed = false;
                Some(Item::Enum { name, size, signed, values: Vec::new() })
            }
            dw::DW_TAG_array_type => Some(Item::Array { elem: ty, inner: None, len: 0 }),
            // A definition with a name (inlined copies and declarations name none or are
            // declarations; the definition has the parameters).
            dw::DW_TAG_subprogram if !name.is_empty() && !flag(e, dw::DW_AT_declaration)? => {
                Some(Item::FuncProto { ret: ty, params: Vec::new() })
            }
            _ => None,
        };
        let index = item.as_ref().map_or(usize::MAX, |_| self.items.len());
        if let Some(item) = item {
            if let Some(at) = at {
                self.ids.insert(at, self.next_id());
            }
            self.items.push(item);
        }
        let mut dims = Vec::new();
        let mut children = node.children();
        while let Some(child) = children.next()? {
            let ce = child.entry();
            match (ce.tag(), self.items.get_mut(index)) {
                (dw::DW_TAG_member, Some(Item::Composite { members, size, .. })) => {
                    members.push(member(dwarf, unit, ce, *size, self.src)?);
                }
                (dw::DW_TAG_enumerator, Some(Item::Enum { values, signed, .. })) => {
                    let n = name_of(dwarf, unit, ce)?;
                    let v = match ce.attr_value(dw::DW_AT_const_value)? {
                        Some(AttributeValue::Sdata(v)) => {
                            *signed |= v < 0;
                            v
                        }
                        Some(v) => v.udata_value().unwrap_or(0) as i64,
                        None => 0,
                    };
                    values.push((n, v));
                }
                (dw::DW_TAG_formal_parameter, Some(Item::FuncProto { params, .. })) => {
                    params.push((name_of(dwarf, unit, ce)?, reference(unit, ce, self.src)?));
                }
                (dw::DW_TAG_subrange_type, Some(Item::Array { .. })) => {
                    let len = match (udata(ce, dw::DW_AT_count)?, udata(ce, dw::DW_AT_upper_bound)?)
                    {
                        (Some(n), _) => n,
                        (None, Some(upper)) => upper + 1,
                        _ => 0,
                    };
                    dims.push(len as u32);
                }
                _ => {}
            }
            self.walk(dwarf, unit, child)?;
        }
        if let Some(Item::Array { elem, .. }) = self.items.get(index) {
            self.dimensions(index, *elem, &dims);
        }
        if let (Some(Item::FuncProto { .. }), Some(name)) = (self.items.get(index), func_name) {
            self.items.push(Item::Func { name, proto: index as u32 + 2 });
        }
        Ok(())
    }

    /// `T x[a][b]` is an array of `a` arrays of `b` T: the entry's item takes the first
    /// dimension and each further one is an item of its own, appended now.
    fn dimensions(&mut self, index: usize, elem: Ref, dims: &[u32]) {
        let Some((&first, rest)) = dims.split_first() else { return };
        let inner = (!rest.is_empty()).then(|| self.next_id());
        self.items[index] = Item::Array { elem, inner, len: first };
        for (i, &len) in rest.iter().enumerate() {
            let inner = (i + 1 < rest.len()).then(|| self.next_id() + 1);
            self.items.push(Item::Array { elem, inner, len });
        }
    }

    fn emit(&self) -> Vec<u8> {
        let mut b = Builder::new();
        b.int_enc("__ARRAY_SIZE_TYPE__", 4, 0, 0, 32);
        let id = |r: &Ref| r.and_then(|o| self.ids.get(&o).copied()).unwrap_or(0);
        for item in &self.items {
            match item {
                Item::Int { name, size, encoding } => {
                    b.int_enc(name, *size, *encoding, 0, size * 8);
                }
                Item::Float { name, size } => {
                    b.float(name, *size);
                }
                Item::Ptr(r) => {
                    b.ptr(id(r));
                }
                Item::Typedef(name, r) => {
                    b.typedef(name, id(r));
                }
                Item::Const(r) => {
                    b.const_(id(r));
                }
                Item::Volatile(r) => {
                    b.volatile(id(r));
                }
                Item::Restrict(r) => {
                    b.restrict(id(r));
                }
                Item::Proto(r) => {
                    b.func_proto(id(r), &[]);
                }
                Item::FuncProto { ret, params } => {
                    let p: Vec<(&str, u32)> =
                        params.iter().map(|(n, r)| (n.as_str(), id(r))).collect();
                    b.func_proto(id(ret), &p);
                }
                Item::Func { name, proto } => {
                    b.func(name, *proto, 1);
                }
                Item::Fwd { union, name } => {
                    b.fwd(name, *union);
                }
                Item::Composite { union, name, size, members } => {
                    let bitfields = members.iter().any(|m| m.bit_size != 0);
                    let words: Vec<(&str, u32, u32)> = members
                        .iter()
                        .map(|m| {
                            let off = match bitfields {
                                true => (m.bit_size << 24) | m.bit_offset,
                                false => m.bit_offset,
                            };
                            (m.name.as_str(), id(&m.ty), off)
                        })
                        .collect();
                    let kind = if *union { 5 } else { 4 };
                    b.composite(kind, name, *size, bitfields, &words);
                }
                Item::Enum { name, size, signed, values } => {
                    let v: Vec<(&str, u32)> =
                        values.iter().map(|(n, v)| (n.as_str(), *v as u32)).collect();
                    b.enum32(name, *size, *signed, &v);
                }
                Item::Array { elem, inner, len } => {
                    b.array(inner.unwrap_or_else(|| id(elem)), 1, *len);
                }
            }
        }
        b.build()
    }
}

/// A member's name, type and place in bits (DWARF 4+'s `DW_AT_data_bit_offset`, or DWARF 2's
/// `DW_AT_bit_offset` counted from the storage unit's most significant bit).
fn member(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    e: &gimli::DebuggingInformationEntry<R>,
    parent_size: u32,
    src: usize,
) -> Result<Member, gimli::Error> {
    let bit_size = udata(e, dw::DW_AT_bit_size)?.unwrap_or(0) as u32;
    let byte = match e.attr_value(dw::DW_AT_data_member_location)? {
        Some(AttributeValue::Exprloc(expr)) => plus_uconst(expr.0),
        Some(v) => v.udata_value().unwrap_or(0),
        None => 0,
    };
    let bit_offset = match (udata(e, dw::DW_AT_data_bit_offset)?, udata(e, dw::DW_AT_bit_offset)?) {
        (Some(bits), _) => bits,
        (None, Some(from_msb)) => {
            let storage = udata(e, dw::DW_AT_byte_size)?.unwrap_or(parent_size.min(4) as u64);
            byte * 8 + (storage * 8).saturating_sub(from_msb + bit_size as u64)
        }
        (None, None) => byte * 8,
    };
    Ok(Member {
        name: name_of(dwarf, unit, e)?,
        ty: reference(unit, e, src)?,
        bit_offset: bit_offset as u32,
        bit_size,
    })
}

/// `DW_OP_plus_uconst N`, the one location expression compilers write for a member.
fn plus_uconst(mut expr: R) -> u64 {
    match expr.read_u8() {
        Ok(0x23) => expr.read_uleb128().unwrap_or(0),
        _ => 0,
    }
}

fn name_of(
    dwarf: &gimli::Dwarf<R>,
    unit: &gimli::Unit<R>,
    e: &gimli::DebuggingInformationEntry<R>,
) -> Result<String, gimli::Error> {
    Ok(match e.attr_value(dw::DW_AT_name)? {
        Some(v) => dwarf.attr_string(unit, v)?.to_string_lossy()?.into_owned(),
        None => String::new(),
    })
}

fn udata(
    e: &gimli::DebuggingInformationEntry<R>,
    at: gimli::DwAt,
) -> Result<Option<u64>, gimli::Error> {
    Ok(e.attr_value(at)?.and_then(|v| v.udata_value()))
}

fn flag(e: &gimli::DebuggingInformationEntry<R>, at: gimli::DwAt) -> Result<bool, gimli::Error> {
    Ok(matches!(e.attr_value(at)?, Some(AttributeValue::Flag(true))))
}

/// The entry's `DW_AT_type`, as an offset in .debug_info of DWARF number `src`.
fn reference(
    unit: &gimli::Unit<R>,
    e: &gimli::DebuggingInformationEntry<R>,
    src: usize,
) -> Result<Ref, gimli::Error> {
    Ok(match e.attr_value(dw::DW_AT_type)? {
        Some(AttributeValue::UnitRef(o)) => {
            o.to_debug_info_offset(&unit.header).map(|o| (src, o.0))
        }
        Some(AttributeValue::DebugInfoRef(o)) => Some((src, o.0)),
        _ => None,
    })
}
