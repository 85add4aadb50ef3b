//! Signed `/` and `%` (C's: the quotient rounds toward zero, the remainder takes the dividend's
//! sign). Kernels 6.6+ have BPF's signed forms (`BPF_SDIV`/`BPF_SMOD`, the unsigned opcode with
//! offset 1); older ones get the same results from unsigned instructions on the magnitudes, the
//! sign put back after. A divisor that is not a constant is tested first: zero gives 1 and a
//! runtime warning, as bpftrace does (BPF's own rule would be `x / 0 == 0`, `x % 0 == x`).

use super::Lower;
use crate::model::tir::TExpr;
use sonde_bpf::insn::{BPF_ALU64, BPF_X};
use sonde_bpf::{Alu, Cond, Insn, Reg};
use sonde_syntax::ast::BinOp;

impl Lower<'_> {
    /// `lhs / rhs` or `lhs % rhs` in a new register; a zero divisor gives 1 and emits the
    /// warning event `warning`.
    pub(super) fn divide(&mut self, op: BinOp, lhs: &TExpr, rhs: &TExpr, warning: usize) -> Reg {
        let l = self.scalar(lhs);
        let (l, r) = self.hold_while(l, rhs);
        let (zero, done) = (self.e.label(), self.e.label());
        self.e.jmp_imm(Cond::Eq, r, 0, zero);
        let alu = if op == BinOp::Div { Alu::Div } else { Alu::Mod };
        if crate::model::types::arith_type(&lhs.ty, &rhs.ty).is_signed() {
            for insn in signed(alu, l, r, self.tp.signed_division) {
                self.e.emit(insn);
            }
        } else {
            self.e.emit(Insn::alu64_reg(alu, l, r));
        }
        self.e.goto(done);
        self.e.bind(zero);
        self.e.emit(Insn::mov64_imm(l, 1));
        self.emit_record(warning, &[], super::stmt::BPF_RB_NO_WAKEUP);
        self.e.bind(done);
        self.e.free_reg(r);
        l
    }
}

/// `l = l op r` for signed operands (`op` is `Div` or `Mod`); `r` is clobbered, and `r0` too
/// without the signed instructions.
pub fn signed(op: Alu, l: Reg, r: Reg, native: bool) -> Vec<Insn> {
    if native {
        return vec![Insn::new(BPF_ALU64 | op as u8 | BPF_X, l, r, 1, 0)];
    }
    // r0's sign is the result's: the operands' signs differ (quotient), or the dividend's
    // (remainder).
    let mut out = vec![Insn::mov64_reg(Reg::R0, l)];
    if op == Alu::Div {
        out.push(Insn::alu64_reg(Alu::Xor, Reg::R0, r));
    }
    out.extend([
        Insn::jmp_imm(Cond::Sge, l, 0, 1),
        Insn::alu64_imm(Alu::Neg, l, 0),
        Insn::jmp_imm(Cond::Sge, r, 0, 1),
        Insn::alu64_imm(Alu::Neg, r, 0),
        Insn::alu64_reg(op, l, r),
        Insn::jmp_imm(Cond::Sge, Reg::R0, 0, 1),
        Insn::alu64_imm(Alu::Neg, l, 0),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the few instructions `signed` emits, as the kernel does.
    fn run(insns: &[Insn], a: i64, b: i64) -> i64 {
        let mut regs = [0u64; 11];
        let (l, r) = (6usize, 7usize);
        regs[l] = a as u64;
        regs[r] = b as u64;
        let mut pc = 0;
        while pc < insns.len() {
            let i = insns[pc];
            let (d, s) = (i.dst as usize, i.src as usize);
            let code = i.code;
            pc += 1;
            if code & 0x07 == 0x05 {
                // jsge dst, imm
                if regs[d] as i64 >= i64::from(i.imm) {
                    pc += i.off as usize;
                }
                continue;
            }
            let src = regs[s];
            let dst = regs[d];
            regs[d] = match code & 0xf0 {
                0xb0 => src,
                0xa0 => dst ^ src,
                0x80 => dst.wrapping_neg(),
                0x30 if i.off == 1 => {
                    if src == 0 {
                        0
                    } else {
                        (dst as i64).wrapping_div(src as i64) as u64
                    }
                }
                0x90 if i.off == 1 => {
                    if src == 0 {
                        dst
                    } else {
                        (dst as i64).wrapping_rem(src as i64) as u64
                    }
                }
                0x30 => dst.checked_div(src).unwrap_or(0),
                0x90 => dst.checked_rem(src).unwrap_or(dst),
                c => panic!("opcode {:#x} not expected", c),
            };
        }
        regs[l] as i64
    }

    #[test]
    fn both_forms_give_c_results() {
        let values = [0, 1, -1, 2, -2, 3, -3, 7, -7, 13, -91, i64::MAX, i64::MIN, i64::MIN + 1];
        for native in [true, false] {
            let div = signed(Alu::Div, Reg::R6, Reg::R7, native);
            let rem = signed(Alu::Mod, Reg::R6, Reg::R7, native);
            for &a in &values {
                for &b in &values {
                    let (q, m) =
                        if b == 0 { (0, a) } else { (a.wrapping_div(b), a.wrapping_rem(b)) };
                    assert_eq!(run(&div, a, b), q, "{} / {} (native: {})", a, b, native);
                    assert_eq!(run(&rem, a, b), m, "{} % {} (native: {})", a, b, native);
                }
            }
        }
        assert_eq!(run(&signed(Alu::Div, Reg::R6, Reg::R7, false), -7, 2), -3);
    }
}
