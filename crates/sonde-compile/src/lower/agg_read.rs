//! An aggregation read in a probe (sema/agg_read.rs): the element's value on each CPU, from
//! `bpf_map_lookup_percpu_elem`, combined as printing combines them. count() and sum() add up;
//! min() and max() keep the best of the CPUs whose {value, set} pair is set; avg() adds up the
//! CPUs' {count, sum} pairs and divides (signed for signed values, as printing does). A missing
//! element reads 0, as a missing plain element does (and so does an average of nothing: BPF's
//! `x / 0` is 0).
//!
//! `cpu: for cpu in 0..cpu_ids { v = lookup(map, key, cpu); if v: combine }`: a loop bounded by
//! a constant (5.3+), with its counter and result on the stack across the helper calls.

use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::{AggFunc, MapValue};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// The combined value of `map`'s element whose key is at `key` (fp-relative), in a new register.
    pub(super) fn agg_read(&mut self, map: usize, key: i16) -> Reg {
        let MapValue::Agg { func, signed } = self.tp.maps[map].value else {
            unreachable!("sema reads only aggregations this way")
        };
        let acc = self.e.alloc_stack(8);
        // min()/max(): whether acc holds a value yet; avg(): the count of values summed in acc.
        let set = self.e.alloc_stack(8);
        let cpu = self.e.alloc_stack(8);
        self.e.zero_stack(cpu, 8);
        self.e.zero_stack(set, 8);
        self.e.zero_stack(acc, 8);
        let (top, next, take) = (self.e.label(), self.e.label(), self.e.label());
        self.e.bind(top);
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.emit(Insn::load(Size::DW, Reg::R3, self.e.fp, cpu));
        self.e.call(h::MAP_LOOKUP_PERCPU_ELEM);
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, next);
        if func == AggFunc::Avg {
            self.add_to_stack(Reg::R0, 0, set);
            self.add_to_stack(Reg::R0, 8, acc);
            self.e.bind(next);
            self.next_cpu(cpu, top);
            return self.average(acc, set, signed);
        }
        self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, 0));
        self.e.emit(Insn::load(Size::DW, Reg::R2, self.e.fp, acc));
        match func {
            AggFunc::Min | AggFunc::Max => {
                // This CPU's {value, set}: skipped unset; taken when nothing is yet or it wins.
                self.e.emit(Insn::load(Size::DW, Reg::R3, Reg::R0, 8));
                self.e.jmp_imm(Cond::Eq, Reg::R3, 0, next);
                self.e.emit(Insn::load(Size::DW, Reg::R3, self.e.fp, set));
                self.e.jmp_imm(Cond::Eq, Reg::R3, 0, take);
                self.e.jmp_reg(super::stmt::min_max_keeps(func, signed), Reg::R1, Reg::R2, next);
                self.e.bind(take);
                self.e.emit(Insn::store(Size::DW, self.e.fp, acc, Reg::R1));
                self.e.emit(Insn::store_imm(Size::DW, self.e.fp, set, 1));
            }
            _ => {
                self.e.emit(Insn::alu64_reg(Alu::Add, Reg::R2, Reg::R1));
                self.e.emit(Insn::store(Size::DW, self.e.fp, acc, Reg::R2));
            }
        }
        self.e.bind(next);
        self.next_cpu(cpu, top);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::load(Size::DW, d, self.e.fp, acc));
        d
    }

    /// `*(u64 *)(fp + slot) += *(u64 *)(value + off)` (uses r1 and r2).
    fn add_to_stack(&mut self, value: Reg, off: i16, slot: i16) {
        self.e.emit(Insn::load(Size::DW, Reg::R1, value, off));
        self.e.emit(Insn::load(Size::DW, Reg::R2, self.e.fp, slot));
        self.e.emit(Insn::alu64_reg(Alu::Add, Reg::R2, Reg::R1));
        self.e.emit(Insn::store(Size::DW, self.e.fp, slot, Reg::R2));
    }

    /// The loop's step: the next CPU, back to `top` while there is one.
    fn next_cpu(&mut self, cpu: i16, top: super::emit::Label) {
        self.e.emit(Insn::load(Size::DW, Reg::R1, self.e.fp, cpu));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R1, 1));
        self.e.emit(Insn::store(Size::DW, self.e.fp, cpu, Reg::R1));
        self.e.jmp_imm(Cond::Lt, Reg::R1, self.tp.cpu_ids.max(1) as i32, top);
    }

    /// `sum / count` from their stack slots, in a new register.
    fn average(&mut self, sum: i16, count: i16, signed: bool) -> Reg {
        let d = self.e.alloc_reg();
        let n = self.e.alloc_reg();
        self.e.emit(Insn::load(Size::DW, d, self.e.fp, sum));
        self.e.emit(Insn::load(Size::DW, n, self.e.fp, count));
        if signed {
            for insn in super::division::signed(Alu::Div, d, n, self.tp.signed_division) {
                self.e.emit(insn);
            }
        } else {
            self.e.emit(Insn::alu64_reg(Alu::Div, d, n));
        }
        self.e.free_reg(n);
        d
    }
}
