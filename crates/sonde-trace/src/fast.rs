//! `-s` on the BTF-typed raw tracepoints, built by hand with the compiler's instruction layer
//! (`sonde-bpf`) and loaded by the same loader: the compiled summary's `sys_enter`/`sys_exit`
//! programs are replaced by these, which do what the language cannot say in one statement.
//!
//! One hash, (tid, syscall) -> [`Row`], and one lookup in it at each end of a call:
//! - entry: the row's start time set in place (the row created on a thread's first call of
//!   that syscall);
//! - exit: the syscall number read from the registers (`orig_ax`), the row looked up, its start
//!   taken and cleared, and calls, total, min, max and the sum of squares updated in place;
//!   failures also count (tid, syscall, errno).
//!
//! The language's version looks up a start slot at both ends and makes a lookup per
//! aggregation (six at each exit). The map is a plain hash rather than a per-CPU one: every key
//! holds the tid, and a thread runs on one CPU at a time, so only that thread ever writes its
//! rows. The predicate (targets, `-u`, `-C`, the syscall set) is the one [`Plan::program`]
//! writes, built the same way.

use crate::program::{Plan, Targets, INLINE_SET_MAX, SQUARE_UNIT_NS};
use sonde_bpf::helpers::helper as h;
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};
use sonde_compile::lower::{CONTROL_MAP, FIRST_USER_MAP};
use sonde_compile::provider::AttachPoint;
use sonde_compile::{Compiled, MapDef, MapKind};

/// (tid, syscall) -> [`Row`].
pub const MAP_CALLS: &str = "calls";
/// (tid, syscall, errno) -> failed calls.
pub const MAP_ERRS: &str = "errnos";
/// Entries of each: (thread, syscall) pairs.
pub const ENTRIES: u32 = 16384;
/// `rt_sigreturn` restores the registers and sets `orig_ax` to -1: its exit is counted as it.
const RT_SIGRETURN: i32 = libc::SYS_rt_sigreturn as i32;

/// One (tid, syscall)'s numbers as the programs keep them, six u64s; `start` is the entry time
/// of the call in progress (0: none).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Row {
    pub calls: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub squares: u64,
    pub start: u64,
}

const ROW_BYTES: i16 = 48;

impl Row {
    pub fn decode(b: &[u8]) -> Option<Row> {
        let u = |i: usize| {
            b.get(8 * i..8 * i + 8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or_default()))
        };
        Some(Row {
            calls: u(0)?,
            total_ns: u(1)?,
            min_ns: u(2)?,
            max_ns: u(3)?,
            squares: u(4)?,
            start: u(5)?,
        })
    }
}

/// A key of [`MAP_CALLS`] or [`MAP_ERRS`]: u64 slots (tid, syscall[, errno]).
pub fn decode_key(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or_default())).collect()
}

/// Where the added maps are in `Compiled::maps`.
#[derive(Clone, Copy, Debug)]
pub struct FastMaps {
    pub calls: usize,
    pub errs: usize,
}

/// Does the hand-built pair apply to this plan? The summary on raw tracepoints, with a syscall
/// set written inline (or all of them).
pub fn applies(plan: &Plan) -> bool {
    plan.raw_btf() && (plan.selection.all || plan.selection.nrs.len() <= INLINE_SET_MAX)
}

/// Replace the compiled `rawtracepoint:sys_enter`/`sys_exit` programs of `plan`'s summary by
/// the hand-built ones; None (and `c` unchanged) when the plan or the program does not fit.
/// `orig_ax` is the byte offset of the syscall number in `struct pt_regs` (from the kernel's
/// BTF), read at exit through the tracepoint's typed `regs` argument.
pub fn rewrite(c: &mut Compiled, plan: &Plan, orig_ax: i16) -> Option<FastMaps> {
    if !applies(plan) {
        return None;
    }
    let raw = |name: &str| {
        c.programs.iter().position(|p| {
            p.sites.len() == 1
                && matches!(&p.sites[0].point, AttachPoint::RawTracepoint { name: n, .. } if n == name)
        })
    };
    let (enter, exit) = (raw("sys_enter")?, raw("sys_exit")?);
    let tr = match (&plan.targets, plan.follow) {
        (Targets::Pids(_), true) => {
            let i = c.user_maps.iter().position(|m| m.name.trim_start_matches('@') == "tr")?;
            let def = &c.maps[FIRST_USER_MAP + i];
            Some((FIRST_USER_MAP + i, def.value_size))
        }
        _ => None,
    };
    let base = c.maps.len();
    let maps = FastMaps { calls: base, errs: base + 1 };
    let hash = |name: &str, key_size: u32, value_size: u32| MapDef {
        name: name.into(),
        kind: MapKind::Hash,
        key_size,
        value_size,
        max_entries: ENTRIES,
    };
    c.maps.push(hash(MAP_CALLS, 16, ROW_BYTES as u32));
    c.maps.push(hash(MAP_ERRS, 24, 8));
    let mut a = Asm::default();
    enter_program(&mut a, plan, tr, &maps);
    let p = &mut c.programs[enter];
    (p.insns, p.relocs) = a.finish();
    p.spans = vec![Default::default(); p.insns.len()];
    let mut a = Asm::default();
    exit_program(&mut a, plan, tr, &maps, orig_ax);
    let p = &mut c.programs[exit];
    (p.insns, p.relocs) = a.finish();
    p.spans = vec![Default::default(); p.insns.len()];
    // The language version's maps (start times, the aggregations) are no longer read or
    // written: one entry each instead of thousands per CPU.
    for (i, m) in c.maps.iter_mut().enumerate().skip(FIRST_USER_MAP) {
        if !c.programs.iter().any(|p| p.relocs.iter().any(|&(_, map)| map == i)) {
            m.max_entries = 1;
        }
    }
    Some(maps)
}

/// Instructions with forward labels.
#[derive(Default)]
struct Asm {
    insns: Vec<Insn>,
    relocs: Vec<(usize, usize)>,
    labels: Vec<Option<usize>>,
    /// (jump instruction, label)
    jumps: Vec<(usize, usize)>,
}

type Label = usize;

impl Asm {
    fn label(&mut self) -> Label {
        self.labels.push(None);
        self.labels.len() - 1
    }
    fn bind(&mut self, l: Label) {
        self.labels[l] = Some(self.insns.len());
    }
    fn emit(&mut self, i: Insn) {
        self.insns.push(i);
    }
    fn jmp_imm(&mut self, cond: Cond, r: Reg, imm: i32, to: Label) {
        self.jumps.push((self.insns.len(), to));
        self.emit(Insn::jmp_imm(cond, r, imm, 0));
    }
    fn jmp_reg(&mut self, cond: Cond, r: Reg, s: Reg, to: Label) {
        self.jumps.push((self.insns.len(), to));
        self.emit(Insn::jmp_reg(cond, r, s, 0));
    }
    fn ja(&mut self, to: Label) {
        self.jumps.push((self.insns.len(), to));
        self.emit(Insn::ja(0));
    }
    fn map_fd(&mut self, r: Reg, map: usize) {
        self.relocs.push((self.insns.len(), map));
        self.insns.extend(Insn::ld_map_fd(r, 0));
    }
    fn map_value(&mut self, r: Reg, map: usize, offset: i32) {
        self.relocs.push((self.insns.len(), map));
        self.insns.extend(Insn::ld_map_value(r, 0, offset));
    }
    fn call(&mut self, helper: u32) {
        self.emit(Insn::call(helper));
    }
    /// r2 = fp + off
    fn stack_ptr(&mut self, r: Reg, off: i16) {
        self.emit(Insn::mov64_reg(r, Reg::FP));
        self.emit(Insn::alu64_imm(Alu::Add, r, off as i32));
    }
    /// r0 = lookup(map, fp + key)
    fn lookup(&mut self, map: usize, key: i16) {
        self.map_fd(Reg::R1, map);
        self.stack_ptr(Reg::R2, key);
        self.call(h::MAP_LOOKUP_ELEM);
    }
    /// update(map, fp + key, fp + value, BPF_ANY)
    fn update(&mut self, map: usize, key: i16, value: i16) {
        self.map_fd(Reg::R1, map);
        self.stack_ptr(Reg::R2, key);
        self.stack_ptr(Reg::R3, value);
        self.emit(Insn::mov64_imm(Reg::R4, 0));
        self.call(h::MAP_UPDATE_ELEM);
    }
    /// `*(u64 *)(r + off) += 1`
    fn inc(&mut self, r: Reg, off: i16) {
        self.emit(Insn::load(Size::DW, Reg::R1, r, off));
        self.emit(Insn::alu64_imm(Alu::Add, Reg::R1, 1));
        self.emit(Insn::store(Size::DW, r, off, Reg::R1));
    }
    fn finish(self) -> (Vec<Insn>, Vec<(usize, usize)>) {
        let mut insns = self.insns;
        for (at, l) in self.jumps {
            let to = self.labels[l].expect("every label is bound");
            insns[at].off = (to as i64 - at as i64 - 1) as i16;
        }
        (insns, self.relocs)
    }
}

/// Stopped, or not a traced task (`Plan::target`): to `out`. Leaves pid_tgid in r6 and the tid,
/// zero-extended, at fp-8.
fn prologue(a: &mut Asm, plan: &Plan, tr: Option<(usize, u32)>, out: Label) {
    a.emit(Insn::mov64_reg(Reg::R9, Reg::R1));
    a.map_value(Reg::R1, CONTROL_MAP, 0);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R1, 0));
    a.jmp_imm(Cond::Ne, Reg::R1, 0, out);
    a.call(h::GET_CURRENT_PID_TGID);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    // tid, zero-extended, at fp-8
    a.emit(Insn::mov64_reg(Reg::R7, Reg::R0));
    a.emit(Insn::alu64_imm(Alu::Lsh, Reg::R7, 32));
    a.emit(Insn::alu64_imm(Alu::Rsh, Reg::R7, 32));
    a.emit(Insn::store(Size::DW, Reg::FP, -8, Reg::R7));
    a.emit(Insn::mov64_reg(Reg::R8, Reg::R6));
    a.emit(Insn::alu64_imm(Alu::Rsh, Reg::R8, 32));
    // r7 = tid, r8 = pid
    let pass = a.label();
    match &plan.targets {
        Targets::AllBut(me) => a.jmp_imm(Cond::Eq, Reg::R8, *me as i32, out),
        Targets::Tids(tids) => {
            for t in tids {
                a.jmp_imm(Cond::Eq, Reg::R7, *t as i32, pass);
            }
            a.ja(out);
        }
        Targets::Pids(pids) => {
            for p in pids {
                a.jmp_imm(Cond::Eq, Reg::R8, *p as i32, pass);
            }
            if let Some((map, value_size)) = tr {
                // tr[tid]: the key is the tid in its first bytes (u64 slot, zero-extended).
                a.lookup(map, -8);
                a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
                let size = Size::of_bytes(value_size as usize).unwrap_or(Size::B);
                a.emit(Insn::load(size, Reg::R1, Reg::R0, 0));
                a.jmp_imm(Cond::Ne, Reg::R1, 0, pass);
            }
            a.ja(out);
        }
    }
    a.bind(pass);
    if let Some(uid) = plan.uid {
        a.call(h::GET_CURRENT_UID_GID);
        a.emit(Insn::alu64_imm(Alu::Lsh, Reg::R0, 32));
        a.emit(Insn::alu64_imm(Alu::Rsh, Reg::R0, 32));
        a.jmp_imm(Cond::Ne, Reg::R0, uid as i32, out);
    }
    if !plan.cpus.is_empty() {
        let on = a.label();
        a.call(h::GET_SMP_PROCESSOR_ID);
        for c in &plan.cpus {
            a.jmp_imm(Cond::Eq, Reg::R0, *c as i32, on);
        }
        a.ja(out);
        a.bind(on);
    }
}

fn epilogue(a: &mut Asm, out: Label) {
    a.bind(out);
    a.emit(Insn::mov64_imm(Reg::R0, 0));
    a.emit(Insn::exit());
}

/// The row's key, (tid, id in r7), at fp-32.
fn row_key(a: &mut Asm) {
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::FP, -8));
    a.emit(Insn::store(Size::DW, Reg::FP, -32, Reg::R1));
    a.emit(Insn::store(Size::DW, Reg::FP, -24, Reg::R7));
}

/// `sys_enter(regs, id)`: calls[tid, id].start = now, for a selected id.
fn enter_program(a: &mut Asm, plan: &Plan, tr: Option<(usize, u32)>, m: &FastMaps) {
    let out = a.label();
    prologue(a, plan, tr, out);
    // r7 = id (the second u64 of the context)
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R9, 8));
    if !plan.selection.all {
        let ok = a.label();
        for n in &plan.selection.nrs {
            a.jmp_imm(Cond::Eq, Reg::R7, *n as i32, ok);
        }
        a.ja(out);
        a.bind(ok);
    }
    row_key(a);
    let insert = a.label();
    a.lookup(m.calls, -32);
    a.jmp_imm(Cond::Eq, Reg::R0, 0, insert);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    // The clock last, so the entry's own work is not in the call's time.
    a.call(h::KTIME_GET_NS);
    a.emit(Insn::store(Size::DW, Reg::R6, 40, Reg::R0));
    a.ja(out);
    // The thread's first call of this syscall: a row of zeros but the start.
    a.bind(insert);
    for off in (-80..-40).step_by(8) {
        a.emit(Insn::store_imm(Size::DW, Reg::FP, off, 0));
    }
    a.call(h::KTIME_GET_NS);
    a.emit(Insn::store(Size::DW, Reg::FP, -40, Reg::R0));
    a.update(m.calls, -32, -80);
    epilogue(a, out);
}

/// `sys_exit(regs, ret)`: the row's start taken (and cleared), the row updated in place.
fn exit_program(a: &mut Asm, plan: &Plan, tr: Option<(usize, u32)>, m: &FastMaps, orig_ax: i16) {
    let out = a.label();
    prologue(a, plan, tr, out);
    // r7 = regs->orig_ax (a typed pointer: the verifier makes the load a checked one)
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R9, 0));
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R1, orig_ax));
    let known = a.label();
    a.jmp_imm(Cond::Ne, Reg::R7, -1, known);
    a.emit(Insn::mov64_imm(Reg::R7, RT_SIGRETURN));
    a.bind(known);
    row_key(a);
    a.lookup(m.calls, -32);
    // No row: an unselected syscall, or none of its entries seen.
    a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R6, 40));
    // No entry since the last exit (tracing began during this call).
    a.jmp_imm(Cond::Eq, Reg::R7, 0, out);
    a.emit(Insn::store_imm(Size::DW, Reg::R6, 40, 0));
    a.call(h::KTIME_GET_NS);
    a.emit(Insn::alu64_reg(Alu::Sub, Reg::R0, Reg::R7));
    a.emit(Insn::mov64_reg(Reg::R7, Reg::R0));
    // r6 = row, r7 = duration. min: the first call's, else the smaller.
    let (set_min, no_min, no_max) = (a.label(), a.label(), a.label());
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 0));
    a.jmp_imm(Cond::Eq, Reg::R1, 0, set_min);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 16));
    a.jmp_reg(Cond::Ge, Reg::R7, Reg::R1, no_min);
    a.bind(set_min);
    a.emit(Insn::store(Size::DW, Reg::R6, 16, Reg::R7));
    a.bind(no_min);
    a.inc(Reg::R6, 0);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 8));
    a.emit(Insn::alu64_reg(Alu::Add, Reg::R1, Reg::R7));
    a.emit(Insn::store(Size::DW, Reg::R6, 8, Reg::R1));
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 24));
    a.jmp_reg(Cond::Le, Reg::R7, Reg::R1, no_max);
    a.emit(Insn::store(Size::DW, Reg::R6, 24, Reg::R7));
    a.bind(no_max);
    square(a);
    a.emit(Insn::load(Size::DW, Reg::R2, Reg::R6, 32));
    a.emit(Insn::alu64_reg(Alu::Add, Reg::R2, Reg::R1));
    a.emit(Insn::store(Size::DW, Reg::R6, 32, Reg::R2));
    // Failed: errnos[tid, id, -ret] += 1 (the key's first two slots are the row's).
    a.emit(Insn::load(Size::DW, Reg::R6, Reg::R9, 8));
    a.jmp_imm(Cond::Sge, Reg::R6, 0, out);
    a.emit(Insn::alu64_imm(Alu::Neg, Reg::R6, 0));
    a.emit(Insn::store(Size::DW, Reg::FP, -16, Reg::R6));
    let new = a.label();
    a.lookup(m.errs, -32);
    a.jmp_imm(Cond::Eq, Reg::R0, 0, new);
    a.inc(Reg::R0, 0);
    a.ja(out);
    a.bind(new);
    a.emit(Insn::store_imm(Size::DW, Reg::FP, -88, 1));
    a.update(m.errs, -32, -88);
    epilogue(a, out);
}

/// r1 = (r7 / SQUARE_UNIT_NS)², as the language's summary computes it.
fn square(a: &mut Asm) {
    a.emit(Insn::mov64_reg(Reg::R1, Reg::R7));
    a.emit(Insn::alu64_imm(Alu::Div, Reg::R1, SQUARE_UNIT_NS as i32));
    a.emit(Insn::alu64_reg(Alu::Mul, Reg::R1, Reg::R1));
}

#[cfg(test)]
mod tests;
