//! bpftrace's `debugf(fmt, ...)`: bpf_trace_printk(fmt, size, a, b, c), the format and any
//! string values on the stack, integers in the argument registers.

use super::emit::past;
use super::Lower;
use crate::model::tir::TExpr;
use sonde_bpf::{Insn, Reg, Size};

/// Where a value waits until the call: an integer's stack slot, or a string's buffer (passed
/// by address).
enum Held {
    Int(i16),
    Str(i16),
}

impl Lower<'_> {
    pub(super) fn debugf(&mut self, format: &[u8], args: &[TExpr]) {
        let held: Vec<Held> = args
            .iter()
            .map(|a| {
                let slot = a.ty.slot_size();
                let at = self.e.alloc_stack(slot);
                if a.ty.is_scalar() {
                    let r = self.scalar(a);
                    self.e.emit(Insn::store(Size::DW, self.e.fp, at, r));
                    self.e.free_reg(r);
                    Held::Int(at)
                } else {
                    self.value_into(a, at, slot);
                    Held::Str(at)
                }
            })
            .collect();
        let mut text = format.to_vec();
        text.push(0);
        let fmt = self.e.alloc_stack(text.len());
        text.resize(text.len().next_multiple_of(4), 0);
        for (i, chunk) in text.chunks(4).enumerate() {
            let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.e.emit(Insn::store_imm(Size::W, self.e.fp, past(fmt, 4 * i), v as i32));
        }
        for (h, reg) in held.iter().zip([Reg::R3, Reg::R4, Reg::R5]) {
            match *h {
                Held::Int(at) => self.e.emit(Insn::load(Size::DW, reg, self.e.fp, at)),
                Held::Str(at) => self.e.stack_addr(reg, at),
            }
        }
        self.e.stack_addr(Reg::R1, fmt);
        self.e.emit(Insn::mov64_imm(Reg::R2, (format.len() + 1) as i32));
        self.e.call(sonde_bpf::helper::TRACE_PRINTK);
    }
}
