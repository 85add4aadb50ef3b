//! `len(kstack)`/`len(ustack)`: `bpf_get_stack` writes the frames into a buffer and returns the
//! bytes it wrote, eight a frame. Only the count is kept, so the buffer is a plain array's value
//! (its address a constant, no lookup) that every CPU may scribble on at once; it is sized for
//! the deepest stack measured, bigger than the 512-byte BPF stack for `len(kstack)`'s 127.

use super::{Lower, MapDef, MapKind};
use sonde_bpf::{Alu, Cond, Insn, Reg};

/// bpf_get_stack (4.18).
const GET_STACK: u32 = 67;
const BPF_F_USER_STACK: i32 = 1 << 8;

/// The buffer's map, when a probe measures a stack.
pub(crate) fn buffer_map(frames: u8) -> Option<MapDef> {
    (frames > 0).then(|| MapDef {
        name: "stack_len".into(),
        kind: MapKind::Array,
        key_size: 4,
        value_size: 8 * frames as u32,
        max_entries: 1,
    })
}

impl Lower<'_> {
    /// The frames of the stack here, at most `frames` (0 when the kernel could not take it).
    pub(super) fn stack_len(&mut self, user: bool, frames: u8) -> Reg {
        let d = self.e.alloc_reg();
        let Some(buf) = self.stack_len_map else {
            self.e.overflow.get_or_insert((self.e.span, "internal error: no stack buffer"));
            return d;
        };
        self.e.emit(Insn::mov64_reg(Reg::R1, super::emit::CTX));
        self.e.ld_map_value(Reg::R2, buf, 0);
        self.e.emit(Insn::mov64_imm(Reg::R3, 8 * frames as i32));
        self.e.emit(Insn::mov64_imm(Reg::R4, if user { BPF_F_USER_STACK } else { 0 }));
        self.e.call(GET_STACK);
        self.e.emit(Insn::mov64_imm(d, 0));
        let none = self.e.label();
        self.e.jmp_imm(Cond::Sle, Reg::R0, 0, none);
        self.e.emit(Insn::mov64_reg(d, Reg::R0));
        self.e.emit(Insn::alu64_imm(Alu::Rsh, d, 3));
        self.e.bind(none);
        d
    }
}
