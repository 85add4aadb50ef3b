//! Text the kernel formats: bpftrace's `debugf(fmt, ...)` through bpf_trace_printk(fmt, size,
//! a, b, c), integers in the argument registers; `printf` in an iter probe through
//! bpf_seq_printf(seq, fmt, size, data, len), the values in an array of u64s. Either way the
//! format and any string values are on the stack, a string passed by its address.

use super::emit::{past, CTX};
use super::Lower;
use crate::model::tir::{KernelText, TExpr};
use sonde_bpf::{Insn, Reg, Size};

/// Where a value waits until the call: an integer's stack slot, or a string's buffer (passed
/// by address).
enum Held {
    Int(i16),
    Str(i16),
}

impl Lower<'_> {
    pub(super) fn kernel_printf(&mut self, to: KernelText, format: &[u8], args: &[TExpr]) {
        let held = self.hold(args);
        let fmt = self.format_on_stack(format);
        match to {
            KernelText::TracePipe => {
                for (h, reg) in held.iter().zip([Reg::R3, Reg::R4, Reg::R5]) {
                    self.held_into(h, reg);
                }
                self.e.stack_addr(Reg::R1, fmt);
                self.e.emit(Insn::mov64_imm(Reg::R2, (format.len() + 1) as i32));
                self.e.call(sonde_bpf::helper::TRACE_PRINTK);
            }
            KernelText::Iterator => {
                let data = self.e.alloc_stack(8 * held.len().max(1));
                for (i, h) in held.iter().enumerate() {
                    self.held_into(h, Reg::R1);
                    self.e.emit(Insn::store(Size::DW, self.e.fp, past(data, 8 * i), Reg::R1));
                }
                // The seq_file is the iterator's: ctx->meta->seq, read as the verifier checks
                // them (BTF-typed pointers).
                self.e.emit(Insn::load(Size::DW, Reg::R1, CTX, 0));
                self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R1, 0));
                self.e.stack_addr(Reg::R2, fmt);
                self.e.emit(Insn::mov64_imm(Reg::R3, (format.len() + 1) as i32));
                match held.is_empty() {
                    true => self.e.emit(Insn::mov64_imm(Reg::R4, 0)),
                    false => self.e.stack_addr(Reg::R4, data),
                }
                self.e.emit(Insn::mov64_imm(Reg::R5, 8 * held.len() as i32));
                self.e.call(sonde_bpf::helper::SEQ_PRINTF);
            }
        }
    }

    fn hold(&mut self, args: &[TExpr]) -> Vec<Held> {
        args.iter()
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
            .collect()
    }

    fn held_into(&mut self, h: &Held, reg: Reg) {
        match *h {
            Held::Int(at) => self.e.emit(Insn::load(Size::DW, reg, self.e.fp, at)),
            Held::Str(at) => self.e.stack_addr(reg, at),
        }
    }

    /// The format, NUL-terminated, on the stack.
    fn format_on_stack(&mut self, format: &[u8]) -> i16 {
        let mut text = format.to_vec();
        text.push(0);
        let fmt = self.e.alloc_stack(text.len());
        text.resize(text.len().next_multiple_of(4), 0);
        for (i, chunk) in text.chunks(4).enumerate() {
            let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            self.e.emit(Insn::store_imm(Size::W, self.e.fp, past(fmt, 4 * i), v as i32));
        }
        fmt
    }
}
