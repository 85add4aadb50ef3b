//! The BPF instruction set as sonde emits it: encoding, helper ids, and a disassembler that prints the
//! verifier's own syntax. No dependencies, no kernel access.

pub mod disasm;
pub mod helpers;
pub mod insn;

pub use disasm::{disasm, disasm_indexed, disasm_one};
pub use helpers::{helper, helper_name, map_update};
pub use insn::{Alu, Cond, Insn, Reg, Size};
