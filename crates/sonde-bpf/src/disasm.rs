//! A disassembler that prints the kernel verifier log's syntax (kernel/bpf/disasm.c), so a
//! `--dump` listing reads the same as the verifier's complaints about it.
//!
//! Differences from the verifier log, on purpose: no `(bf)` opcode prefix; an `ld_imm64` prints
//! as llvm-objdump does (`r1 = 0x123456789 ll`, map fds as `r1 = map_fd(5) ll`), since the
//! verifier would show a map fd as 0; undecodable instructions print `(bad opcode 0xNN)`.
//!
//! Indices: `ld_imm64` takes two slots and gives one line. `disasm` returns one line per
//! instruction (so `lines.len() <= insns.len()`); `disasm_indexed` pairs each line with the slot
//! index it starts at, which is what jump offsets count in.

use crate::insn::*;

// Opcode fields not named in insn.rs.
const BPF_ABS: u8 = 0x20;
const BPF_IND: u8 = 0x40;
const BPF_MEMSX: u8 = 0x80;
const BPF_END: u8 = 0xd0;
const BPF_CALL: u8 = 0x80;
const BPF_EXIT: u8 = 0x90;
const BPF_FETCH: i32 = 0x01;
const BPF_XCHG: i32 = 0xe0 | BPF_FETCH;
const BPF_CMPXCHG: i32 = 0xf0 | BPF_FETCH;
const BPF_PSEUDO_MAP_VALUE: u8 = 2;
const BPF_PSEUDO_CALL: u8 = 1;
const BPF_PSEUDO_KFUNC_CALL: u8 = 2;

/// One line per instruction; see the module docs for how lines map to slots.
pub fn disasm(insns: &[Insn]) -> Vec<String> {
    disasm_indexed(insns).into_iter().map(|(_, s)| s).collect()
}

/// `(slot index, text)` for each instruction.
pub fn disasm_indexed(insns: &[Insn]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < insns.len() {
        let (text, used) = disasm_one(insns, i);
        out.push((i, text));
        i += used;
    }
    out
}

/// The instruction at slot `i` and how many slots it used (2 for `ld_imm64`, else 1).
pub fn disasm_one(insns: &[Insn], i: usize) -> (String, usize) {
    let insn = insns[i];
    let class = insn.code & 0x07;
    match class {
        BPF_ALU | BPF_ALU64 => (alu(insn), 1),
        BPF_JMP | BPF_JMP32 => (jmp(insn), 1),
        BPF_LDX => (ldx(insn), 1),
        BPF_ST => (st(insn), 1),
        BPF_STX => (stx(insn), 1),
        _ => ld(insns, i),
    }
}

fn bad(insn: Insn) -> String {
    format!("(bad opcode 0x{:02x})", insn.code)
}

/// `u8`/`u16`/`u32`/`u64` from the size bits.
fn size_name(code: u8) -> &'static str {
    match code & 0x18 {
        BPF_B => "u8",
        BPF_H => "u16",
        BPF_W => "u32",
        _ => "u64",
    }
}

/// `(r10 -8)`: the kernel prints the offset with `%+d`.
fn mem(reg: u8, off: i16) -> String {
    format!("(r{} {:+})", reg, off)
}

fn alu(insn: Insn) -> String {
    let op = insn.code & 0xf0;
    let r = if insn.code & 0x07 == BPF_ALU64 { 'r' } else { 'w' };
    let (d, s) = (insn.dst, insn.src);
    if op == BPF_END {
        // Byte swaps always name 64-bit registers, even in the 32-bit class.
        return if r == 'r' {
            format!("r{d} = bswap{} r{d}", insn.imm)
        } else {
            let order = if insn.code & BPF_X != 0 { "be" } else { "le" };
            format!("r{d} = {order}{} r{d}", insn.imm)
        };
    }
    if op == Alu::Neg as u8 {
        return format!("{r}{d} = -{r}{d}");
    }
    let signed = insn.off == 1 && (op == Alu::Div as u8 || op == Alu::Mod as u8);
    let opstr = match op {
        0x00 => "+=",
        0x10 => "-=",
        0x20 => "*=",
        0x30 if signed => "s/=",
        0x30 => "/=",
        0x40 => "|=",
        0x50 => "&=",
        0x60 => "<<=",
        0x70 => ">>=",
        0x90 if signed => "s%=",
        0x90 => "%=",
        0xa0 => "^=",
        0xb0 => "=",
        0xc0 => "s>>=",
        _ => return bad(insn),
    };
    if insn.code & BPF_X != 0 {
        // movsx: `r1 = (s8)r2`.
        let sx = match (op, insn.off) {
            (0xb0, 8) => "(s8)",
            (0xb0, 16) => "(s16)",
            (0xb0, 32) => "(s32)",
            _ => "",
        };
        format!("{r}{d} {opstr} {sx}{r}{s}")
    } else {
        format!("{r}{d} {opstr} {}", insn.imm)
    }
}

fn jmp(insn: Insn) -> String {
    let op = insn.code & 0xf0;
    let jmp32 = insn.code & 0x07 == BPF_JMP32;
    let r = if jmp32 { 'w' } else { 'r' };
    if op == Cond::Always as u8 {
        return if jmp32 {
            format!("gotol pc{:+}", insn.imm)
        } else {
            format!("goto pc{:+}", insn.off)
        };
    }
    if !jmp32 && op == BPF_CALL {
        return call(insn);
    }
    if !jmp32 && op == BPF_EXIT {
        return "exit".to_string();
    }
    let cond = match op {
        0x10 => "==",
        0x20 => ">",
        0x30 => ">=",
        0x40 => "&",
        0x50 => "!=",
        0x60 => "s>",
        0x70 => "s>=",
        0xa0 => "<",
        0xb0 => "<=",
        0xc0 => "s<",
        0xd0 => "s<=",
        _ => return bad(insn),
    };
    let (d, off) = (insn.dst, insn.off);
    if insn.code & BPF_X != 0 {
        format!("if {r}{d} {cond} {r}{} goto pc{off:+}", insn.src)
    } else {
        // `0x%x` of an int: negative immediates show as their 32-bit pattern.
        format!("if {r}{d} {cond} 0x{:x} goto pc{off:+}", insn.imm as u32)
    }
}

fn call(insn: Insn) -> String {
    match insn.src {
        BPF_PSEUDO_CALL => format!("call pc{:+}", insn.imm),
        BPF_PSEUDO_KFUNC_CALL => format!("call kernel-function#{}", insn.imm),
        _ => {
            let name = u32::try_from(insn.imm).ok().and_then(crate::helpers::helper_name);
            format!("call {}#{}", name.unwrap_or("unknown"), insn.imm)
        }
    }
}

fn ldx(insn: Insn) -> String {
    let size = match insn.code & 0xe0 {
        BPF_MEM => size_name(insn.code),
        BPF_MEMSX => match insn.code & 0x18 {
            BPF_B => "s8",
            BPF_H => "s16",
            BPF_W => "s32",
            _ => return bad(insn),
        },
        _ => return bad(insn),
    };
    format!("r{} = *({size} *){}", insn.dst, mem(insn.src, insn.off))
}

fn st(insn: Insn) -> String {
    if insn.code & 0xe0 != BPF_MEM {
        return bad(insn);
    }
    format!("*({} *){} = {}", size_name(insn.code), mem(insn.dst, insn.off), insn.imm)
}

fn stx(insn: Insn) -> String {
    let size = size_name(insn.code);
    let at = mem(insn.dst, insn.off);
    let s = insn.src;
    match insn.code & 0xe0 {
        BPF_MEM => format!("*({size} *){at} = r{s}"),
        BPF_ATOMIC => {
            let w = if insn.code & 0x18 == BPF_DW { "64" } else { "" };
            let alu = |op: i32| match op {
                0x00 => Some(("+=", "add")),
                0x40 => Some(("|=", "or")),
                0x50 => Some(("&=", "and")),
                0xa0 => Some(("^=", "xor")),
                _ => None,
            };
            match insn.imm {
                BPF_XCHG => format!("r{s} = atomic{w}_xchg(({size} *){at}, r{s})"),
                BPF_CMPXCHG => format!("r0 = atomic{w}_cmpxchg(({size} *){at}, r0, r{s})"),
                imm => match alu(imm & !BPF_FETCH) {
                    Some((_, name)) if imm & BPF_FETCH != 0 => {
                        format!("r{s} = atomic{w}_fetch_{name}(({size} *){at}, r{s})")
                    }
                    Some((op, _)) => format!("lock *({size} *){at} {op} r{s}"),
                    None => bad(insn),
                },
            }
        }
        _ => bad(insn),
    }
}

/// Class BPF_LD: `ld_imm64` (two slots) and the legacy packet loads.
fn ld(insns: &[Insn], i: usize) -> (String, usize) {
    let insn = insns[i];
    match insn.code & 0xe0 {
        BPF_IMM if insn.code & 0x18 == BPF_DW => {
            let Some(hi) = insns.get(i + 1) else {
                return (bad(insn), 1);
            };
            let lo = insn.imm as u32 as u64;
            let imm = ((hi.imm as u32 as u64) << 32) | lo;
            let d = insn.dst;
            let text = match insn.src {
                0 => format!("r{d} = 0x{imm:x} ll"),
                BPF_PSEUDO_MAP_FD => format!("r{d} = map_fd({}) ll", insn.imm),
                BPF_PSEUDO_MAP_VALUE => {
                    format!("r{d} = map_value({}) + {} ll", insn.imm, hi.imm)
                }
                crate::insn::BPF_PSEUDO_FUNC => format!("r{d} = func pc{:+} ll", insn.imm),
                crate::insn::BPF_PSEUDO_BTF_ID => format!("r{d} = ksym(btf id {}) ll", insn.imm),
                src => format!("r{d} = pseudo{src}(0x{imm:x}) ll"),
            };
            (text, 2)
        }
        BPF_ABS => (format!("r0 = *({} *)skb[{}]", size_name(insn.code), insn.imm), 1),
        BPF_IND => {
            let size = size_name(insn.code);
            (format!("r0 = *({size} *)skb[r{} + {}]", insn.src, insn.imm), 1)
        }
        _ => (bad(insn), 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helpers::helper;

    fn one(insn: Insn) -> String {
        disasm(&[insn]).remove(0)
    }
    fn raw(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> Insn {
        Insn { code, dst, src, off, imm }
    }

    #[test]
    fn alu64() {
        assert_eq!(one(Insn::mov64_reg(Reg::R1, Reg::FP)), "r1 = r10");
        assert_eq!(one(Insn::alu64_imm(Alu::Add, Reg::R1, -16)), "r1 += -16");
        assert_eq!(one(Insn::mov64_imm(Reg::R0, 0)), "r0 = 0");
        assert_eq!(one(Insn::alu64_imm(Alu::Arsh, Reg::R1, 3)), "r1 s>>= 3");
        assert_eq!(one(Insn::alu64_imm(Alu::Neg, Reg::R0, 0)), "r0 = -r0");
        assert_eq!(one(Insn::alu64_reg(Alu::Sub, Reg::R3, Reg::R4)), "r3 -= r4");
        assert_eq!(one(Insn::alu64_reg(Alu::Mul, Reg::R3, Reg::R4)), "r3 *= r4");
        assert_eq!(one(Insn::alu64_reg(Alu::Div, Reg::R3, Reg::R4)), "r3 /= r4");
        assert_eq!(one(Insn::alu64_reg(Alu::Or, Reg::R3, Reg::R4)), "r3 |= r4");
        assert_eq!(one(Insn::alu64_imm(Alu::And, Reg::R3, 255)), "r3 &= 255");
        assert_eq!(one(Insn::alu64_imm(Alu::Lsh, Reg::R3, 32)), "r3 <<= 32");
        assert_eq!(one(Insn::alu64_imm(Alu::Rsh, Reg::R3, 32)), "r3 >>= 32");
        assert_eq!(one(Insn::alu64_reg(Alu::Mod, Reg::R3, Reg::R4)), "r3 %= r4");
        assert_eq!(one(Insn::alu64_reg(Alu::Xor, Reg::R3, Reg::R4)), "r3 ^= r4");
    }

    #[test]
    fn alu32() {
        assert_eq!(one(raw(BPF_ALU | 0xb0 | BPF_X, 1, 2, 0, 0)), "w1 = w2");
        assert_eq!(one(Insn::alu32_imm(Alu::Add, Reg::R1, 7)), "w1 += 7");
        assert_eq!(one(Insn::alu32_imm(Alu::Neg, Reg::R5, 0)), "w5 = -w5");
    }

    #[test]
    fn alu_newer_forms() {
        // sdiv/smod (off=1) and movsx (off=8/16/32), v6.6+.
        assert_eq!(one(raw(BPF_ALU64 | 0x30 | BPF_X, 1, 2, 1, 0)), "r1 s/= r2");
        assert_eq!(one(raw(BPF_ALU64 | 0x90 | BPF_K, 1, 0, 1, 3)), "r1 s%= 3");
        assert_eq!(one(raw(BPF_ALU64 | 0xb0 | BPF_X, 1, 2, 8, 0)), "r1 = (s8)r2");
        assert_eq!(one(raw(BPF_ALU | 0xb0 | BPF_X, 1, 2, 16, 0)), "w1 = (s16)w2");
    }

    #[test]
    fn byte_swaps() {
        assert_eq!(one(raw(BPF_ALU | BPF_END | BPF_X, 1, 0, 0, 16)), "r1 = be16 r1");
        assert_eq!(one(raw(BPF_ALU | BPF_END, 1, 0, 0, 32)), "r1 = le32 r1");
        assert_eq!(one(raw(BPF_ALU64 | BPF_END, 1, 0, 0, 64)), "r1 = bswap64 r1");
    }

    #[test]
    fn loads_and_stores() {
        assert_eq!(one(Insn::load(Size::W, Reg::R0, Reg::R1, 8)), "r0 = *(u32 *)(r1 +8)");
        assert_eq!(one(Insn::load(Size::B, Reg::R0, Reg::R1, 0)), "r0 = *(u8 *)(r1 +0)");
        assert_eq!(one(Insn::load(Size::H, Reg::R2, Reg::FP, -2)), "r2 = *(u16 *)(r10 -2)");
        assert_eq!(one(Insn::store(Size::DW, Reg::FP, -8, Reg::R1)), "*(u64 *)(r10 -8) = r1");
        assert_eq!(one(Insn::store_imm(Size::W, Reg::FP, -4, 0)), "*(u32 *)(r10 -4) = 0");
        assert_eq!(one(Insn::store_imm(Size::DW, Reg::FP, -16, -1)), "*(u64 *)(r10 -16) = -1");
        assert_eq!(one(raw(BPF_LDX | BPF_MEMSX | BPF_H, 3, 1, 4, 0)), "r3 = *(s16 *)(r1 +4)");
    }

    #[test]
    fn atomics() {
        assert_eq!(one(Insn::atomic_add64(Reg::R0, 0, Reg::R1)), "lock *(u64 *)(r0 +0) += r1");
        let code = BPF_STX | BPF_ATOMIC | BPF_W;
        assert_eq!(one(raw(code, 0, 1, 4, 0x50)), "lock *(u32 *)(r0 +4) &= r1");
        assert_eq!(
            one(raw(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, 0x01)),
            "r1 = atomic64_fetch_add((u64 *)(r0 +0), r1)"
        );
        assert_eq!(
            one(raw(BPF_STX | BPF_ATOMIC | BPF_DW, 2, 3, -8, BPF_XCHG)),
            "r3 = atomic64_xchg((u64 *)(r2 -8), r3)"
        );
        assert_eq!(
            one(raw(code, 2, 3, 0, BPF_CMPXCHG)),
            "r0 = atomic_cmpxchg((u32 *)(r2 +0), r0, r3)"
        );
        assert_eq!(one(raw(code, 0, 1, 0, 0x30)), "(bad opcode 0xc3)");
    }

    #[test]
    fn jumps() {
        assert_eq!(one(Insn::jmp_imm(Cond::Eq, Reg::R0, 0, 3)), "if r0 == 0x0 goto pc+3");
        assert_eq!(one(Insn::jmp_reg(Cond::Sgt, Reg::R1, Reg::R2, -4)), "if r1 s> r2 goto pc-4");
        assert_eq!(one(Insn::jmp_imm(Cond::Ne, Reg::R1, -1, 0)), "if r1 != 0xffffffff goto pc+0");
        assert_eq!(one(Insn::jmp_imm(Cond::Set, Reg::R1, 16, 1)), "if r1 & 0x10 goto pc+1");
        assert_eq!(one(Insn::jmp_reg(Cond::Le, Reg::R1, Reg::R2, 1)), "if r1 <= r2 goto pc+1");
        assert_eq!(one(Insn::jmp_reg(Cond::Slt, Reg::R1, Reg::R2, 1)), "if r1 s< r2 goto pc+1");
        let j32 = raw(BPF_JMP32 | 0x20 | BPF_K, 1, 0, 2, 255);
        assert_eq!(one(j32), "if w1 > 0xff goto pc+2");
        assert_eq!(one(Insn::ja(2)), "goto pc+2");
        assert_eq!(one(Insn::ja(-1)), "goto pc-1");
        assert_eq!(one(raw(BPF_JMP32, 0, 0, 0, 70000)), "gotol pc+70000");
        assert_eq!(one(Insn::exit()), "exit");
        assert_eq!(one(raw(BPF_JMP | 0xe0, 0, 0, 0, 0)), "(bad opcode 0xe5)");
        assert_eq!(one(raw(BPF_JMP32 | 0x90, 0, 0, 0, 0)), "(bad opcode 0x96)");
    }

    #[test]
    fn calls() {
        assert_eq!(one(Insn::call(helper::MAP_LOOKUP_ELEM)), "call bpf_map_lookup_elem#1");
        assert_eq!(one(Insn::call(helper::GET_FUNC_RET)), "call bpf_get_func_ret#184");
        assert_eq!(one(Insn::call(9999)), "call unknown#9999");
        assert_eq!(one(raw(BPF_JMP | 0x80, 0, 1, 0, 5)), "call pc+5");
        assert_eq!(one(raw(BPF_JMP | 0x80, 0, 2, 0, 1234)), "call kernel-function#1234");
    }

    #[test]
    fn ld_imm64() {
        let mut prog = Insn::ld_imm64(Reg::R1, 0x1_2345_6789).to_vec();
        prog.extend(Insn::ld_map_fd(Reg::R1, 5));
        prog.push(Insn::exit());
        assert_eq!(disasm(&prog), ["r1 = 0x123456789 ll", "r1 = map_fd(5) ll", "exit"]);
        let idx = disasm_indexed(&prog);
        assert_eq!(idx.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 2, 4]);
        assert_eq!(disasm_one(&prog, 0), ("r1 = 0x123456789 ll".to_string(), 2));
        assert_eq!(disasm(&Insn::ld_imm64(Reg::R2, u64::MAX)), ["r2 = 0xffffffffffffffff ll"]);
        // A first half with no second half is malformed.
        assert_eq!(disasm(&prog[..1]), ["(bad opcode 0x18)"]);
        let mut mv = Insn::ld_map_fd(Reg::R3, 7);
        mv[0].src = BPF_PSEUDO_MAP_VALUE;
        mv[1].imm = 16;
        assert_eq!(disasm(&mv), ["r3 = map_value(7) + 16 ll"]);
    }

    #[test]
    fn legacy_packet_loads() {
        assert_eq!(one(raw(BPF_LD | BPF_ABS | BPF_H, 0, 0, 0, 12)), "r0 = *(u16 *)skb[12]");
        assert_eq!(one(raw(BPF_LD | BPF_IND | BPF_B, 0, 3, 0, 1)), "r0 = *(u8 *)skb[r3 + 1]");
    }

    #[test]
    fn bad_opcodes() {
        assert_eq!(one(raw(0xff, 0, 0, 0, 0)), "(bad opcode 0xff)");
        assert_eq!(one(raw(BPF_ALU64 | 0xe0, 0, 0, 0, 0)), "(bad opcode 0xe7)");
        assert_eq!(one(raw(BPF_LDX | 0x20, 0, 0, 0, 0)), "(bad opcode 0x21)");
        assert_eq!(one(raw(BPF_ST | BPF_ATOMIC, 0, 0, 0, 0)), "(bad opcode 0xc2)");
        assert_eq!(one(raw(BPF_LD | BPF_MEM, 0, 0, 0, 0)), "(bad opcode 0x60)");
    }
}
