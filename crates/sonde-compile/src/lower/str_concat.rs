//! bpftrace's `str_concat(a, b)` and `find(@m, k, $v)`.

use super::emit::past;
use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::TExpr;
use sonde_bpf::{Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// `str_concat(a, b)` into the `size` bytes at `off`, a string of `len` bytes: `a`, then at
    /// each place `a`'s NUL may be an unrolled copy of `b` (the stack takes constant offsets
    /// only), the last byte a NUL whatever was cut.
    pub fn str_concat_into(&mut self, a: &TExpr, b: &TExpr, len: usize, off: i16, size: usize) {
        self.value_into(a, off, size);
        let b_slot = b.ty.slot_size();
        let bb = self.e.alloc_stack(b_slot);
        self.value_into(b, bb, b_slot);
        let a_len = a.ty.size().min(len);
        let starts: Vec<_> = (0..=a_len).map(|_| self.e.label()).collect();
        let end = self.e.label();
        for (k, start) in starts.iter().enumerate().take(a_len) {
            self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(off, k)));
            self.e.jmp_imm(Cond::Eq, Reg::R1, 0, *start);
        }
        for (k, start) in starts.into_iter().enumerate() {
            self.e.bind(start);
            for j in 0..b.ty.size().min(len.saturating_sub(k)) {
                self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(bb, j)));
                self.e.emit(Insn::store(Size::B, self.e.fp, past(off, k + j), Reg::R1));
            }
            self.e.goto(end);
        }
        self.e.bind(end);
        if len > 0 {
            self.e.emit(Insn::store_imm(Size::B, self.e.fp, past(off, len) - 1, 0));
        }
    }

    /// `find(@m, k, $v)`: 1 with the value copied to `$v` when the element is there, else 0.
    pub fn map_find(&mut self, map: usize, keys: &[TExpr], var: usize) -> Reg {
        let key = self.build_key(map, keys, 0);
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        let d = self.e.alloc_reg();
        let absent = self.e.label();
        self.e.emit(Insn::mov64_imm(d, 0));
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, absent);
        let (var_off, slot) = self.vars[var];
        let n = self.tp.maps[map].value_size().min(slot);
        self.copy_stack(Reg::R0, 0, var_off, n);
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.bind(absent);
        d
    }
}
