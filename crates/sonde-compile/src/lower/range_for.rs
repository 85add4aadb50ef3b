//! `for ($i : a..b) { body }` with bounds known only at run time, as
//! `bpf_loop(b - a, callback, ctx, 0)` (5.17+): the body is a callback `long cb(index, ctx)`
//! built as map_for.rs builds its own (the probe's variables copied in and out, the same stop
//! flag for `return` and `exit()`), with `$i` = the start + index on each call.

use super::{h, Lower};
use crate::model::tir::TStmt;
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// `var` runs from variable `bounds.0`'s value up to variable `bounds.1`'s, not included.
    pub fn range_for(&mut self, var: usize, bounds: (usize, usize), signed: bool, body: &[TStmt]) {
        let (start, end) = (self.vars[bounds.0].0, self.vars[bounds.1].0);
        let flag = self.e.alloc_real_stack(8);
        self.e.emit(Insn::store_imm(Size::DW, Reg::FP, flag, 0));
        // No calls at all when the range is empty (`5..5`, `1..0`).
        let empty = self.e.label();
        self.e.emit(Insn::load(Size::DW, Reg::R1, self.e.fp, end));
        self.e.emit(Insn::load(Size::DW, Reg::R2, self.e.fp, start));
        self.e.jmp_reg(if signed { Cond::Sle } else { Cond::Le }, Reg::R1, Reg::R2, empty);
        self.e.emit(Insn::alu64_reg(Alu::Sub, Reg::R1, Reg::R2));
        let at = self.call_with_callback(flag, h::LOOP);
        self.e.bind(empty);
        let (i, _) = self.vars[var];
        let cb = self.callback_of(flag, body, (Reg::R2, &[Reg::R1]), |l| {
            l.e.emit(Insn::load(Size::DW, Reg::R0, l.e.fp, start));
            l.e.emit(Insn::alu64_reg(Alu::Add, Reg::R0, Reg::R1));
            l.e.emit(Insn::store(Size::DW, l.e.fp, i, Reg::R0));
        });
        self.add_callback(at, cb);
    }
}
