//! BPF instructions: the 8-byte encoding and constructors named after what they do.

/// A BPF register, r0..r10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl Reg {
    pub const R0: Reg = Reg(0);
    pub const R1: Reg = Reg(1);
    pub const R2: Reg = Reg(2);
    pub const R3: Reg = Reg(3);
    pub const R4: Reg = Reg(4);
    pub const R5: Reg = Reg(5);
    pub const R6: Reg = Reg(6);
    pub const R7: Reg = Reg(7);
    pub const R8: Reg = Reg(8);
    pub const R9: Reg = Reg(9);
    /// The read-only frame pointer.
    pub const FP: Reg = Reg(10);
}

/// One 8-byte instruction. `ld_imm64` is two of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Kept as its 8 bytes in one number: a compiled program's file is mostly instructions.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "u64", from = "u64")
)]
pub struct Insn {
    pub code: u8,
    pub dst: u8,
    pub src: u8,
    pub off: i16,
    pub imm: i32,
}

// Instruction classes.
pub const BPF_LD: u8 = 0x00;
pub const BPF_LDX: u8 = 0x01;
pub const BPF_ST: u8 = 0x02;
pub const BPF_STX: u8 = 0x03;
pub const BPF_ALU: u8 = 0x04;
pub const BPF_JMP: u8 = 0x05;
pub const BPF_JMP32: u8 = 0x06;
pub const BPF_ALU64: u8 = 0x07;
// Sizes.
pub const BPF_W: u8 = 0x00;
pub const BPF_H: u8 = 0x08;
pub const BPF_B: u8 = 0x10;
pub const BPF_DW: u8 = 0x18;
// Modes.
pub const BPF_IMM: u8 = 0x00;
pub const BPF_MEM: u8 = 0x60;
pub const BPF_ATOMIC: u8 = 0xc0;
// Sources.
pub const BPF_K: u8 = 0x00;
pub const BPF_X: u8 = 0x08;
/// `src` of an ld_imm64 whose immediate is a map fd.
pub const BPF_PSEUDO_MAP_FD: u8 = 1;
/// `ld_imm64` of the address of a map's value (array maps): imm = fd, the next slot's imm = offset.
pub const BPF_PSEUDO_MAP_VALUE: u8 = 2;
/// `ld_imm64` of a kernel variable's address (a `ksym`): imm = the variable's BTF id in vmlinux,
/// the next slot's imm = 0 (a module's BTF object fd otherwise).
pub const BPF_PSEUDO_BTF_ID: u8 = 3;
/// `ld_imm64` of a function of the program (a helper's callback): imm = the function's first
/// instruction relative to the instruction after the `ld_imm64`.
pub const BPF_PSEUDO_FUNC: u8 = 4;
/// `src` of a call to a function of the program (BPF-to-BPF): imm = its first instruction
/// relative to the instruction after the call.
pub const BPF_PSEUDO_CALL: u8 = 1;

/// ALU operations (the high nibble of an ALU opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alu {
    Add = 0x00,
    Sub = 0x10,
    Mul = 0x20,
    Div = 0x30,
    Or = 0x40,
    And = 0x50,
    Lsh = 0x60,
    Rsh = 0x70,
    Neg = 0x80,
    Mod = 0x90,
    Xor = 0xa0,
    Mov = 0xb0,
    Arsh = 0xc0,
}

/// Jump conditions (the high nibble of a JMP opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Always = 0x00,
    Eq = 0x10,
    Gt = 0x20,
    Ge = 0x30,
    Set = 0x40,
    Ne = 0x50,
    Sgt = 0x60,
    Sge = 0x70,
    Lt = 0xa0,
    Le = 0xb0,
    Slt = 0xc0,
    Sle = 0xd0,
}

/// Memory access width in bytes: 1, 2, 4 or 8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    B = 1,
    H = 2,
    W = 4,
    DW = 8,
}

impl Size {
    pub fn bits(self) -> u8 {
        match self {
            Size::B => BPF_B,
            Size::H => BPF_H,
            Size::W => BPF_W,
            Size::DW => BPF_DW,
        }
    }
    /// The access size for a scalar of `bytes` bytes (1, 2, 4, 8).
    pub fn of_bytes(bytes: usize) -> Option<Size> {
        match bytes {
            1 => Some(Size::B),
            2 => Some(Size::H),
            4 => Some(Size::W),
            8 => Some(Size::DW),
            _ => None,
        }
    }
    pub fn bytes(self) -> usize {
        self as usize
    }
}

impl Insn {
    pub const fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn { code, dst: dst.0, src: src.0, off, imm }
    }
    /// `dst op= imm` (64-bit).
    pub fn alu64_imm(op: Alu, dst: Reg, imm: i32) -> Insn {
        Insn::new(BPF_ALU64 | op as u8 | BPF_K, dst, Reg(0), 0, imm)
    }
    /// `dst op= src` (64-bit).
    pub fn alu64_reg(op: Alu, dst: Reg, src: Reg) -> Insn {
        Insn::new(BPF_ALU64 | op as u8 | BPF_X, dst, src, 0, 0)
    }
    /// `dst op= imm` (32-bit, zero-extends the result).
    pub fn alu32_imm(op: Alu, dst: Reg, imm: i32) -> Insn {
        Insn::new(BPF_ALU | op as u8 | BPF_K, dst, Reg(0), 0, imm)
    }
    pub fn mov64_imm(dst: Reg, imm: i32) -> Insn {
        Insn::alu64_imm(Alu::Mov, dst, imm)
    }
    pub fn mov64_reg(dst: Reg, src: Reg) -> Insn {
        Insn::alu64_reg(Alu::Mov, dst, src)
    }
    /// The two halves of `dst = imm64`.
    pub fn ld_imm64(dst: Reg, imm: u64) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(0), 0, imm as u32 as i32),
            Insn::new(0, Reg(0), Reg(0), 0, (imm >> 32) as u32 as i32),
        ]
    }
    /// The two halves of `dst = map_fd`; the fd is patched in at load time (see `relocate_map`).
    pub fn ld_map_fd(dst: Reg, fd: i32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(BPF_PSEUDO_MAP_FD), 0, fd),
            Insn::new(0, Reg(0), Reg(0), 0, 0),
        ]
    }
    /// The two halves of `dst = &var`, the kernel variable of vmlinux BTF id `btf_id` (the
    /// verifier finds its address; a per-CPU variable's is for `bpf_per_cpu_ptr`).
    pub fn ld_btf_id(dst: Reg, btf_id: u32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(BPF_PSEUDO_BTF_ID), 0, btf_id as i32),
            Insn::new(0, Reg(0), Reg(0), 0, 0),
        ]
    }
    /// The two halves of `dst = &value[offset]` of an array map's first element; the fd is
    /// patched in at load time like `ld_map_fd`'s.
    pub fn ld_map_value(dst: Reg, fd: i32, offset: i32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(BPF_PSEUDO_MAP_VALUE), 0, fd),
            Insn::new(0, Reg(0), Reg(0), 0, offset),
        ]
    }
    /// The two halves of `dst = &function`, `rel` instructions after the next slot (a callback
    /// for `bpf_for_each_map_elem`).
    pub fn ld_func(dst: Reg, rel: i32) -> [Insn; 2] {
        [
            Insn::new(BPF_LD | BPF_DW | BPF_IMM, dst, Reg(BPF_PSEUDO_FUNC), 0, rel),
            Insn::new(0, Reg(0), Reg(0), 0, 0),
        ]
    }
    /// `dst = *(size *)(src + off)`
    pub fn load(size: Size, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_LDX | BPF_MEM | size.bits(), dst, src, off, 0)
    }
    /// `*(size *)(dst + off) = src`
    pub fn store(size: Size, dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(BPF_STX | BPF_MEM | size.bits(), dst, src, off, 0)
    }
    /// `*(size *)(dst + off) = imm`
    pub fn store_imm(size: Size, dst: Reg, off: i16, imm: i32) -> Insn {
        Insn::new(BPF_ST | BPF_MEM | size.bits(), dst, Reg(0), off, imm)
    }
    /// `lock *(u64 *)(dst + off) += src`
    pub fn atomic_add64(dst: Reg, off: i16, src: Reg) -> Insn {
        Insn::new(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, Alu::Add as i32)
    }
    /// `if dst cond imm goto +off`
    pub fn jmp_imm(cond: Cond, dst: Reg, imm: i32, off: i16) -> Insn {
        Insn::new(BPF_JMP | cond as u8 | BPF_K, dst, Reg(0), off, imm)
    }
    /// `if dst cond src goto +off`
    pub fn jmp_reg(cond: Cond, dst: Reg, src: Reg, off: i16) -> Insn {
        Insn::new(BPF_JMP | cond as u8 | BPF_X, dst, src, off, 0)
    }
    /// `goto +off`
    pub fn ja(off: i16) -> Insn {
        Insn::new(BPF_JMP | Cond::Always as u8, Reg(0), Reg(0), off, 0)
    }
    /// `call helper`
    pub fn call(helper: u32) -> Insn {
        Insn::new(BPF_JMP | 0x80, Reg(0), Reg(0), 0, helper as i32)
    }
    /// `call pc+rel`: a function of the program, `rel` instructions after the next one.
    pub fn call_local(rel: i32) -> Insn {
        Insn::new(BPF_JMP | 0x80, Reg(0), Reg(BPF_PSEUDO_CALL), 0, rel)
    }
    pub fn exit() -> Insn {
        Insn::new(BPF_JMP | 0x90, Reg(0), Reg(0), 0, 0)
    }
    /// The kernel's `struct bpf_insn` layout, little-endian.
    pub fn to_bytes(self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = self.code;
        b[1] = (self.src << 4) | (self.dst & 0x0f);
        b[2..4].copy_from_slice(&self.off.to_le_bytes());
        b[4..8].copy_from_slice(&self.imm.to_le_bytes());
        b
    }
    /// The instruction [`Insn::to_bytes`] wrote.
    pub fn from_bytes(b: [u8; 8]) -> Insn {
        Insn {
            code: b[0],
            dst: b[1] & 0x0f,
            src: b[1] >> 4,
            off: i16::from_le_bytes([b[2], b[3]]),
            imm: i32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }
    pub fn is_ld_imm64(self) -> bool {
        self.code == BPF_LD | BPF_DW | BPF_IMM
    }
}

/// Encode a program for BPF_PROG_LOAD.
impl From<Insn> for u64 {
    fn from(i: Insn) -> u64 {
        u64::from_le_bytes(i.to_bytes())
    }
}

impl From<u64> for Insn {
    fn from(v: u64) -> Insn {
        Insn::from_bytes(v.to_le_bytes())
    }
}

pub fn encode(insns: &[Insn]) -> Vec<u8> {
    insns.iter().flat_map(|i| i.to_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instruction_survives_its_bytes_and_its_number() {
        let mut all = Insn::ld_imm64(Reg(3), 0xdead_beef_0123_4567).to_vec();
        all.push(Insn::new(BPF_JMP | 0x50 | BPF_K, Reg(9), Reg(10), -7, -1));
        all.push(Insn::new(BPF_STX | BPF_MEM | BPF_DW, Reg(10), Reg(1), -512, i32::MIN));
        for i in all {
            assert_eq!(Insn::from_bytes(i.to_bytes()), i);
            assert_eq!(Insn::from(u64::from(i)), i);
        }
    }
}
