//! `percpu_kaddr("sym"[, cpu])`: `bpf_per_cpu_ptr(&sym, cpu)` or `bpf_this_cpu_ptr(&sym)`, the
//! variable's address loaded as a `ksym` (an `ld_imm64` of its BTF id, which the verifier
//! resolves). The helpers give a pointer the verifier tracks; sonde's pointers into the kernel
//! are plain integers read through `bpf_probe_read_kernel`, so the pointer is stored and read back
//! in two halves, which makes it one (a root program may).

use super::Lower;
use crate::model::tir::TExpr;
use sonde_bpf::{helper as h, Alu, Insn, Reg, Size};

impl Lower<'_> {
    /// The address of per-CPU variable `var` (its BTF id) on `cpu` (the current CPU without),
    /// 0 where the CPU does not exist, in a new register.
    pub(super) fn percpu_addr(&mut self, var: u32, cpu: Option<&TExpr>) -> Reg {
        let cpu = cpu.map(|c| self.scalar(c));
        self.e.emit_all(Insn::ld_btf_id(Reg::R1, var));
        match cpu {
            Some(c) => {
                self.e.emit(Insn::mov64_reg(Reg::R2, c));
                self.e.free_reg(c);
                self.e.call(h::PER_CPU_PTR);
            }
            None => self.e.call(h::THIS_CPU_PTR),
        }
        let slot = self.e.alloc_stack(8);
        self.e.emit(Insn::store(Size::DW, self.e.fp, slot, Reg::R0));
        let d = self.e.alloc_reg();
        let high = self.e.alloc_reg();
        self.e.emit(Insn::load(Size::W, d, self.e.fp, slot));
        self.e.emit(Insn::load(Size::W, high, self.e.fp, slot + 4));
        self.e.emit(Insn::alu64_imm(Alu::Lsh, high, 32));
        self.e.emit(Insn::alu64_reg(Alu::Or, d, high));
        self.e.free_reg(high);
        d
    }
}
