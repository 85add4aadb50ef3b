//! bpftrace's `join(arr)`: up to `JOIN_ARGS` strings of the array, each read into a slot of
//! `JOIN_ARG_SIZE` bytes of one ring-buffer record reserved in place (16 KiB: far more than the
//! 512-byte stack holds), and `override(rc)`.

use super::stmt::BPF_RB_NO_WAKEUP;
use super::{h, Lower};
use crate::abi::{EVENTS_MAP, JOIN_ARGS, JOIN_ARG_SIZE};
use crate::model::tir::TExpr;
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// bpf_ringbuf_reserve / bpf_ringbuf_submit (5.8) and bpf_override_return (4.16).
const RINGBUF_RESERVE: u32 = 131;
const RINGBUF_SUBMIT: u32 = 132;
const OVERRIDE_RETURN: u32 = 58;

impl Lower<'_> {
    /// `rec = reserve(8 + 16 * 1024)`; `rec.id = event`; for each element: read the pointer,
    /// stop at NULL (an empty slot ends the list), read the string into its slot; submit.
    pub(super) fn join(&mut self, event: usize, arr: &TExpr, user: bool) {
        let (read, read_str) = if user {
            (h::PROBE_READ_USER, h::PROBE_READ_USER_STR)
        } else {
            (h::PROBE_READ, h::PROBE_READ_STR)
        };
        let base = self.scalar(arr);
        let ptr = self.e.alloc_stack(8);
        self.e.ld_map(Reg::R1, EVENTS_MAP);
        self.e.emit(Insn::mov64_imm(Reg::R2, (8 + JOIN_ARGS * JOIN_ARG_SIZE) as i32));
        self.e.emit(Insn::mov64_imm(Reg::R3, 0));
        self.e.call(RINGBUF_RESERVE);
        let reserved = self.e.label();
        let done = self.e.label();
        self.e.jmp_imm(Cond::Ne, Reg::R0, 0, reserved);
        let counted = self.e.label();
        self.count_lost(counted);
        self.e.goto(done);
        self.e.bind(reserved);
        let rec = self.e.alloc_reg();
        self.e.emit(Insn::mov64_reg(rec, Reg::R0));
        self.e.emit(Insn::store_imm(Size::DW, rec, 0, event as i32));
        let submit = self.e.label();
        for i in 0..JOIN_ARGS {
            let slot = (8 + i * JOIN_ARG_SIZE) as i32;
            self.e.stack_addr(Reg::R1, ptr);
            self.e.emit(Insn::mov64_imm(Reg::R2, 8));
            self.e.emit(Insn::mov64_reg(Reg::R3, base));
            self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, (8 * i) as i32));
            self.e.call(read);
            self.e.emit(Insn::load(Size::DW, Reg::R3, self.e.fp, ptr));
            let present = self.e.label();
            self.e.jmp_imm(Cond::Ne, Reg::R3, 0, present);
            self.e.emit(Insn::store_imm(Size::B, rec, slot as i16, 0));
            self.e.goto(submit);
            self.e.bind(present);
            self.e.emit(Insn::mov64_reg(Reg::R1, rec));
            self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R1, slot));
            self.e.emit(Insn::mov64_imm(Reg::R2, JOIN_ARG_SIZE as i32));
            // The kernel zeroes the slot when the read fails: an empty string ends the list.
            self.e.call(read_str);
        }
        self.e.bind(submit);
        self.e.emit(Insn::mov64_reg(Reg::R1, rec));
        self.e.emit(Insn::mov64_imm(Reg::R2, BPF_RB_NO_WAKEUP));
        self.e.call(RINGBUF_SUBMIT);
        self.e.free_reg(rec);
        self.e.free_reg(base);
        self.e.bind(done);
    }

    /// `bpf_override_return(ctx, rc)`.
    pub(super) fn override_return(&mut self, rc: &TExpr) {
        let r = self.scalar(rc);
        self.e.emit(Insn::mov64_reg(Reg::R2, r));
        self.e.free_reg(r);
        self.e.emit(Insn::mov64_reg(Reg::R1, super::emit::CTX));
        self.e.call(OVERRIDE_RETURN);
    }
}
