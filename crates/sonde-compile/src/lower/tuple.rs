//! Tuples: built element by element into a stack buffer; `t.N` reads one slot of it.

use super::emit::past;
use super::Lower;
use crate::model::tir::{TExpr, TExprKind};
use crate::model::types::Type;
use sonde_bpf::{Insn, Reg, Size};

impl Lower<'_> {
    /// `(a, b, ...)` into the `size` bytes at `off`: each element in its slot of the tuple's
    /// type `layout` (which may hold longer strings than the elements: `sema::expr::tuple::fit`).
    pub fn tuple_into(&mut self, items: &[TExpr], layout: &[Type], off: i16, size: usize) {
        let mut end = 0;
        for ((item, o), t) in items.iter().zip(Type::tuple_offsets(layout)).zip(layout) {
            let slot = t.slot_size();
            if o + slot > size {
                break;
            }
            self.value_into(item, past(off, o), slot);
            end = o + slot;
        }
        if size > end {
            self.e.zero_stack(past(off, end), size - end);
        }
    }

    /// Where element `offset` of the tuple `base` is on the stack: a variable's own slot, or a
    /// copy of the tuple made here.
    fn field_at(&mut self, base: &TExpr, offset: usize) -> i16 {
        if let TExprKind::Var(i) = base.kind {
            return past(self.vars[i].0, offset);
        }
        let slot = base.ty.slot_size();
        let tmp = self.e.alloc_stack(slot);
        self.value_into(base, tmp, slot);
        past(tmp, offset)
    }

    /// An integer element of a tuple (in a slot of 8 bytes) or a char of a string: read at its
    /// own size, which on this little-endian machine is the slot's low bytes.
    pub fn field_scalar(&mut self, base: &TExpr, offset: usize, ty: &Type) -> Reg {
        let at = self.field_at(base, offset);
        let d = self.e.alloc_reg();
        let size = Size::of_bytes(ty.size()).unwrap_or(Size::DW);
        self.e.emit(Insn::load(size, d, self.e.fp, at));
        self.extend(d, ty);
        d
    }

    /// A string or tuple element of a tuple, into the `size` bytes at `off`.
    pub fn field_into(&mut self, base: &TExpr, offset: usize, ty: &Type, off: i16, size: usize) {
        let at = self.field_at(base, offset);
        let n = ty.slot_size().min(size);
        self.copy_stack(self.e.fp, at, off, n);
        if size > n {
            self.e.zero_stack(past(off, n), size - n);
        }
    }
}

impl Lower<'_> {
    /// `ntop`'s value: the family in the first 8 bytes, the address in the 16 after them.
    pub fn inet_into(&mut self, family: &TExpr, addr: &TExpr, off: i16, size: usize) {
        if size < 24 {
            self.e.overflow.get_or_insert((addr.span, "internal error: ntop's value cut short"));
            return;
        }
        self.value_into(family, off, 8);
        self.value_into(addr, off + 8, 16);
        if size > 24 {
            self.e.zero_stack(off + 24, size - 24);
        }
    }
}
