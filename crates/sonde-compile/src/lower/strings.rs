//! String comparison, unrolled byte by byte (BPF has no loops we could rely on for every kernel).

use super::emit::past;
use super::Lower;
use crate::model::tir::{TExpr, TExprKind};
use sonde_bpf::{Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// 1 if the strings are equal, else 0; arrays and buffers are equal when all their bytes are.
    pub fn str_eq(&mut self, a: &TExpr, b: &TExpr) -> Reg {
        let whole = a.ty.compares_bytes();
        // Against a literal, compare each byte with an immediate: no second buffer needed.
        let (lit, other) = match (&a.kind, &b.kind) {
            (_, TExprKind::Str(s)) => (Some(s), a),
            (TExprKind::Str(s), _) => (Some(s), b),
            _ => (None, a),
        };
        let ne = self.e.label();
        let end = self.e.label();
        if let Some(lit) = lit {
            let size = other.ty.slot_size();
            let buf = self.e.alloc_stack(size);
            self.value_into(other, buf, size);
            // Compare the literal and its NUL; a buffer shorter than that can only match a prefix.
            let n = (lit.len() + 1).min(other.ty.size());
            for i in 0..n {
                let want = lit.get(i).copied().unwrap_or(0);
                self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(buf, i)));
                self.e.jmp_imm(Cond::Ne, Reg::R1, want as i32, ne);
            }
        } else {
            let (sa, sb) = (a.ty.slot_size(), b.ty.slot_size());
            let ba = self.e.alloc_stack(sa);
            self.value_into(a, ba, sa);
            let bb = self.e.alloc_stack(sb);
            self.value_into(b, bb, sb);
            let eq = self.e.label();
            for i in 0..a.ty.size().min(b.ty.size()) {
                self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(ba, i)));
                self.e.emit(Insn::load(Size::B, Reg::R2, self.e.fp, past(bb, i)));
                self.e.jmp_reg(Cond::Ne, Reg::R1, Reg::R2, ne);
                if !whole {
                    self.e.jmp_imm(Cond::Eq, Reg::R1, 0, eq);
                }
            }
            self.e.bind(eq);
        }
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.goto(end);
        self.e.bind(ne);
        self.e.emit(Insn::mov64_imm(d, 0));
        self.e.bind(end);
        d
    }

    /// strcmp(a, b): -1, 0 or 1 by the first differing byte (as unsigned chars), over the first
    /// `n` bytes at most (`strncmp`).
    pub fn strcmp(&mut self, a: &TExpr, b: &TExpr, n: usize) -> Reg {
        let (sa, sb) = (a.ty.slot_size(), b.ty.slot_size());
        let ba = self.e.alloc_stack(sa);
        self.value_into(a, ba, sa);
        let bb = self.e.alloc_stack(sb);
        self.value_into(b, bb, sb);
        let differ = self.e.label();
        let equal = self.e.label();
        let end = self.e.label();
        for i in 0..a.ty.size().min(b.ty.size()).min(n) {
            self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(ba, i)));
            self.e.emit(Insn::load(Size::B, Reg::R2, self.e.fp, past(bb, i)));
            self.e.jmp_reg(Cond::Ne, Reg::R1, Reg::R2, differ);
            self.e.jmp_imm(Cond::Eq, Reg::R1, 0, equal);
        }
        let d = self.e.alloc_reg();
        self.e.goto(equal);
        self.e.bind(differ);
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.emit(Insn::jmp_reg(Cond::Gt, Reg::R1, Reg::R2, 1));
        self.e.emit(Insn::mov64_imm(d, -1));
        self.e.goto(end);
        self.e.bind(equal);
        self.e.emit(Insn::mov64_imm(d, 0));
        self.e.bind(end);
        d
    }
}
