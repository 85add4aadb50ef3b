//! The BPF instruction set as sonde emits it: encoding, helper ids, and a disassembler that prints the
//! verifier's own syntax. No dependencies, no kernel access.

pub mod insn;

pub use insn::{Alu, Cond, Insn, Reg, Size};
