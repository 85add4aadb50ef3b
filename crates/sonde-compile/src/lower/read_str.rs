//! Strings read into a slot: `str()` from memory and a tracepoint's `__data_loc` strings, with
//! bpftrace's lengths (`StrRead`): a whole read takes one byte more than the string's `char[N]`
//! keeps, so a string of N characters or more fills the N bytes without a NUL and prints as cut.

use super::emit::CTX;
use super::{h, Lower};
use crate::model::tir::{StrRead, TExpr};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// `str(ptr)` of type `char[n]` into the `size` bytes at `off`.
    pub(super) fn read_str_into(
        &mut self,
        ptr: &TExpr,
        user: bool,
        len: &StrRead,
        n: usize,
        off: i16,
        size: usize,
    ) {
        let most = match len {
            StrRead::Exact => n,
            StrRead::Whole | StrRead::Bounded(_) => n + 1,
        };
        let helper = if user { h::PROBE_READ_USER_STR } else { h::PROBE_READ_STR };
        let p = self.scalar(ptr);
        let (p, bound) = match len {
            StrRead::Bounded(b) => {
                let (p, b) = self.hold_while(p, b);
                (p, Some(b))
            }
            _ => (p, None),
        };
        self.through_slot(most, off, size, |l, at, room| {
            l.e.stack_addr(Reg::R1, at);
            l.e.emit(Insn::mov64_reg(Reg::R3, p));
            l.e.free_reg(p);
            match bound {
                // Clamped where the verifier sees it: the helper's size must be bounded.
                Some(b) => {
                    l.e.emit(Insn::mov64_reg(Reg::R2, b));
                    l.e.free_reg(b);
                    l.e.emit(Insn::jmp_imm(Cond::Le, Reg::R2, room as i32, 1));
                    l.e.emit(Insn::mov64_imm(Reg::R2, room as i32));
                }
                None => l.e.emit(Insn::mov64_imm(Reg::R2, room as i32)),
            }
            l.e.call(helper);
        });
    }

    /// A `__data_loc` string of type `char[n]` (the u32 at `offset` in the record holds its
    /// length << 16 | its offset from the record's start) into the `size` bytes at `off`.
    pub(super) fn data_loc_str_into(&mut self, offset: usize, n: usize, off: i16, size: usize) {
        self.through_slot(n + 1, off, size, |l, at, room| {
            l.e.emit(Insn::load(Size::W, Reg::R3, CTX, offset as i16));
            l.e.emit(Insn::alu64_imm(Alu::And, Reg::R3, 0xffff));
            l.e.emit(Insn::alu64_reg(Alu::Add, Reg::R3, CTX));
            l.e.stack_addr(Reg::R1, at);
            l.e.emit(Insn::mov64_imm(Reg::R2, room as i32));
            l.e.call(h::PROBE_READ_KERNEL_STR);
        });
    }

    /// Runs `read(at, room)` to write up to `most` bytes into the zeroed slot at `off` of
    /// `size` bytes: in place when they fit, else (the string's N bytes fill a slot whose size
    /// is a multiple of 8) in a scratch slot whose first `size` bytes are copied over.
    fn through_slot(
        &mut self,
        most: usize,
        off: i16,
        size: usize,
        read: impl FnOnce(&mut Self, i16, usize),
    ) {
        if most <= size {
            self.e.zero_stack(off, size);
            read(self, off, most);
            return;
        }
        let room = (most + 7) & !7;
        let tmp = self.e.alloc_stack(room);
        self.e.zero_stack(tmp, room);
        read(self, tmp, most);
        self.copy_stack(self.e.fp, tmp, off, size);
    }
}
