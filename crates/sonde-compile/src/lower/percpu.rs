//! `percpu_kaddr("sym"[, cpu])`: `bpf_per_cpu_ptr(&sym, cpu)` or `bpf_this_cpu_ptr(&sym)`, the
//! variable's address loaded as a `ksym` (an `ld_imm64` of its BTF id, which the verifier
//! resolves). The helpers give a pointer the verifier tracks; sonde's pointers into the kernel
//! are plain integers read through `bpf_probe_read_kernel`, so the pointer is stored and copied
//! by that helper, whose copy is an integer.

use super::Lower;
use crate::model::tir::TExpr;
use sonde_bpf::{helper as h, Insn, Reg, Size};

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
        // The verifier refuses reading a spilled pointer in parts; a copy by the helper is bytes.
        let (pointer, copy) = (self.e.alloc_stack(8), self.e.alloc_stack(8));
        self.e.emit(Insn::store(Size::DW, self.e.fp, pointer, Reg::R0));
        self.e.stack_addr(Reg::R1, copy);
        self.e.emit(Insn::mov64_imm(Reg::R2, 8));
        self.e.stack_addr(Reg::R3, pointer);
        self.e.call(h::PROBE_READ_KERNEL);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::load(Size::DW, d, self.e.fp, copy));
        d
    }
}
