//! `for ($kv : @map) { body }` as `bpf_for_each_map_elem(map, callback, ctx, 0)` (5.13+).
//!
//! The body is a function of its own placed after the program (a BPF-to-BPF callback,
//! `long cb(map, key, value, ctx)`), with its own stack frame. Its frame starts with the same
//! variable slots as the probe's, at the same offsets, so the body is lowered exactly as probe
//! code is; `ctx` points into the caller's frame, and the callback copies the caller's variables
//! in when it starts and back out when it returns, so the body reads and writes the probe's
//! variables as bpftrace's do. `$kv` is filled from the element's key and value. Returning 0 goes
//! on to the next element (the end of the body, `continue`), 1 stops (`break`); `return` and
//! `exit()` also set the u64 `ctx` points at, and the caller then returns from the probe. A
//! callback's r9 holds `ctx` (the probe's context is not available there: sema refuses its uses).

use super::emit::{past, Emitter, CTX};
use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::{TStmt, TStmtKind};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// A finished callback and its references to other callbacks: (instruction, callback index).
pub(crate) type Callback = (Emitter, Vec<(usize, usize)>);

impl Lower<'_> {
    pub fn map_for(&mut self, map: usize, var: usize, body: &[TStmt]) {
        // The caller's side: a stop flag beside the variables, then the helper.
        let flag = self.e.alloc_real_stack(8);
        self.e.emit(Insn::store_imm(Size::DW, Reg::FP, flag, 0));
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        let at = self.call_with_callback(flag, h::FOR_EACH_MAP_ELEM);
        let cb = self.callback(map, var, flag, body);
        self.add_callback(at, cb);
    }

    /// `helper(r1, callback, &flag, 0)` (bpf_for_each_map_elem's and bpf_loop's shape: r1
    /// already set), then the probe returns if the flag
    /// was set (`return` or `exit()` in the body). Returns where the callback's address is
    /// loaded, None where that code is unreachable.
    pub(super) fn call_with_callback(&mut self, flag: i16, helper: u32) -> Option<usize> {
        let at = self.e.insns.len();
        self.e.emit_all(Insn::ld_func(Reg::R2, 0));
        let referenced = self.e.insns.len() == at + 2;
        self.e.emit(Insn::mov64_reg(Reg::R3, Reg::FP));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, flag as i32));
        self.e.emit(Insn::mov64_imm(Reg::R4, 0));
        self.e.call(helper);
        self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::FP, flag));
        self.e.jmp_imm(Cond::Ne, Reg::R1, 0, self.exit);
        referenced.then_some(at)
    }

    /// Keeps a finished callback, referenced from the `ld_func` at `at`.
    pub(super) fn add_callback(&mut self, at: Option<usize>, cb: Callback) {
        self.e.count += cb.0.count;
        self.callbacks.push(cb);
        if let Some(at) = at {
            self.callback_refs.push((at, self.callbacks.len() - 1));
        }
    }

    /// The body as a callback of `bpf_for_each_map_elem` (`cb(map, key, value, ctx)`): `$kv`
    /// filled from the element's key and value.
    fn callback(&mut self, map: usize, var: usize, flag: i16, body: &[TStmt]) -> Callback {
        self.callback_of(flag, body, (Reg::R4, &[Reg::R2, Reg::R3]), |l| {
            // $kv = (key, value): the key's bytes, then the value's.
            let info = &l.tp.maps[map];
            let (_, key_size) = info.key_layout();
            // An aggregation's value is its CPUs' combined (agg_read.rs), one u64.
            let percpu = info.is_percpu();
            let value_size = if percpu { 8 } else { info.value_size() };
            let (off, slot) = l.vars[var];
            if slot != key_size + value_size {
                l.e.overflow.get_or_insert((
                    l.e.span,
                    "internal error: the loop variable does not match the map's element",
                ));
            }
            let value = (!percpu).then_some((Reg::R3, key_size, value_size));
            for (src, base, size) in std::iter::once((Reg::R2, 0, key_size)).chain(value) {
                for i in (0..size).step_by(8) {
                    l.e.emit(Insn::load(Size::DW, Reg::R0, src, i as i16));
                    l.e.emit(Insn::store(Size::DW, l.e.fp, past(off, base + i), Reg::R0));
                }
            }
            if percpu {
                // The combined value, looked up by the key just copied.
                let r = l.agg_read(map, off);
                l.e.emit(Insn::store(Size::DW, l.e.fp, past(off, key_size), r));
                l.e.free_reg(r);
            }
        })
    }

    /// A loop body as a callback (a function of its own, placed after the program) whose
    /// context pointer (`flag` in the caller's frame) arrives in `ctx` and whose other
    /// arguments `fill` reads are `args`: the caller's variables
    /// copied in, `fill` run (the helper's other arguments are still in their registers), the
    /// body, the variables copied back. Returns 0 to go on, 1 to stop.
    pub(super) fn callback_of(
        &mut self,
        flag: i16,
        body: &[TStmt],
        (ctx, args): (Reg, &[Reg]),
        fill: impl FnOnce(&mut Self),
    ) -> Callback {
        // A frame in scratch space goes on in the callback: the variables are where they are.
        let scratch = self.scratch.filter(|_| self.e.in_scratch());
        let mut e = match scratch {
            Some(_) => Emitter::scratch(self.e.stack),
            None => Emitter::new(),
        };
        e.span = self.e.span;
        let caller = std::mem::replace(&mut self.e, e);
        let exit = self.exit;
        let loops = std::mem::take(&mut self.loops);
        let refs = std::mem::take(&mut self.callback_refs);

        let vars = self.vars.iter().map(|&(off, _)| -(off as i32)).max().unwrap_or(0);
        self.e.emit(Insn::mov64_reg(CTX, ctx));
        match scratch {
            Some(s) => self.callback_scratch_frame(s, args),
            None => {
                // The variables' slots, at the caller's offsets.
                self.e.alloc_stack(vars as usize);
                for a in (-vars..0).step_by(8) {
                    self.e.emit(Insn::load(Size::DW, Reg::R0, CTX, (a - flag as i32) as i16));
                    self.e.emit(Insn::store(Size::DW, Reg::FP, a as i16, Reg::R0));
                }
            }
        }
        fill(self);

        let (next, stop, ret, out) =
            (self.e.label(), self.e.label(), self.e.label(), self.e.label());
        self.exit = ret;
        self.loops = vec![(next, stop)];
        self.block(body);
        self.e.bind(next);
        self.e.emit(Insn::mov64_imm(Reg::R0, 0));
        self.e.goto(out);
        self.e.bind(stop);
        self.e.emit(Insn::mov64_imm(Reg::R0, 1));
        self.e.goto(out);
        self.e.bind(ret);
        self.e.emit(Insn::store_imm(Size::DW, CTX, 0, 1));
        self.e.emit(Insn::mov64_imm(Reg::R0, 1));
        self.e.bind(out);
        for a in (-vars..0).step_by(8).filter(|_| scratch.is_none()) {
            self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::FP, a as i16));
            self.e.emit(Insn::store(Size::DW, CTX, (a - flag as i32) as i16, Reg::R1));
        }
        self.e.emit(Insn::exit());

        let inner = std::mem::replace(&mut self.callback_refs, refs);
        self.exit = exit;
        self.loops = loops;
        (std::mem::replace(&mut self.e, caller).finish(), inner)
    }
}

/// Does the probe loop over a map? Its variables are then zeroed first: a callback copies
/// every one of them in, and the verifier refuses reads of stack never written.
pub(crate) fn loops_over_maps(stmts: &[TStmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        TStmtKind::MapFor { .. } | TStmtKind::RangeFor { .. } => true,
        TStmtKind::If { then, els, .. } => loops_over_maps(then) || loops_over_maps(els),
        TStmtKind::Loop { body, step, .. } => loops_over_maps(body) || loops_over_maps(step),
        TStmtKind::Seq(b) => loops_over_maps(b),
        _ => false,
    })
}

/// The program and its callbacks as one instruction stream, callbacks after the program in
/// order: each `ld_func` gets its callback's relative offset, map relocations and spans move
/// with their instructions. Returns the callbacks' first instructions as well.
pub(crate) fn link(
    main: Emitter,
    main_refs: &[(usize, usize)],
    callbacks: Vec<Callback>,
) -> (Emitter, Vec<u32>) {
    let mut out = main;
    let mut starts = Vec::new();
    let mut at = out.insns.len();
    for (cb, _) in &callbacks {
        starts.push(at);
        at += cb.insns.len();
    }
    let rel = |from: usize, to: usize| to as i32 - from as i32 - 1;
    for &(i, id) in main_refs {
        out.insns[i].imm = rel(i, starts[id]);
    }
    for ((cb, refs), &base) in callbacks.into_iter().zip(&starts) {
        let mut insns = cb.insns;
        for &(i, id) in &refs {
            insns[i].imm = rel(base + i, starts[id]);
        }
        out.relocs.extend(cb.relocs.into_iter().map(|(i, m)| (base + i, m)));
        out.frame_adds.extend(cb.frame_adds.into_iter().map(|i| base + i));
        out.wants_scratch |= cb.wants_scratch;
        out.spans.extend(cb.spans);
        out.insns.extend(insns);
        if out.overflow.is_none() {
            out.overflow = cb.overflow;
        }
    }
    (out, starts.into_iter().map(|s| s as u32).collect())
}

/// The stack the verifier counts for the deepest chain of calls from the program through its
/// callbacks and functions: each frame rounded up to 32 bytes, as the kernel rounds them.
pub(crate) fn deepest_chain(
    main: &Emitter,
    main_refs: &[(usize, usize)],
    subs: &[Callback],
) -> i32 {
    fn frame(e: &Emitter) -> i32 {
        (e.verifier_frame().max(1) + 31) / 32 * 32
    }
    // A subprogram only calls those lowered before it (a function's callees come first).
    let mut depth: Vec<i32> = Vec::with_capacity(subs.len());
    for (e, refs) in subs {
        let callees = refs.iter().filter_map(|&(_, c)| depth.get(c)).max().copied().unwrap_or(0);
        depth.push(frame(e) + callees);
    }
    frame(main) + main_refs.iter().map(|&(_, c)| depth[c]).max().unwrap_or(0)
}
