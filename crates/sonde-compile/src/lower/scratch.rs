//! Frames in scratch space. A probe whose values outgrow the 512 bytes of BPF stack (strings of
//! a large `max_strlen`, tuples of them) is lowered again with its whole frame in a per-CPU
//! array's value, as bpftrace keeps big values in per-CPU scratch maps: one mechanism for every
//! value, since the lowering addresses the frame only through `Emitter::fp`. The map has one
//! element per program (key: the program's index), so programs that interrupt each other on a
//! CPU never share a frame; a program's `for` callbacks go on in its frame after their caller's
//! slots, as they would on the stack. The base register (r8) points past the frame's end so
//! slots keep their negative offsets; what a helper needs on the real stack (a callback's
//! context, the map's key) is allocated there apart.

use super::emit::{SCRATCH_FP, STACK_LIMIT};
use super::{h, Lower, MapDef, MapKind};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// The scratch map and the program's element in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scratch {
    pub map: usize,
    pub key: u32,
}

/// The scratch map: `frame` bytes (the largest frame) for each of `programs` programs.
pub(crate) fn scratch_map(frame: u32, programs: u32) -> MapDef {
    MapDef {
        name: "scratch".into(),
        kind: MapKind::PerCpuArray,
        key_size: 4,
        value_size: (frame + 7) & !7,
        max_entries: programs.max(1),
    }
}

impl Lower<'_> {
    /// The probe's prologue: `fp` = this CPU's element + the frame's size (filled in once
    /// known); the probe returns if there is none.
    pub(super) fn scratch_frame(&mut self, s: Scratch) {
        self.lookup_frame(s);
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, self.exit);
        self.set_fp();
    }

    /// A callback's prologue: the helper's arguments it reads (`args`) kept across the lookup
    /// (on the real stack), `fp` set as in the probe; with no element the callback stops the
    /// loop.
    pub(super) fn callback_scratch_frame(&mut self, s: Scratch, args: &[Reg]) {
        let saved = self.e.alloc_real_stack(8 * args.len());
        for (i, r) in args.iter().enumerate() {
            self.e.emit(Insn::store(Size::DW, Reg::FP, saved + 8 * i as i16, *r));
        }
        self.lookup_frame(s);
        self.e.emit(Insn::jmp_imm(Cond::Ne, Reg::R0, 0, 2));
        self.e.emit(Insn::mov64_imm(Reg::R0, 1));
        self.e.emit(Insn::exit());
        self.set_fp();
        for (i, r) in args.iter().enumerate() {
            self.e.emit(Insn::load(Size::DW, *r, Reg::FP, saved + 8 * i as i16));
        }
    }

    /// r0 = the program's element of the scratch map (or 0).
    fn lookup_frame(&mut self, s: Scratch) {
        let key = self.e.alloc_real_stack(8);
        self.e.emit(Insn::store_imm(Size::W, Reg::FP, key, s.key as i32));
        self.e.ld_map(Reg::R1, s.map);
        self.e.emit(Insn::mov64_reg(Reg::R2, Reg::FP));
        self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R2, key as i32));
        self.e.call(h::MAP_LOOKUP_ELEM);
    }

    fn set_fp(&mut self) {
        self.e.emit(Insn::mov64_reg(SCRATCH_FP, Reg::R0));
        self.e.frame_adds.push(self.e.insns.len());
        self.e.emit(Insn::alu64_imm(Alu::Add, SCRATCH_FP, STACK_LIMIT));
    }
}
