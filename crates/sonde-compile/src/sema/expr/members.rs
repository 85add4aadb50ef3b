//! Members: `p->field` and `s.field` on kernel structs (from BTF, bitfields included) and the
//! script's own, `args.field` through the probe's provider, `t.0` on tuples.

use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use crate::provider::context::ContextName;
use crate::sema::check::Checker;
use sonde_syntax::ast::{BinOp, Expr, ExprKind, Span};
use sonde_syntax::diag::Diagnostic;

/// Where a struct is: at `ptr + offset`, in the process's memory when `user`.
pub(in crate::sema) struct Place {
    pub ptr: TExpr,
    pub offset: i64,
    pub user: bool,
}

impl Place {
    /// The member at `offset` bytes into the struct, of type `ty`.
    pub fn read(self, offset: usize, ty: Type, span: Span) -> TExpr {
        let (ptr, user) = (Box::new(self.ptr), self.user);
        TExpr { kind: TExprKind::Read { ptr, offset: self.offset + offset as i64, user }, ty, span }
    }
}

impl Checker<'_> {
    pub(super) fn member(&mut self, base: &Expr, field: &str, span: Span) -> TExpr {
        if let ExprKind::Ident(name) = &base.kind {
            if name == "args" || name == "data" {
                return self.context(ContextName::Field { base: name, field }, span);
            }
        }
        let Some(b) = self.expr_or_poison(base) else { return self.poisoned(span) };
        if matches!(b.ty, Type::Tuple(_) | Type::Record { .. })
            || field.starts_with(|c: char| c.is_ascii_digit())
        {
            return self.tuple_field(b, field, span);
        }
        match b.ty.clone() {
            // `p->field` (or `p.field`, as ply allows) on a pointer to a struct.
            Type::Ptr { to, user } => {
                let place = Place { ptr: b, offset: 0, user };
                self.struct_member(place, &to, field, span)
            }
            // `s.field` on a struct that is itself a member read through a pointer.
            Type::Btf { .. } | Type::Struct(_) => match b.kind {
                TExprKind::Read { ptr, offset, user } => {
                    self.struct_member(Place { ptr: *ptr, offset, user }, &b.ty, field, span)
                }
                _ if matches!(b.ty, Type::Struct(_)) => self.member_of_value(b, field, span),
                _ => {
                    let msg = format!("cannot read members of this `{}` value", b.ty);
                    self.error(Diagnostic::error(span, msg));
                    self.poisoned(span)
                }
            },
            ref t if t.is_scalar() => self.member_of_integer(t, field, span),
            other => {
                let msg = format!("cannot read member `{}` of a `{}`", field, other);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
        }
    }

    /// Member `field` of the struct of type `ty` at `place`.
    fn struct_member(&mut self, place: Place, ty: &Type, field: &str, span: Span) -> TExpr {
        match ty {
            Type::Btf { id, name, user, .. } => {
                self.btf_member(place, (*id, user), name, field, span)
            }
            Type::Struct(s) => self.script_member(place, s, field, span),
            other => {
                let msg = format!("`{}` has no members: it points to a `{}`", field, other);
                self.error(Diagnostic::error(span, msg));
                self.poisoned(span)
            }
        }
    }

    /// `x.field` on an integer: a pointer needs its type first, or BTF.
    fn member_of_integer(&mut self, t: &Type, field: &str, span: Span) -> TExpr {
        let help = match self.env.btf() {
            Err(e) => {
                format!("{}, so arguments are plain integers and kernel structs cannot be read", e)
            }
            Ok(_) => {
                "cast it to a kernel pointer type first, e.g. `((struct task_struct *)arg0)->pid`"
                    .into()
            }
        };
        let msg = format!("cannot read member `{}` of a `{}`", field, t);
        self.error(Diagnostic::error(span, msg).with_help(help));
        self.poisoned(span)
    }

    /// Member `field` of the struct `name` (BTF `id`, the kernel's or `user` binary's) at `place`.
    fn btf_member(
        &mut self,
        place: Place,
        (id, user): (u32, &Option<std::rc::Rc<str>>),
        name: &str,
        field: &str,
        span: Span,
    ) -> TExpr {
        let btf = match self.btf_of(user) {
            Ok(b) => b,
            Err(e) => {
                self.error(Diagnostic::error(span, e));
                return self.poisoned(span);
            }
        };
        let btf = &btf;
        let m = match crate::btf_types::member(btf, id, field) {
            Ok(m) => m,
            Err(names) => {
                let mut d =
                    Diagnostic::error(span, format!("`{}` has no member `{}`", name, field));
                let near = near_names(field, &names);
                if let Some(path) = btf.member_macro(sonde_btf::TypeId(id), field) {
                    d = d.with_help(format!(
                        "did you mean `{path}`? (`{field}` is a macro in C, not a member)"
                    ));
                } else if !near.is_empty() {
                    d = d.with_help(format!("members with close names: {}", near.join(", ")));
                }
                self.error(d);
                return self.poisoned(span);
            }
        };
        let ty = match user {
            Some(binary) => crate::btf_types::of_user(m.ty, binary),
            None => m.ty,
        };
        let value = match m.bitfield {
            None => place.read(m.offset, ty, span),
            Some((shift, bits)) => bitfield(place, m.offset, (shift, bits), ty.is_signed(), span),
        };
        value.symbolized(m.symbols)
    }
}

/// A bitfield at (`shift`, `bits`): the bytes that hold it read, shifted down, masked (or for a
/// `signed` field's type, sign-extended).
pub(in crate::sema) fn bitfield(
    place: Place,
    offset: usize,
    (shift, bits): (u32, u32),
    signed: bool,
    span: Span,
) -> TExpr {
    let raw = place.read(offset, bitfield_unit(shift, bits), span);
    bits_of(raw, shift, bits, signed)
}

/// The unsigned integer a bitfield starting `shift` bits into its first byte is read as.
fn bitfield_unit(shift: u32, bits: u32) -> Type {
    let bytes = match (shift + bits).div_ceil(8) {
        0 | 1 => 1,
        2 => 2,
        3 | 4 => 4,
        _ => 8,
    };
    Type::Int { bytes, signed: false }
}

/// The `bits` bits of `raw` from bit `shift` up; `signed`: its top bit extended, as C reads a
/// bitfield of a signed type (`int x:3` holding 0b111 is -1).
fn bits_of(raw: TExpr, shift: u32, bits: u32, signed: bool) -> TExpr {
    let span = raw.span;
    let int = |v: u64| TExpr { kind: TExprKind::Int(v), ty: Type::U64, span };
    let op = |op, lhs, rhs, ty| TExpr {
        kind: TExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
        ty,
        span,
    };
    if signed && (1..64).contains(&bits) && shift + bits <= 64 {
        // Its top bit to bit 63, then an arithmetic shift back down.
        let up = op(BinOp::Shl, raw, int(u64::from(64 - shift - bits)), Type::S64);
        return op(BinOp::Shr, up, int(u64::from(64 - bits)), Type::S64);
    }
    let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let down = op(BinOp::Shr, raw, int(shift as u64), Type::U64);
    op(BinOp::BitAnd, down, int(mask), Type::U64)
}

/// Up to eight names closest to `want` (by edit distance), for a hint.
fn near_names(want: &str, names: &[String]) -> Vec<String> {
    sonde_syntax::nearest(want, names.iter().map(String::as_str), 8)
}

impl Checker<'_> {
    /// Member `field` of a script struct held as a value (a variable, a map's value, a tuple's
    /// element): its bytes in the value's buffer.
    fn member_of_value(&mut self, b: TExpr, field: &str, span: Span) -> TExpr {
        let Type::Struct(s) = b.ty.clone() else { return self.poisoned(span) };
        let Some(f) = s.fields.iter().find(|f| f.name == field) else {
            let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
            let msg = format!("`struct {}` has no member `{}`", s.name, field);
            let d = Diagnostic::error(span, msg)
                .with_help(format!("its members: {}", names.join(", ")));
            self.error(d);
            return self.poisoned(span);
        };
        let (base, offset) = match b.kind {
            TExprKind::Field { base, offset } => (base, offset + f.offset),
            kind => (Box::new(TExpr { kind, ..b }), f.offset),
        };
        let Some((shift, bits)) = s.bitfield(field) else {
            return TExpr { kind: TExprKind::Field { base, offset }, ty: f.ty.clone(), span };
        };
        let ty = bitfield_unit(shift, bits);
        let raw = TExpr { kind: TExprKind::Field { base, offset }, ty, span };
        bits_of(raw, shift, bits, f.ty.is_signed())
    }
}
