//! `-s` on the BTF-typed raw tracepoints, built by hand with the compiler's instruction layer
//! (`sonde-bpf`) and loaded by the same loader: the compiled summary's `sys_enter`/`sys_exit`
//! programs are replaced by these, which do what the language cannot say in one statement.
//!
//! - entry: the start time and the syscall number in this CPU's slot (a per-CPU array, no
//!   hashing), with the tid that owns them;
//! - `sched_switch`: a task switched out during a call (a blocking read) moves its slot to a
//!   hash by tid first, so a slot always belongs to the task running on its CPU;
//! - exit: the slot taken (or the moved one), then the call's [`Row`] (calls, total, min, max
//!   and the sum of squares, all updated in place): in the slot itself when this CPU belongs to
//!   the thread (no lookup at all), else ONE hash lookup of (tid, syscall); failures also count
//!   by (tid, syscall, errno).
//!
//! A CPU's slot belongs to the first thread that finishes a call there, for the whole run: its
//! rows by syscall follow the slot's head ([`SLOT_HEAD`]), so a busy thread (`dd bs=1`) pays
//! for no hash lookup; every other thread on that CPU uses the hash. User space adds each CPU's
//! rows to its owner's ([`summary`]). On this machine kind the hash lookup was 42 ns of the
//! ~70 ns a call cost above its two clock reads.
//!
//! The language's version looks a start slot up by tid at both ends and makes a lookup per
//! aggregation (six at each exit). The rows are a plain hash rather than a per-CPU one: every
//! key holds the tid, and a thread runs on one CPU at a time, so only that thread ever writes
//! its rows. The predicate (targets, `-u`, `-C`, the syscall set) is the one [`Plan::program`]
//! writes, built the same way.

use crate::program::{Plan, Targets, INLINE_SET_MAX, SQUARE_UNIT_NS};
use sonde_bpf::helpers::helper as h;
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};
use sonde_compile::abi::{CONTROL_MAP, FIRST_USER_MAP};
use sonde_compile::provider::AttachPoint;
use sonde_compile::{Compiled, MapDef, MapKind};

mod read;
pub use read::{summary, Entries, NotCounted};

/// (tid, syscall) -> [`Row`].
pub const MAP_CALLS: &str = "calls";
/// (tid, syscall, errno) -> failed calls.
pub const MAP_ERRS: &str = "errnos";
/// Entries of each hash by default: (thread, syscall) pairs ([`Plan::summary_rows`]).
pub const ENTRIES: u32 = 16384;
/// Per CPU: the call in progress {tid, syscall, start ns}, the thread that owns the CPU's rows,
/// then those rows ([`SLOT_ROWS`] of them, by syscall number).
pub const MAP_SLOT: &str = "slot";
/// Bytes before the slot's rows: tid, syscall, start, owner, then the inserts refused on this
/// CPU ([`FULL_CALLS`], [`FULL_ERRNOS`], [`FULL_MOVED`]).
pub const SLOT_HEAD: usize = 56;
/// Where in the slot's head: calls whose (tid, syscall) row could not be inserted.
pub const FULL_CALLS: i16 = 32;
/// Failed calls whose (tid, syscall, errno) count could not be inserted (the call is counted).
pub const FULL_ERRNOS: i16 = 40;
/// Calls of tasks switched out mid-call that could not be moved (their exit finds no start).
pub const FULL_MOVED: i16 = 48;
/// Syscall numbers with a row in the slot (x86-64 has fewer); others use the hash.
pub const SLOT_ROWS: usize = 512;
/// The slot of a task switched out during a call, by tid: {start ns, syscall}, until its exit.
pub const MAP_MOVED: &str = "moved";

/// One (tid, syscall)'s numbers as the exit program keeps them, five u64s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Row {
    pub calls: u64,
    pub total_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub squares: u64,
}

const ROW_BYTES: i16 = 40;
/// Where in the slot's head the owner's tid is.
const OWNER: i16 = 24;

impl Row {
    pub fn decode(b: &[u8]) -> Option<Row> {
        if b.len() < ROW_BYTES as usize {
            return None;
        }
        let u = |i: usize| read::u64_at(b, 8 * i);
        Some(Row { calls: u(0), total_ns: u(1), min_ns: u(2), max_ns: u(3), squares: u(4) })
    }
}

/// Where the added maps are in `Compiled::maps`.
#[derive(Clone, Copy, Debug)]
pub struct FastMaps {
    pub calls: usize,
    pub errs: usize,
    pub slot: usize,
    pub moved: usize,
}

/// Does the hand-built pair apply to this plan? The summary on raw tracepoints, with a syscall
/// set written inline (or all of them).
pub fn applies(plan: &Plan) -> bool {
    plan.raw_btf() && (plan.selection.all || plan.selection.nrs.len() <= INLINE_SET_MAX)
}

/// Replace the compiled `rawtracepoint:sys_enter`/`sys_exit`/`sched_switch` programs of
/// `plan`'s summary by the hand-built ones; None (and `c` unchanged) when the plan or the
/// program does not fit.
pub fn rewrite(c: &mut Compiled, plan: &Plan) -> Option<FastMaps> {
    if !applies(plan) {
        return None;
    }
    let raw = |name: &str| {
        c.programs.iter().position(|p| {
            p.sites.len() == 1
                && matches!(&p.sites[0].point, AttachPoint::RawTracepoint { name: n, .. } if n == name)
        })
    };
    let (enter, exit, switch) = (raw("sys_enter")?, raw("sys_exit")?, raw("sched_switch")?);
    let tr = match (&plan.targets, plan.follow) {
        (Targets::Pids(_), true) => {
            let i = c.user_maps.iter().position(|m| m.name.trim_start_matches('@') == "tr")?;
            let def = &c.maps[FIRST_USER_MAP + i];
            Some((FIRST_USER_MAP + i, def.value_size))
        }
        _ => None,
    };
    let base = c.maps.len();
    let maps = FastMaps { calls: base, errs: base + 1, slot: base + 2, moved: base + 3 };
    let hash = |name: &str, key_size: u32, value_size: u32| MapDef {
        name: name.into(),
        kind: MapKind::Hash,
        key_size,
        value_size,
        max_entries: plan.summary_rows.unwrap_or(ENTRIES),
    };
    c.maps.push(hash(MAP_CALLS, 16, ROW_BYTES as u32));
    c.maps.push(hash(MAP_ERRS, 24, 8));
    c.maps.push(MapDef {
        name: MAP_SLOT.into(),
        kind: MapKind::PerCpuArray,
        key_size: 4,
        value_size: (SLOT_HEAD + SLOT_ROWS * ROW_BYTES as usize) as u32,
        max_entries: 1,
    });
    c.maps.push(hash(MAP_MOVED, 8, 16));
    let mut a = Asm::default();
    enter_program(&mut a, plan, tr, &maps);
    let p = &mut c.programs[enter];
    (p.insns, p.relocs) = a.finish();
    p.spans = vec![Default::default(); p.insns.len()];
    let mut a = Asm::default();
    exit_program(&mut a, plan, tr, &maps);
    let p = &mut c.programs[exit];
    (p.insns, p.relocs) = a.finish();
    p.spans = vec![Default::default(); p.insns.len()];
    let mut a = Asm::default();
    switch_program(&mut a, &maps);
    let p = &mut c.programs[switch];
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

/// r0 = this CPU's slot, or to `out`.
fn slot(a: &mut Asm, m: &FastMaps, out: Label) {
    a.emit(Insn::store_imm(Size::W, Reg::FP, -16, 0));
    a.lookup(m.slot, -16);
    a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
}

/// `sys_enter(regs, id)`: this CPU's slot = {tid, id, now}, for a selected id that returns.
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
    // exit and exit_group never return (strace -c does not count them either).
    a.jmp_imm(Cond::Eq, Reg::R7, libc::SYS_exit as i32, out);
    a.jmp_imm(Cond::Eq, Reg::R7, libc::SYS_exit_group as i32, out);
    slot(a, m, out);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::FP, -8));
    a.emit(Insn::store(Size::DW, Reg::R6, 0, Reg::R1));
    a.emit(Insn::store(Size::DW, Reg::R6, 8, Reg::R7));
    // The clock last, so the entry's own work is not in the call's time.
    a.call(h::KTIME_GET_NS);
    a.emit(Insn::store(Size::DW, Reg::R6, 16, Reg::R0));
    epilogue(a, out);
}

/// `sched_switch`, run by the task switched out: a call of its in progress in this CPU's slot
/// moves to `moved[tid]`, so the slot is free for the next task and the call still found.
fn switch_program(a: &mut Asm, m: &FastMaps) {
    let out = a.label();
    a.map_value(Reg::R1, CONTROL_MAP, 0);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R1, 0));
    a.jmp_imm(Cond::Ne, Reg::R1, 0, out);
    slot(a, m, out);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R6, 16));
    a.jmp_imm(Cond::Eq, Reg::R7, 0, out);
    a.call(h::GET_CURRENT_PID_TGID);
    a.emit(Insn::alu64_imm(Alu::Lsh, Reg::R0, 32));
    a.emit(Insn::alu64_imm(Alu::Rsh, Reg::R0, 32));
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 0));
    a.jmp_reg(Cond::Ne, Reg::R0, Reg::R1, out);
    a.emit(Insn::store(Size::DW, Reg::FP, -8, Reg::R0));
    a.emit(Insn::store(Size::DW, Reg::FP, -32, Reg::R7));
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 8));
    a.emit(Insn::store(Size::DW, Reg::FP, -24, Reg::R1));
    a.emit(Insn::store_imm(Size::DW, Reg::R6, 16, 0));
    a.update(m.moved, -8, -32);
    a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
    a.inc(Reg::R6, FULL_MOVED);
    epilogue(a, out);
}

/// `sys_exit(regs, ret)`: the call's start taken (and cleared), its row updated in place.
fn exit_program(a: &mut Asm, plan: &Plan, tr: Option<(usize, u32)>, m: &FastMaps) {
    let out = a.label();
    prologue(a, plan, tr, out);
    // r7 = start, r8 = id: from this CPU's slot when it is this thread's, else as moved.
    let (moved, have) = (a.label(), a.label());
    slot(a, m, out);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R0, 16));
    a.jmp_imm(Cond::Eq, Reg::R7, 0, moved);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, 0));
    a.emit(Insn::load(Size::DW, Reg::R2, Reg::FP, -8));
    a.jmp_reg(Cond::Ne, Reg::R1, Reg::R2, moved);
    a.emit(Insn::load(Size::DW, Reg::R8, Reg::R0, 8));
    a.emit(Insn::store_imm(Size::DW, Reg::R0, 16, 0));
    a.ja(have);
    a.bind(moved);
    a.lookup(m.moved, -8);
    // No entry seen (tracing began during this call).
    a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
    a.emit(Insn::load(Size::DW, Reg::R7, Reg::R0, 0));
    a.jmp_imm(Cond::Eq, Reg::R7, 0, out);
    a.emit(Insn::load(Size::DW, Reg::R8, Reg::R0, 8));
    // Deleted once used: the hash holds only the calls of tasks switched out mid-call.
    a.map_fd(Reg::R1, m.moved);
    a.stack_ptr(Reg::R2, -8);
    a.call(h::MAP_DELETE_ELEM);
    a.bind(have);
    a.call(h::KTIME_GET_NS);
    a.emit(Insn::alu64_reg(Alu::Sub, Reg::R0, Reg::R7));
    a.emit(Insn::mov64_reg(Reg::R7, Reg::R0));
    // r7 = duration, r8 = id, r6 = this CPU's slot; the row's key (tid, id) at fp-32.
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::FP, -8));
    a.emit(Insn::store(Size::DW, Reg::FP, -32, Reg::R1));
    a.emit(Insn::store(Size::DW, Reg::FP, -24, Reg::R8));
    let (insert, errs, hashed, owned, update) =
        (a.label(), a.label(), a.label(), a.label(), a.label());
    // The slot's own row when this CPU is the thread's (claimed by its first call here).
    a.jmp_imm(Cond::Ge, Reg::R8, SLOT_ROWS as i32, hashed);
    a.emit(Insn::load(Size::DW, Reg::R2, Reg::R6, OWNER));
    a.jmp_reg(Cond::Eq, Reg::R2, Reg::R1, owned);
    a.jmp_imm(Cond::Ne, Reg::R2, 0, hashed);
    a.emit(Insn::store(Size::DW, Reg::R6, OWNER, Reg::R1));
    a.bind(owned);
    a.emit(Insn::mov64_reg(Reg::R1, Reg::R8));
    a.emit(Insn::alu64_imm(Alu::Mul, Reg::R1, ROW_BYTES as i32));
    a.emit(Insn::alu64_imm(Alu::Add, Reg::R1, SLOT_HEAD as i32));
    a.emit(Insn::alu64_reg(Alu::Add, Reg::R6, Reg::R1));
    // Its first call sets min (a hash row is inserted with it instead).
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 0));
    a.jmp_imm(Cond::Ne, Reg::R1, 0, update);
    a.emit(Insn::store(Size::DW, Reg::R6, 16, Reg::R7));
    a.ja(update);
    a.bind(hashed);
    a.lookup(m.calls, -32);
    a.jmp_imm(Cond::Eq, Reg::R0, 0, insert);
    a.emit(Insn::mov64_reg(Reg::R6, Reg::R0));
    a.bind(update);
    let (no_min, no_max) = (a.label(), a.label());
    a.inc(Reg::R6, 0);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 8));
    a.emit(Insn::alu64_reg(Alu::Add, Reg::R1, Reg::R7));
    a.emit(Insn::store(Size::DW, Reg::R6, 8, Reg::R1));
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 16));
    a.jmp_reg(Cond::Ge, Reg::R7, Reg::R1, no_min);
    a.emit(Insn::store(Size::DW, Reg::R6, 16, Reg::R7));
    a.bind(no_min);
    a.emit(Insn::load(Size::DW, Reg::R1, Reg::R6, 24));
    a.jmp_reg(Cond::Le, Reg::R7, Reg::R1, no_max);
    a.emit(Insn::store(Size::DW, Reg::R6, 24, Reg::R7));
    a.bind(no_max);
    square(a);
    a.emit(Insn::load(Size::DW, Reg::R2, Reg::R6, 32));
    a.emit(Insn::alu64_reg(Alu::Add, Reg::R2, Reg::R1));
    a.emit(Insn::store(Size::DW, Reg::R6, 32, Reg::R2));
    a.ja(errs);
    // The thread's first call of this syscall: {1, d, d, d, d²}.
    a.bind(insert);
    a.emit(Insn::store_imm(Size::DW, Reg::FP, -72, 1));
    a.emit(Insn::store(Size::DW, Reg::FP, -64, Reg::R7));
    a.emit(Insn::store(Size::DW, Reg::FP, -56, Reg::R7));
    a.emit(Insn::store(Size::DW, Reg::FP, -48, Reg::R7));
    square(a);
    a.emit(Insn::store(Size::DW, Reg::FP, -40, Reg::R1));
    a.update(m.calls, -32, -72);
    // r6 is still this CPU's slot here.
    a.jmp_imm(Cond::Eq, Reg::R0, 0, errs);
    a.inc(Reg::R6, FULL_CALLS);
    a.bind(errs);
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
    // Refused: counted in the slot, looked up again only on this rare path.
    a.jmp_imm(Cond::Eq, Reg::R0, 0, out);
    slot(a, m, out);
    a.inc(Reg::R0, FULL_ERRNOS);
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
