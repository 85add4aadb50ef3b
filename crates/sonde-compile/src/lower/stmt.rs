//! Statements: control flow, map updates, aggregations and output records.

use super::emit::past;
use super::{h, Lower};
use crate::abi::{EVENTS_MAP, FIRST_USER_MAP, LOST_MAP};
use crate::model::tir::{AggFunc, TExpr, TStmt, TStmtKind};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// bpf_ringbuf_output flags: batch wake-ups (the reader polls on a timer), except for records
/// that end the session.
pub(super) const BPF_RB_NO_WAKEUP: i32 = 1;
const BPF_RB_FORCE_WAKEUP: i32 = 2;

impl Lower<'_> {
    pub fn block(&mut self, stmts: &[TStmt]) {
        for s in stmts {
            // Temporaries of one statement are dead after it: reuse their stack.
            let mark = self.e.stack;
            self.e.span = s.span;
            self.stmt(s);
            self.e.stack = mark;
        }
    }

    pub(super) fn stmt(&mut self, s: &TStmt) {
        match &s.kind {
            TStmtKind::Emit { event, args } => self.emit_record(*event, args, BPF_RB_NO_WAKEUP),
            TStmtKind::Exit { event, code } => {
                self.emit_record(*event, std::slice::from_ref(code), BPF_RB_FORCE_WAKEUP);
                if self.opts.exit_silences {
                    self.e.ld_map_value(Reg::R1, crate::abi::CONTROL_MAP, 0);
                    self.e.emit(Insn::store_imm(Size::DW, Reg::R1, 0, 1));
                }
                self.e.goto(self.exit);
            }
            TStmtKind::MapStore { map, keys, value } => {
                let key = self.build_key(*map, keys, 0);
                let size = self.tp.maps[*map].value_size();
                let val = self.e.alloc_stack(size);
                self.value_into(value, val, size);
                if value.ty.is_scalar() && size == 8 {
                    self.store_in_place(*map, key, val);
                } else {
                    self.store(*map, key, val);
                }
            }
            TStmtKind::Aggregate { map, keys, func, arg } => {
                self.aggregate(*map, keys, *func, arg.as_ref())
            }
            TStmtKind::Delete { map, keys } => {
                let key = self.build_key(*map, keys, 0);
                self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
                self.e.stack_addr(Reg::R2, key);
                self.e.call(h::MAP_DELETE_ELEM);
                self.count_delete(*map);
            }
            TStmtKind::SetVar { var, value } => {
                let (off, slot) = self.vars[*var];
                self.value_into(value, off, slot);
            }
            TStmtKind::If { cond, then, els } => {
                let else_l = self.e.label();
                let end = self.e.label();
                self.branch(cond, false, else_l);
                self.block(then);
                self.e.goto(end);
                self.e.bind(else_l);
                self.block(els);
                self.e.bind(end);
            }
            TStmtKind::Return => self.e.goto(self.exit),
            TStmtKind::Signal(sig) => {
                let r = self.scalar(sig);
                self.e.emit(Insn::mov64_reg(Reg::R1, r));
                self.e.free_reg(r);
                self.e.call(h::SEND_SIGNAL);
            }
            TStmtKind::ZeroVar { var } => {
                let (off, slot) = self.vars[*var];
                self.e.zero_stack(off, slot);
            }
            TStmtKind::Loop { cond, body, step } => self.lower_loop(cond, body, step),
            TStmtKind::Break | TStmtKind::Continue => {
                if let Some(&(cont, end)) = self.loops.last() {
                    self.e.goto(if matches!(s.kind, TStmtKind::Break) { end } else { cont });
                }
            }
            TStmtKind::Seq(stmts) => self.block(stmts),
            TStmtKind::Join { event, arr, user } => self.join(*event, arr, *user),
            TStmtKind::Override(rc) => self.override_return(rc),
            TStmtKind::KernelPrintf { to, format, args } => self.kernel_printf(*to, format, args),
            TStmtKind::MapFor { map, var, body } => self.map_for(*map, *var, body),
            TStmtKind::RangeFor { var, start, end, signed, body } => {
                self.range_for(*var, (*start, *end), *signed, body)
            }
        }
    }

    /// `top: if !cond goto end; body; cont: step; goto top; end:` (bounded loops: 5.3+).
    fn lower_loop(&mut self, cond: &TExpr, body: &[TStmt], step: &[TStmt]) {
        let top = self.e.label();
        let cont = self.e.label();
        let end = self.e.label();
        self.e.bind(top);
        self.branch(cond, false, end);
        self.loops.push((cont, end));
        self.block(body);
        self.loops.pop();
        self.e.bind(cont);
        self.block(step);
        self.e.goto(top);
        self.e.bind(end);
    }

    pub(super) fn map_update(&mut self, map: usize, key: i16, val: i16, flags: u64) {
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.stack_addr(Reg::R3, val);
        self.e.emit(Insn::mov64_imm(Reg::R4, flags as i32));
        self.e.call(h::MAP_UPDATE_ELEM);
    }

    /// A scalar stored over an existing key is written into the value in place (one aligned
    /// 8-byte store, which readers see whole); a map update costs several lookups' worth
    /// (a lock, an element swap), and `x[tid] = nsecs` on every event is the common case.
    fn store_in_place(&mut self, map: usize, key: i16, val: i16) {
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        let insert = self.e.label();
        let done = self.e.label();
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, insert);
        self.e.emit(Insn::load(Size::DW, Reg::R1, self.e.fp, val));
        self.e.emit(Insn::store(Size::DW, Reg::R0, 0, Reg::R1));
        self.e.goto(done);
        self.e.bind(insert);
        self.insert(map, key, val);
        self.e.bind(done);
    }

    /// A record `[u64 event id][values...]` into the ring buffer; count it as lost if there is no room.
    pub(super) fn emit_record(&mut self, event: usize, args: &[TExpr], flags: i32) {
        let def = &self.tp.events[event];
        let size = def.record_size();
        let slots: Vec<usize> = def.args.iter().map(|t| t.slot_size()).collect();
        let rec = self.e.alloc_stack(size);
        self.e.emit(Insn::store_imm(Size::DW, self.e.fp, rec, event as i32));
        let mut at = rec + 8;
        for (a, s) in args.iter().zip(slots) {
            self.value_into(a, at, s);
            at += s as i16;
        }
        self.e.ld_map(Reg::R1, EVENTS_MAP);
        self.e.stack_addr(Reg::R2, rec);
        self.e.emit(Insn::mov64_imm(Reg::R3, size as i32));
        self.e.emit(Insn::mov64_imm(Reg::R4, flags));
        self.e.call(h::RINGBUF_OUTPUT);
        let ok = self.e.label();
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, ok);
        self.count_lost(ok);
    }

    /// `lost[0] += 1` (per CPU, so no atomics needed), then on to `ok`.
    pub(super) fn count_lost(&mut self, ok: super::emit::Label) {
        let key = self.e.alloc_stack(8);
        self.e.emit(Insn::store_imm(Size::W, self.e.fp, key, 0));
        self.e.ld_map(Reg::R1, LOST_MAP);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, ok);
        self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, 0));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R1, 1));
        self.e.emit(Insn::store(Size::DW, Reg::R0, 0, Reg::R1));
        self.e.bind(ok);
    }

    /// Update a per-CPU aggregation in place when the key exists; insert it otherwise. Looking up
    /// first avoids a map update (the expensive part) on every event.
    fn aggregate(&mut self, map: usize, keys: &[TExpr], func: AggFunc, arg: Option<&TExpr>) {
        if let (AggFunc::Tseries { .. }, Some(x)) = (func, arg) {
            return self.tseries(map, keys, x, func);
        }
        // The value to add: a register, or None for the constant 1 (count(), and a histogram,
        // whose argument only picks the bucket), which becomes an immediate.
        let mut x = arg.map(|a| self.scalar(a));
        let signed = arg.is_some_and(|a| a.ty.is_signed());
        // A histogram's bucket index fills the key's last 8 bytes (written below).
        let key = self.build_key(map, keys, if func.has_bucket() { 8 } else { 0 });
        let (_, key_size) = self.tp.maps[map].key_layout();
        if func.has_bucket() {
            if let Some(r) = x.take() {
                self.bucket(r, func, signed);
                self.e.emit(Insn::store(Size::DW, self.e.fp, past(key, key_size) - 8, Reg::R3));
                self.e.free_reg(r);
            }
        }
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        let init = self.e.label();
        let done = self.e.label();
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, init);
        let add = |lw: &mut Lower, off: i16, src: Option<Reg>| {
            lw.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, off));
            match src {
                Some(r) => lw.e.emit(Insn::alu64_reg(Alu::Add, Reg::R1, r)),
                None => lw.e.emit(Insn::alu64_imm(Alu::Add, Reg::R1, 1)),
            }
            lw.e.emit(Insn::store(Size::DW, Reg::R0, off, Reg::R1));
        };
        match func {
            AggFunc::Count | AggFunc::Sum | AggFunc::Quantize { .. } | AggFunc::Lhist { .. } => {
                add(self, 0, x)
            }
            AggFunc::Avg | AggFunc::Stats => {
                add(self, 0, None);
                add(self, 8, x);
            }
            // Lowered by `tseries` above.
            AggFunc::Tseries { .. } => {}
            AggFunc::Min | AggFunc::Max => {
                let x = x.unwrap_or(Reg::R6);
                // value {current, set}: replace when unset or when x beats the current value.
                let store = self.e.label();
                self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, 8));
                self.e.jmp_imm(Cond::Eq, Reg::R1, 0, store);
                self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, 0));
                self.e.jmp_reg(min_max_keeps(func, signed), x, Reg::R1, done);
                self.e.bind(store);
                self.e.emit(Insn::store(Size::DW, Reg::R0, 0, x));
                self.e.emit(Insn::store_imm(Size::DW, Reg::R0, 8, 1));
            }
        }
        self.e.goto(done);
        self.e.bind(init);
        let size = func.value_size();
        let val = self.e.alloc_stack(size);
        let store_x = |lw: &mut Lower, off: i16| match x {
            Some(r) => lw.e.emit(Insn::store(Size::DW, lw.e.fp, off, r)),
            None => lw.e.emit(Insn::store_imm(Size::DW, lw.e.fp, off, 1)),
        };
        match func {
            AggFunc::Avg | AggFunc::Stats => {
                self.e.emit(Insn::store_imm(Size::DW, self.e.fp, val, 1));
                store_x(self, val + 8);
            }
            AggFunc::Min | AggFunc::Max => {
                store_x(self, val);
                self.e.emit(Insn::store_imm(Size::DW, self.e.fp, val + 8, 1));
            }
            _ => store_x(self, val),
        }
        // Another CPU's insert of the key meanwhile (EEXIST) is no full map: only E2BIG counts.
        self.update(map, key, val, sonde_bpf::map_update::BPF_NOEXIST);
        self.count_insert(map);
        self.e.bind(done);
        if let Some(r) = x {
            self.e.free_reg(r);
        }
    }

    /// The histogram bucket of `x` into r3 (uses r1-r3, no calls). Quantize: 0 for negatives,
    /// 1 for zero, 2 + log2(x) otherwise (with bits, `fine_bucket`). Lhist: 0 below min, n+1 at
    /// or above max.
    fn bucket(&mut self, x: Reg, func: AggFunc, signed: bool) {
        let done = self.e.label();
        match func {
            AggFunc::Quantize { bits } if bits > 0 => self.fine_bucket(x, bits, signed, done),
            AggFunc::Lhist { min, max, step } => {
                let n = (max - min) / step;
                self.e.emit(Insn::mov64_imm(Reg::R3, 0));
                self.e.mov_const(Reg::R2, min as u64);
                self.e.jmp_reg(Cond::Slt, x, Reg::R2, done);
                self.e.mov_const(Reg::R3, n as u64 + 1);
                self.e.mov_const(Reg::R2, max as u64);
                self.e.jmp_reg(Cond::Sge, x, Reg::R2, done);
                self.e.emit(Insn::mov64_reg(Reg::R3, x));
                self.e.mov_const(Reg::R2, min as u64);
                self.e.emit(Insn::alu64_reg(Alu::Sub, Reg::R3, Reg::R2));
                self.e.mov_const(Reg::R2, step as u64);
                self.e.emit(Insn::alu64_reg(Alu::Div, Reg::R3, Reg::R2));
                self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, 1));
            }
            _ => {
                self.e.emit(Insn::mov64_imm(Reg::R3, 0));
                if signed {
                    self.e.jmp_imm(Cond::Slt, x, 0, done);
                }
                self.e.emit(Insn::mov64_imm(Reg::R3, 1));
                self.e.jmp_imm(Cond::Eq, x, 0, done);
                self.e.emit(Insn::mov64_imm(Reg::R3, 2));
                self.add_log2(x);
            }
        }
        self.e.bind(done);
    }

    /// `r3 += log2(x)` for x > 0, by halving the width searched (uses r1 and r2).
    fn add_log2(&mut self, x: Reg) {
        self.e.emit(Insn::mov64_reg(Reg::R1, x));
        for shift in [32, 16, 8, 4, 2, 1] {
            self.e.emit(Insn::mov64_reg(Reg::R2, Reg::R1));
            self.e.emit(Insn::alu64_imm(Alu::Rsh, Reg::R2, shift));
            self.e.emit(Insn::jmp_imm(Cond::Eq, Reg::R2, 0, 2));
            self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, shift));
            self.e.emit(Insn::mov64_reg(Reg::R1, Reg::R2));
        }
    }

    /// bpftrace's hist(x, k) bucket into r3 (sonde_output::hist::fine_index): 0 for negatives,
    /// x + 1 below 2^k, else `((l + 1) << k) + ((x >> l) & mask) + 1` with l = log2(x) - k.
    fn fine_bucket(&mut self, x: Reg, bits: u8, signed: bool, done: super::emit::Label) {
        let k = i32::from(bits);
        let mask = (1 << k) - 1;
        self.e.emit(Insn::mov64_imm(Reg::R3, 0));
        if signed {
            self.e.jmp_imm(Cond::Slt, x, 0, done);
        }
        let large = self.e.label();
        self.e.jmp_imm(Cond::Gt, x, mask, large);
        self.e.emit(Insn::mov64_reg(Reg::R3, x));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, 1));
        self.e.goto(done);
        self.e.bind(large);
        self.add_log2(x);
        self.e.emit(Insn::alu64_imm(Alu::Sub, Reg::R3, k));
        self.e.emit(Insn::mov64_reg(Reg::R1, x));
        self.e.emit(Insn::alu64_reg(Alu::Rsh, Reg::R1, Reg::R3));
        self.e.emit(Insn::alu64_imm(Alu::And, Reg::R1, mask));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, 1));
        self.e.emit(Insn::alu64_imm(Alu::Lsh, Reg::R3, k));
        self.e.emit(Insn::alu64_reg(Alu::Add, Reg::R3, Reg::R1));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, 1));
    }
}

/// The comparison of a new value against a min()/max() value under which the current one stays:
/// a new min must be smaller, a new max larger.
pub(super) fn min_max_keeps(func: AggFunc, signed: bool) -> Cond {
    match (func == AggFunc::Min, signed) {
        (true, true) => Cond::Sge,
        (true, false) => Cond::Ge,
        (false, true) => Cond::Sle,
        (false, false) => Cond::Le,
    }
}
