//! bpftrace's `strcontains(haystack, needle)`, unrolled over both buffers as `strcmp` is: at
//! each start in the haystack, the needle's bytes until its NUL.

use super::emit::past;
use super::Lower;
use crate::model::tir::{TExpr, TExprKind};
use sonde_bpf::{Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// 1 when `needle` occurs in `hay` (an empty needle occurs everywhere), else 0.
    pub fn str_contains(&mut self, hay: &TExpr, needle: &TExpr) -> Reg {
        let hay_len = hay.ty.size();
        let h = self.e.alloc_stack(hay.ty.slot_size());
        self.value_into(hay, h, hay.ty.slot_size());
        // A literal needle is compared as immediates: no buffer, and its length is known.
        let literal = match &needle.kind {
            TExprKind::Str(s) => Some(s.clone()),
            _ => None,
        };
        let n = match literal {
            Some(_) => 0,
            None => {
                let n = self.e.alloc_stack(needle.ty.slot_size());
                self.value_into(needle, n, needle.ty.slot_size());
                n
            }
        };
        let needle_len = literal.as_ref().map_or(needle.ty.size(), |s| s.len() + 1);
        let found = self.e.label();
        let absent = self.e.label();
        let end = self.e.label();
        for i in 0..hay_len {
            let next = self.e.label();
            for j in 0..needle_len {
                match &literal {
                    Some(s) if j == s.len() => self.e.goto(found),
                    Some(s) => self.e.emit(Insn::mov64_imm(Reg::R2, s[j] as i32)),
                    None => {
                        self.e.emit(Insn::load(Size::B, Reg::R2, self.e.fp, past(n, j)));
                        self.e.jmp_imm(Cond::Eq, Reg::R2, 0, found);
                    }
                }
                if literal.as_ref().is_some_and(|s| j == s.len()) {
                    break;
                }
                // The haystack ends (its buffer or its NUL) before the needle: no later start
                // can fit the needle either.
                if i + j >= hay_len {
                    self.e.goto(absent);
                    break;
                }
                self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(h, i + j)));
                self.e.jmp_imm(Cond::Eq, Reg::R1, 0, absent);
                self.e.jmp_reg(Cond::Ne, Reg::R1, Reg::R2, next);
            }
            // Every byte of a needle that fills its buffer matched.
            self.e.goto(found);
            self.e.bind(next);
        }
        self.e.bind(absent);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_imm(d, 0));
        self.e.goto(end);
        self.e.bind(found);
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.bind(end);
        d
    }
}
