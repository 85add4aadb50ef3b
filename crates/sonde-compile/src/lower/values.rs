//! bpftrace's map-element values: `has_key(@m, k)` and `delete(@m, k)`.

use super::emit::past;
use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::TExpr;
use sonde_bpf::{Cond, Insn, Reg, Size};

impl Lower<'_> {
    /// 1 when `map` holds the element at `keys`, else 0.
    pub fn map_has(&mut self, map: usize, keys: &[TExpr]) -> Reg {
        self.map_call(map, keys, h::MAP_LOOKUP_ELEM, Cond::Ne)
    }

    /// Remove the element; 1 when it was there (the helper returned 0), else 0.
    pub fn map_delete(&mut self, map: usize, keys: &[TExpr]) -> Reg {
        let d = self.map_call(map, keys, h::MAP_DELETE_ELEM, Cond::Eq);
        self.count_deleted(map, d);
        d
    }

    /// `bswap(x)`: BPF's byte-order instruction, a swap on this little-endian machine.
    pub fn bswap(&mut self, arg: &TExpr, bytes: u8) -> Reg {
        const BPF_END_TO_BE: u8 = sonde_bpf::insn::BPF_ALU | 0xd0 | sonde_bpf::insn::BPF_X;
        let d = self.scalar(arg);
        if bytes > 1 {
            self.e.emit(Insn::new(BPF_END_TO_BE, d, Reg::R0, 0, i32::from(bytes) * 8));
        }
        d
    }

    /// `buf(ptr, len)` into the `size` bytes at `off`: the length, clamped to `max`, then the
    /// bytes, read with a length the verifier sees bounded.
    pub fn buf_into(
        &mut self,
        ptr: &TExpr,
        len: &TExpr,
        user: bool,
        max: usize,
        off: i16,
        size: usize,
    ) {
        self.e.zero_stack(off, size);
        let clamp = |l: &mut Self| {
            let ok = l.e.label();
            l.e.jmp_imm(Cond::Le, Reg::R2, max as i32, ok);
            l.e.emit(Insn::mov64_imm(Reg::R2, max as i32));
            l.e.bind(ok);
        };
        let n = self.scalar(len);
        self.e.emit(Insn::mov64_reg(Reg::R2, n));
        self.e.free_reg(n);
        clamp(self);
        self.e.emit(Insn::store(Size::DW, self.e.fp, off, Reg::R2));
        let p = self.scalar(ptr);
        self.e.emit(Insn::mov64_reg(Reg::R3, p));
        self.e.free_reg(p);
        self.e.emit(Insn::load(Size::DW, Reg::R2, self.e.fp, off));
        clamp(self);
        self.e.stack_addr(Reg::R1, off + 8);
        self.e.call(if user { h::PROBE_READ_USER } else { h::PROBE_READ });
    }

    /// `len(str)`: the string is copied to the stack, then its bytes are looked at one by one
    /// (unrolled: the verifier needs no loop) until the first NUL.
    pub fn str_len(&mut self, s: &TExpr) -> Reg {
        let n = s.ty.size();
        let slot = s.ty.slot_size();
        let buf = self.e.alloc_stack(slot);
        self.value_into(s, buf, slot);
        let d = self.e.alloc_reg();
        let end = self.e.label();
        for i in 0..n {
            self.e.emit(Insn::mov64_imm(d, i as i32));
            self.e.emit(Insn::load(Size::B, Reg::R1, self.e.fp, past(buf, i)));
            self.e.jmp_imm(Cond::Eq, Reg::R1, 0, end);
        }
        self.e.emit(Insn::mov64_imm(d, n as i32));
        self.e.bind(end);
        d
    }

    /// `helper(map, &key)`, then 1 when r0 `cond` 0.
    fn map_call(&mut self, map: usize, keys: &[TExpr], helper: u32, cond: Cond) -> Reg {
        let key = self.build_key(map, keys, 0);
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(helper);
        let d = self.e.alloc_reg();
        self.e.emit(Insn::mov64_imm(d, 1));
        self.e.emit(Insn::jmp_imm(cond, Reg::R0, 0, 1));
        self.e.emit(Insn::mov64_imm(d, 0));
        d
    }
}
