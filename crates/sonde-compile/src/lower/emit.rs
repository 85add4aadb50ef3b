//! The instruction buffer: emission with source spans, forward labels, map relocations, the stack
//! frame and the pool of callee-saved registers that hold expression temporaries.

use sonde_bpf::{Cond, Insn, Reg};
use sonde_syntax::ast::Span;

/// The BPF stack is 512 bytes.
pub const STACK_LIMIT: i32 = 512;
/// What a program whose stack does not fit is told.
pub const STACK_SENTENCE: &str = "this needs more than the 512 bytes of BPF stack";
/// A frame in scratch space (see [`Emitter::scratch`]) is at most a per-CPU array's largest
/// value (the kernel's PCPU_MIN_UNIT_SIZE), which its 16-bit offsets reach.
pub const SCRATCH_LIMIT: i32 = 32 << 10;
/// The register that holds the frame's base in scratch space.
pub const SCRATCH_FP: Reg = Reg::R8;

/// The offset `delta` bytes past `base` (on the stack, or from a base register). Capped at
/// `i16::MAX`: only an object larger than the stack, already refused by `alloc_stack` (whose
/// program is never loaded), reaches that far, and an uncapped sum would wrap or overflow.
pub fn past(base: i16, delta: usize) -> i16 {
    (base as i64 + delta as i64).min(i16::MAX as i64) as i16
}
/// The register that keeps the context pointer for the whole program.
pub const CTX: Reg = Reg::R9;
/// The most instructions the kernel loads in one program (BPF_COMPLEXITY_LIMIT_INSNS, for a
/// privileged loader; unprivileged users get BPF_MAXINSNS, 4096, but cannot load tracing
/// programs at all). Past it only the count goes on, so a huge program costs no memory.
pub const MAX_INSNS: usize = 1_000_000;
/// The farthest a jump reaches: its offset is a signed 16-bit field.
const MAX_JUMP: i64 = i16::MAX as i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label(usize);

pub struct Emitter {
    pub insns: Vec<Insn>,
    /// The source span each instruction came from (same length as `insns`).
    pub spans: Vec<Span>,
    /// (instruction index, map index) for each map-fd load to patch at load time.
    pub relocs: Vec<(usize, usize)>,
    pub span: Span,
    labels: Vec<Option<usize>>,
    /// Whether anything jumps to each label (kept apart from `fixups` so `bind` is O(1)).
    jumped_to: Vec<bool>,
    fixups: Vec<(usize, Label)>,
    /// Instructions this program needs, counted on past [`MAX_INSNS`] where `insns` stops.
    pub count: usize,
    free: Vec<Reg>,
    /// Bytes of the frame in use; slots are at negative offsets from `fp`.
    pub stack: i32,
    /// The most bytes of the frame ever in use (statements reuse their temporaries' bytes).
    pub peak: i32,
    /// The frame's base: the BPF stack's frame pointer, or [`SCRATCH_FP`] for a frame in
    /// scratch space.
    pub fp: Reg,
    /// Bytes of the BPF stack itself in use, for a frame in scratch space (what must be on the
    /// stack: a callback's context, the scratch map's key).
    real_stack: i32,
    /// The frame did not fit in the 512 bytes of stack: the probe is lowered again with its
    /// frame in scratch space.
    pub wants_scratch: bool,
    /// The instructions (`fp += size`) that get the frame's size once it is known.
    pub frame_adds: Vec<usize>,
    /// The first construct that did not fit in the stack or the registers.
    pub overflow: Option<(Span, &'static str)>,
    /// False after an unconditional jump or exit until a label is bound: code emitted there
    /// could never run, and the verifier rejects unreachable instructions, so it is dropped.
    reachable: bool,
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            insns: Vec::new(),
            spans: Vec::new(),
            relocs: Vec::new(),
            span: Span::default(),
            labels: Vec::new(),
            jumped_to: Vec::new(),
            fixups: Vec::new(),
            count: 0,
            free: vec![Reg::R8, Reg::R7, Reg::R6],
            stack: 0,
            peak: 0,
            fp: Reg::FP,
            real_stack: 0,
            wants_scratch: false,
            frame_adds: Vec::new(),
            overflow: None,
            reachable: true,
        }
    }

    /// An emitter whose frame is in scratch space, its first `stack` bytes already taken (a
    /// callback's frame goes on after its caller's): bpftrace keeps big strings in per-CPU
    /// scratch maps, and a probe whose values outgrow the 512-byte stack has its whole frame
    /// in a per-CPU array's value, addressed from [`SCRATCH_FP`] (which the temporaries give up).
    pub fn scratch(stack: i32) -> Emitter {
        Emitter { fp: SCRATCH_FP, stack, free: vec![Reg::R7, Reg::R6], ..Emitter::new() }
    }

    pub fn in_scratch(&self) -> bool {
        self.fp == SCRATCH_FP
    }

    pub fn emit(&mut self, i: Insn) {
        if !self.reachable {
            return;
        }
        self.count += 1;
        if self.full() {
            return;
        }
        self.insns.push(i);
        self.spans.push(self.span);
    }

    /// Past the kernel's limit: nothing more is kept, the program will be refused.
    pub fn full(&self) -> bool {
        self.count > MAX_INSNS
    }

    pub fn emit_all(&mut self, is: impl IntoIterator<Item = Insn>) {
        for i in is {
            self.emit(i);
        }
    }

    /// `dst = value`, in one instruction when it fits in 32 bits.
    pub fn mov_const(&mut self, dst: Reg, value: u64) {
        let v = value as i64;
        if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
            self.emit(Insn::mov64_imm(dst, v as i32));
        } else {
            self.emit_all(Insn::ld_imm64(dst, value));
        }
    }

    /// `dst = &map`; the fd is patched in when the program is loaded.
    pub fn ld_map(&mut self, dst: Reg, map: usize) {
        if self.reachable && !self.full() {
            self.relocs.push((self.insns.len(), map));
        }
        self.emit_all(Insn::ld_map_fd(dst, 0));
    }

    /// `dst = &map[0] + offset`, for an array map's value.
    pub fn ld_map_value(&mut self, dst: Reg, map: usize, offset: i32) {
        if self.reachable && !self.full() {
            self.relocs.push((self.insns.len(), map));
        }
        self.emit_all(Insn::ld_map_value(dst, 0, offset));
    }

    pub fn call(&mut self, helper: u32) {
        self.emit(Insn::call(helper));
    }

    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        self.jumped_to.push(false);
        Label(self.labels.len() - 1)
    }

    pub fn bind(&mut self, l: Label) {
        self.labels[l.0] = Some(self.insns.len());
        // Jumps only go forward, so every jump to `l` is already recorded.
        self.reachable = self.reachable || self.jumped_to[l.0];
    }

    fn fixup(&mut self, l: Label) {
        if self.reachable {
            self.jumped_to[l.0] = true;
            if !self.full() {
                self.fixups.push((self.insns.len(), l));
            }
        }
    }

    /// An unconditional jump to a label; what follows is unreachable until a label is bound.
    /// (Short hand-counted skips use `Insn::ja(n)` through `emit` and do not end the block.)
    pub fn goto(&mut self, l: Label) {
        self.fixup(l);
        self.emit(Insn::ja(0));
        self.reachable = false;
    }

    pub fn jmp_imm(&mut self, cond: Cond, r: Reg, imm: i32, l: Label) {
        self.fixup(l);
        self.emit(Insn::jmp_imm(cond, r, imm, 0));
    }

    pub fn jmp_reg(&mut self, cond: Cond, a: Reg, b: Reg, l: Label) {
        self.fixup(l);
        self.emit(Insn::jmp_reg(cond, a, b, 0));
    }

    /// A callee-saved register for a temporary. When all are taken, the caller must spill
    /// (see `Lower::hold`); running out here records an error instead of panicking.
    pub fn alloc_reg(&mut self) -> Reg {
        match self.free.pop() {
            Some(r) => r,
            None => {
                self.overflow.get_or_insert((
                    self.span,
                    "expression is too deeply nested for the BPF registers",
                ));
                Reg::R6
            }
        }
    }

    pub fn free_reg(&mut self, r: Reg) {
        if !self.free.contains(&r) {
            self.free.push(r);
        }
    }

    /// Mark a specific register as in use again (after a branch that freed it).
    pub fn take_reg(&mut self, r: Reg) {
        self.free.retain(|&x| x != r);
    }

    pub fn is_free(&self, r: Reg) -> bool {
        self.free.contains(&r)
    }

    pub fn free_regs(&self) -> usize {
        self.free.len()
    }

    /// Reserve `size` bytes (rounded up to 8) of the frame; returns the offset from `fp`.
    pub fn alloc_stack(&mut self, size: usize) -> i16 {
        let size = ((size + 7) & !7) as i32;
        self.stack += size;
        self.peak = self.peak.max(self.stack);
        let limit = if self.in_scratch() { SCRATCH_LIMIT } else { STACK_LIMIT };
        if self.stack > limit {
            self.wants_scratch = true;
            let why = if self.in_scratch() {
                "this needs more than 32 KB of BPF scratch space"
            } else {
                STACK_SENTENCE
            };
            self.overflow.get_or_insert((self.span, why));
            self.stack = limit; // keep offsets in range so emission can go on
            return -(limit.min(i16::MAX as i32) as i16);
        }
        -(self.stack as i16)
    }

    /// The bytes of the BPF stack itself this frame uses: what the verifier counts for it in a
    /// chain of calls.
    pub fn verifier_frame(&self) -> i32 {
        if self.in_scratch() {
            self.real_stack
        } else {
            self.peak.min(STACK_LIMIT)
        }
    }

    /// Reserve `size` bytes (rounded up to 8) of the BPF stack itself, what a helper wants on
    /// the stack; the frame's own when the frame is the stack. Returns the offset from r10.
    pub fn alloc_real_stack(&mut self, size: usize) -> i16 {
        if !self.in_scratch() {
            return self.alloc_stack(size);
        }
        self.real_stack += ((size + 7) & !7) as i32;
        if self.real_stack > STACK_LIMIT {
            self.overflow
                .get_or_insert((self.span, "this needs more than the 512 bytes of BPF stack"));
            self.real_stack = STACK_LIMIT;
        }
        -(self.real_stack as i16)
    }

    /// Zero `size` bytes (a multiple of 8) of stack at `off`.
    pub fn zero_stack(&mut self, off: i16, size: usize) {
        for i in (0..size).step_by(8) {
            self.emit(Insn::store_imm(sonde_bpf::Size::DW, self.fp, past(off, i), 0));
        }
    }

    /// `dst = fp + off`
    pub fn stack_addr(&mut self, dst: Reg, off: i16) {
        self.emit(Insn::mov64_reg(dst, self.fp));
        self.emit(Insn::alu64_imm(sonde_bpf::Alu::Add, dst, off as i32));
    }

    /// Resolve jumps. Labels are always bound before `finish`. A jump farther than its 16-bit
    /// offset reaches is recorded in `overflow` (cut to 16 bits it would land somewhere else).
    pub fn finish(mut self) -> Emitter {
        for &(at, l) in &self.fixups {
            let target = self.labels[l.0].expect("every label is bound");
            let off = target as i64 - at as i64 - 1;
            if off > MAX_JUMP {
                self.overflow.get_or_insert((
                    self.spans[at],
                    "this jumps over more than 32767 BPF instructions, the farthest a BPF jump reaches: \
                     split the work across probes",
                ));
            }
            self.insns[at].off = off as i16;
        }
        self.fixups.clear();
        self
    }
}
