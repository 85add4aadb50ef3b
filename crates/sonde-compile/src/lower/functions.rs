//! A `fn` as a BPF global function placed after the program (with the `for` callbacks), once
//! per program that calls it: the kernel's verifier checks a global function once, for any
//! integer arguments, instead of once for every place and every path that reaches a call.
//!
//! Its frame holds its variables; the arguments arrive in r1..r5 and are stored in the
//! parameters' slots; its value leaves in r0. It has no probe context (sema refuses the uses),
//! so r9 is never read there. A call keeps the caller's temporaries: r6-r8 are callee-saved.
//!
//! The verifier adds the frames of a chain of calls against the same 512 bytes as one frame:
//! where the program's own frame and a function's do not fit together, the program is lowered
//! again with each call's body in place (`Lower::inline_functions`), its variables in the
//! caller's frame for the statement's time.

use super::emit::Emitter;
use super::map_for::Callback;
use super::Lower;
use crate::model::tir::{TExpr, TExprKind, TFunc};
use sonde_bpf::{Insn, Reg, Size};

const ARG_REGS: [Reg; 5] = [Reg::R1, Reg::R2, Reg::R3, Reg::R4, Reg::R5];

impl Lower<'_> {
    /// `func(args)`: the value in a temporary register.
    pub fn call_fn(&mut self, func: usize, args: &[TExpr]) -> Reg {
        let held = self.arguments(args);
        if self.inline_functions {
            return self.call_in_place(func, &held);
        }
        let sub = self.function(func);
        for (i, arg) in held.iter().enumerate() {
            match *arg {
                Held::Reg(r) => {
                    self.e.emit(Insn::mov64_reg(ARG_REGS[i], r));
                    self.e.free_reg(r);
                }
                Held::Stack(off) => self.e.emit(Insn::load(Size::DW, ARG_REGS[i], self.e.fp, off)),
            }
        }
        let at = self.e.insns.len();
        self.e.emit(Insn::call_local(0));
        if self.e.insns.len() == at + 1 {
            self.callback_refs.push((at, sub));
        }
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_reg(d, Reg::R0));
        d
    }

    /// The body of `func` lowered here, its arguments `held`: the caller's temporaries wait on
    /// the stack meanwhile (the body uses the same registers).
    fn call_in_place(&mut self, func: usize, held: &[Held]) -> Reg {
        let tp = self.tp;
        let f = &tp.funcs[func];
        let slots: Vec<(i16, usize)> = f
            .vars
            .iter()
            .map(|(_, ty)| (self.e.alloc_stack(ty.slot_size()), ty.slot_size()))
            .collect();
        for &(off, size) in &slots {
            self.e.zero_stack(off, size);
        }
        for (i, arg) in held.iter().enumerate() {
            let r = match *arg {
                Held::Reg(r) => r,
                Held::Stack(off) => {
                    let r = self.e.alloc_reg();
                    self.e.emit(Insn::load(Size::DW, r, self.e.fp, off));
                    r
                }
            };
            self.e.emit(Insn::store(Size::DW, self.e.fp, slots[i].0, r));
            self.e.free_reg(r);
        }
        let kept = self.spill_temporaries();
        let vars = std::mem::replace(&mut self.vars, slots);
        let loops = std::mem::take(&mut self.loops);
        let end = self.e.label();
        let exit = std::mem::replace(&mut self.exit, end);
        self.block(&f.body);
        self.e.bind(end);
        // The value waits in r0 while the caller's temporaries come back.
        self.value_to_r0(f);
        self.vars = vars;
        self.loops = loops;
        self.exit = exit;
        self.unspill_temporaries(kept);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_reg(d, Reg::R0));
        d
    }

    /// The temporaries in use, each stored in a stack slot of its own and freed (not r8 where
    /// it holds a frame in scratch space: no temporary then).
    fn spill_temporaries(&mut self) -> Vec<(Reg, i16)> {
        let fp = self.e.fp;
        let used: Vec<Reg> = [Reg::R6, Reg::R7, Reg::R8]
            .into_iter()
            .filter(|&r| r != fp && !self.e.is_free(r))
            .collect();
        used.into_iter()
            .map(|r| {
                let slot = self.e.alloc_stack(8);
                self.e.emit(Insn::store(Size::DW, self.e.fp, slot, r));
                self.e.free_reg(r);
                (r, slot)
            })
            .collect()
    }

    fn unspill_temporaries(&mut self, kept: Vec<(Reg, i16)>) {
        for (r, slot) in kept {
            self.e.take_reg(r);
            self.e.emit(Insn::load(Size::DW, r, self.e.fp, slot));
        }
    }

    /// Each argument's value, in a temporary while they last, then on the stack (a call takes
    /// up to five; there are three temporaries).
    fn arguments(&mut self, args: &[TExpr]) -> Vec<Held> {
        let mut held = Vec::new();
        for a in args {
            let r = self.scalar(a);
            if self.e.free_regs() > 0 || held.len() + 1 == args.len() {
                held.push(Held::Reg(r));
                continue;
            }
            let slot = self.e.alloc_stack(8);
            self.e.emit(Insn::store(Size::DW, self.e.fp, slot, r));
            self.e.free_reg(r);
            held.push(Held::Stack(slot));
        }
        held
    }

    /// The subprogram of `func` in this program, lowered on its first call.
    fn function(&mut self, func: usize) -> usize {
        if let Some(&(_, sub)) = self.functions.iter().find(|(f, _)| *f == func) {
            return sub;
        }
        let body = self.function_body(func);
        self.e.count += body.0.count;
        self.callbacks.push(body);
        let sub = self.callbacks.len() - 1;
        self.functions.push((func, sub));
        sub
    }

    fn function_body(&mut self, func: usize) -> Callback {
        let tp = self.tp;
        let f = &tp.funcs[func];
        let mut e = Emitter::new();
        e.span = f.span;
        let caller = std::mem::replace(&mut self.e, e);
        let exit = self.exit;
        let loops = std::mem::take(&mut self.loops);
        let refs = std::mem::take(&mut self.callback_refs);
        let vars = std::mem::take(&mut self.vars);

        for (_, ty) in &f.vars {
            let off = self.e.alloc_stack(ty.slot_size());
            self.vars.push((off, ty.slot_size()));
        }
        // Every variable starts at zero: the value returned on a path that sets none, and the
        // slots a `for` callback copies in.
        let size = self.vars.iter().map(|&(off, _)| -(off as i32)).max().unwrap_or(0);
        self.e.zero_stack(-(size as i16), size as usize);
        for (i, &reg) in ARG_REGS.iter().enumerate().take(f.params) {
            self.e.emit(Insn::store(Size::DW, self.e.fp, self.vars[i].0, reg));
        }
        self.exit = self.e.label();
        self.block(&f.body);
        self.e.bind(self.exit);
        self.value_to_r0(f);
        self.e.emit(Insn::exit());

        let inner = std::mem::replace(&mut self.callback_refs, refs);
        self.vars = vars;
        self.exit = exit;
        self.loops = loops;
        (std::mem::replace(&mut self.e, caller).finish(), inner)
    }
}

impl Lower<'_> {
    /// The value `f` returns (its variable, read as its type) in r0; 0 when it returns none.
    fn value_to_r0(&mut self, f: &TFunc) {
        match f.ret_var() {
            Some(v) => {
                let read = TExpr { kind: TExprKind::Var(v), ty: f.ret.clone(), span: f.span };
                let r = self.scalar(&read);
                self.e.emit(Insn::mov64_reg(Reg::R0, r));
                self.e.free_reg(r);
            }
            None => self.e.emit(Insn::mov64_imm(Reg::R0, 0)),
        }
    }
}

#[derive(Clone, Copy)]
enum Held {
    Reg(Reg),
    Stack(i16),
}
