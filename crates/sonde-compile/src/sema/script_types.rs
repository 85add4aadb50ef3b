//! Types a script defines, bpftrace's `struct NAME { ... }` and `enum [NAME] { ... }`: a struct
//! is laid out as C lays it out (each field at its alignment, the size rounded up to the
//! largest) and joins the kernel's BTF types for casts (`(struct Name *)arg0`), `sizeof` and
//! member reads; an enum's names are integer constants (before the kernel's enum names).

use super::check::Checker;
use super::typename;
use crate::model::tir::TExpr;
use crate::model::types::{EnumDef, Field, StructDef, Type};
use sonde_syntax::ast::{Span, TypeDecl, TypeName};
use sonde_syntax::diag::Diagnostic;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Default, Debug)]
pub struct ScriptTypes {
    structs: HashMap<String, Rc<StructDef>>,
    /// Each enumerator's value and enum.
    enums: HashMap<String, (i64, Rc<EnumDef>)>,
    enum_types: Vec<Rc<EnumDef>>,
}

impl ScriptTypes {
    /// Lay out the script's definitions in order (a struct may use the ones before it).
    pub fn build(
        decls: &[TypeDecl],
        btf: Option<&sonde_btf::Btf>,
        diags: &mut Vec<Diagnostic>,
    ) -> ScriptTypes {
        let mut out = ScriptTypes::default();
        for d in decls {
            match d {
                TypeDecl::Struct { name, fields, attributes, span } => {
                    if out.structs.contains_key(name) {
                        let msg = format!("`struct {}` is defined twice", name);
                        diags.push(Diagnostic::error(*span, msg));
                        continue;
                    }
                    let mut laid = Vec::new();
                    let mut bitfields = Vec::new();
                    // `bit`: the next free bit (bitfields need not end on a byte).
                    let (mut bit, mut align) = (0usize, 1usize);
                    for f in fields {
                        let ty = match out.resolve(&f.ty, btf) {
                            Ok(t) => t,
                            Err(msg) => {
                                diags.push(Diagnostic::error(f.ty.span, msg));
                                continue;
                            }
                        };
                        let ty = array_of(ty, &f.array);
                        if laid.iter().any(|x: &Field| x.name == f.name) {
                            let msg =
                                format!("`struct {}` has two fields named `{}`", name, f.name);
                            diags.push(Diagnostic::error(f.span, msg));
                        }
                        let a = if attributes.packed { 1 } else { alignment(&ty) };
                        align = align.max(a);
                        let size = ty.size();
                        let name = f.name.clone();
                        let Some(width) = f.bits else {
                            let at = bit.div_ceil(8).next_multiple_of(a);
                            laid.push(Field { name, offset: at, ty, data_loc: false });
                            bit = (at + size) * 8;
                            continue;
                        };
                        let Some(start) = bitfield_start(bit, width, &ty, attributes.packed) else {
                            let msg =
                                format!("`{}` is {} bits wide, more than its type", name, width);
                            diags.push(Diagnostic::error(f.span, msg));
                            continue;
                        };
                        bitfields.push((name.clone(), (start % 8) as u32, width));
                        laid.push(Field { name, offset: start / 8, ty, data_loc: false });
                        bit = start + width as usize;
                    }
                    let at = bit.div_ceil(8);
                    let natural = align;
                    if let Some(n) = attributes.aligned {
                        let n = usize::try_from(n).unwrap_or(usize::MAX);
                        align = if attributes.packed { n } else { align.max(n) };
                    }
                    let def = StructDef {
                        name: name.clone(),
                        size: at.next_multiple_of(align),
                        align: (align != natural || attributes.packed).then_some(align),
                        fields: laid,
                        bitfields,
                        enums: Vec::new(),
                    };
                    out.structs.insert(name.clone(), Rc::new(def));
                }
                TypeDecl::Enum { name, values, .. } => {
                    let def = Rc::new(EnumDef {
                        name: name.clone().unwrap_or_default(),
                        values: values.iter().map(|(n, v, _)| (n.clone(), *v)).collect(),
                    });
                    out.enum_types.push(def.clone());
                    for (n, v, span) in values {
                        if out.enums.insert(n.clone(), (*v, def.clone())).is_some() {
                            let msg = format!("enumerator `{}` is defined twice", n);
                            diags.push(Diagnostic::error(*span, msg));
                        }
                    }
                }
            }
        }
        out
    }

    /// A type named in the script: its own structs and enums first, then the kernel's.
    fn resolve(&self, t: &TypeName, btf: Option<&sonde_btf::Btf>) -> Result<Type, String> {
        let own = if let Some(n) = t.base.strip_prefix("struct ") {
            self.structs.get(n.trim()).map(|s| Type::Struct(s.clone()))
        } else if let Some(n) = t.base.strip_prefix("enum ") {
            let n = n.trim();
            self.enum_types.iter().find(|e| e.name == n).map(|e| Type::Enum(e.clone()))
        } else {
            None
        };
        let Some(mut ty) = own else { return typename::resolve(t, btf) };
        for _ in 0..t.pointers {
            ty = Type::Ptr { to: Box::new(ty), user: false };
        }
        Ok(ty)
    }
}

/// C's alignment of a field of this type on x86-64.
fn alignment(t: &Type) -> usize {
    match t {
        Type::Int { bytes, .. } => *bytes as usize,
        Type::Array { elem, .. } => alignment(elem),
        Type::Str(_) | Type::Bytes(_) => 1,
        Type::Struct(s) => {
            s.align.unwrap_or_else(|| s.fields.iter().map(|f| alignment(&f.ty)).max().unwrap_or(1))
        }
        Type::Btf { size, .. } => (*size).clamp(1, 8).next_power_of_two().min(8),
        _ => 8,
    }
}

impl Checker<'_> {
    /// A type written in a cast, `sizeof` or `let`: the script's own, or the kernel's; in a
    /// uprobe, the probed binary's own (its DWARF or .BTF), never the kernel's.
    /// bpftrace's `typeof(EXPR)` is the expression's type (not evaluated: only typed).
    pub(super) fn resolve_type(&mut self, t: &TypeName) -> Result<Type, String> {
        if let Some(e) = &t.of {
            let before = self.diags.len();
            let mut ty = self.expr(e).ty;
            if self.diags.len() > before {
                return Err("`typeof` of an expression that has errors".into());
            }
            for _ in 0..t.pointers {
                ty = Type::Ptr { to: Box::new(ty), user: false };
            }
            return Ok(ty);
        }
        let Some(binary) = self.user_binary() else {
            return self.types.resolve(t, self.env.btf().ok());
        };
        match self.env.user_types(&binary) {
            Ok(btf) => match self.types.resolve(t, Some(&btf)) {
                Ok(ty) => Ok(crate::btf_types::of_user(ty, &binary)),
                Err(_) => Err(format!("unknown type `{}`: {} does not define it", t.base, binary)),
            },
            // C's own types need no debug info.
            Err(why) => self.types.resolve(t, None).map_err(|_| why.to_string()),
        }
    }

    /// The binary whose types casts name: the one every site of the probe is a uprobe in.
    pub(super) fn user_binary(&self) -> Option<Rc<str>> {
        let mut paths = self.sites.iter().map(|s| match &s.point {
            crate::model::site::AttachPoint::Uprobe { path, .. } => Some(path.as_str()),
            _ => None,
        });
        let first = paths.next()??;
        paths.all(|p| p == Some(first)).then(|| Rc::from(first))
    }

    /// The BTF a struct's members are looked up in: the kernel's, or user binary `user`'s.
    pub(super) fn btf_of(&self, user: &Option<Rc<str>>) -> Result<sonde_btf::Btf, String> {
        match user {
            None => self.env.btf().cloned().map_err(|e| e.to_string()),
            Some(binary) => self.env.user_types(binary).map_err(|e| e.to_string()),
        }
    }

    /// One of the script's enumerators, as a constant.
    pub(super) fn script_enum(&self, name: &str, span: Span) -> Option<TExpr> {
        let (v, def) = self.types.enums.get(name)?;
        Some(TExpr { ty: Type::Enum(def.clone()), ..TExpr::const_s64(*v, span) })
    }

    /// Member `field` of the script's struct `s` at `place`.
    pub(super) fn script_member(
        &mut self,
        place: super::expr::Place,
        s: &StructDef,
        field: &str,
        span: Span,
    ) -> TExpr {
        let Some(f) = s.fields.iter().find(|f| f.name == field) else {
            let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
            let mut d =
                Diagnostic::error(span, format!("`struct {}` has no member `{}`", s.name, field));
            if !names.is_empty() {
                d = d.with_help(format!("its members: {}", names.join(", ")));
            }
            self.error(d);
            return self.poisoned(span);
        };
        match s.bitfield(field) {
            Some(at) => super::expr::bitfield(place, f.offset, at, f.ty.is_signed(), span),
            None => place.read(f.offset, f.ty.clone(), span),
        }
    }
}

/// The first bit of a `width`-bit field of integer type `ty` laid out at `bit` or after, as
/// GCC does on x86-64: where it would cross a boundary of its type's size, at that boundary
/// (packed structs pack bits without gaps); `None` for a width the type cannot hold.
fn bitfield_start(bit: usize, width: u32, ty: &Type, packed: bool) -> Option<usize> {
    let unit = match ty {
        Type::Int { bytes, .. } => usize::from(*bytes) * 8,
        _ => return None,
    };
    let width = width as usize;
    if width > unit {
        return None;
    }
    if width == 0 {
        return Some(bit.next_multiple_of(unit));
    }
    let crosses = bit / unit != (bit + width - 1) / unit;
    Some(if crosses && !packed { bit.next_multiple_of(unit) } else { bit })
}

/// `ty` in arrays of these lengths, outermost first: the innermost `char[N]` a string.
fn array_of(ty: Type, dims: &[u64]) -> Type {
    let Some((&n, outer)) = dims.split_last() else { return ty };
    let inner = match ty {
        t if t.is_char() => Type::Str(n as usize),
        t if t.is_scalar() || matches!(t, Type::Btf { .. } | Type::Struct(_)) => {
            Type::Array { elem: Box::new(t), len: n as usize }
        }
        t => Type::Bytes(t.size() * n as usize),
    };
    outer.iter().rev().fold(inner, |t, &n| Type::Array { elem: Box::new(t), len: n as usize })
}
