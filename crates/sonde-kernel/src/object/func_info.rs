//! The BTF func info a program with helper callbacks needs: the verifier accepts a callback
//! (`bpf_for_each_map_elem`'s, loaded with `ld_imm64` of `BPF_PSEUDO_FUNC`) only when the program
//! carries BTF naming each function and marking the callbacks static ("missing btf func_info",
//! "callback function not static"). sonde emits instructions in memory, so it writes that BTF
//! itself: `long main(void *ctx)` at instruction 0, `static long cbN(void *map, void *key,
//! void *value, void *ctx)` at each callback's first instruction, and `long NAME(long a0, ...)`
//! of global linkage at each function's: the verifier checks a global function once, on its
//! own, for any integer arguments.

use crate::error::{KernelError, Result};
use crate::sys::{self, cmd, BtfLoadAttr};
use sonde_btf::builder::Builder;
use std::os::fd::OwnedFd;

const LINKAGE_STATIC: u32 = 0;
const LINKAGE_GLOBAL: u32 = 1;

/// A global function of a program: where it starts, its integer parameters, its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalFunc {
    pub start: u32,
    pub params: u8,
    pub name: String,
}

const ARG_NAMES: [&str; 5] = ["a0", "a1", "a2", "a3", "a4"];

/// The BTF blob and the func info records (`{insn_off, type_id}` pairs, 8 bytes each, in
/// instruction order) for a program whose callbacks start at `callbacks` and whose global
/// functions are `globals` (offsets past 0).
pub fn build(callbacks: &[u32], globals: &[GlobalFunc]) -> (Vec<u8>, Vec<u32>) {
    let mut b = Builder::new();
    let long = b.int("long", 8, true);
    let void_ptr = b.ptr(0);
    let main_proto = b.func_proto(long, &[("ctx", void_ptr)]);
    let main = b.func("main", main_proto, LINKAGE_GLOBAL);
    let cb_proto = b.func_proto(
        long,
        &[("map", void_ptr), ("key", void_ptr), ("value", void_ptr), ("ctx", void_ptr)],
    );
    let mut records = vec![(0, main)];
    for (i, &off) in callbacks.iter().enumerate() {
        let f = b.func(&format!("cb{}", i), cb_proto, LINKAGE_STATIC);
        records.push((off, f));
    }
    for g in globals {
        let params: Vec<(&str, u32)> =
            ARG_NAMES.iter().take(g.params as usize).map(|&n| (n, long)).collect();
        let proto = b.func_proto(long, &params);
        records.push((g.start, b.func(&g.name, proto, LINKAGE_GLOBAL)));
    }
    records.sort_unstable();
    (b.build(), records.into_iter().flat_map(|(off, id)| [off, id]).collect())
}

/// Load `btf` into the kernel (BPF_BTF_LOAD); its fd goes in the program's `prog_btf_fd`.
pub fn load(btf: &[u8]) -> Result<OwnedFd> {
    let mut attr =
        BtfLoadAttr { btf: sys::addr(btf), btf_size: btf.len() as u32, ..Default::default() };
    sys::bpf_fd(cmd::BTF_LOAD, &mut attr).map_err(KernelError::sys("bpf(BPF_BTF_LOAD)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_name_main_then_each_callback() {
        let (btf, records) = build(&[12, 40], &[]);
        assert_eq!(records.len(), 6);
        assert_eq!((records[0], records[2], records[4]), (0, 12, 40));
        let parsed = sonde_btf::Btf::from_bytes(btf).unwrap();
        assert_eq!(parsed.name(sonde_btf::TypeId(records[1])), "main");
        assert_eq!(parsed.name(sonde_btf::TypeId(records[5])), "cb1");
    }

    #[test]
    fn global_functions_are_named_in_instruction_order() {
        let g = |start, name: &str| GlobalFunc { start, params: 2, name: name.to_string() };
        let (btf, records) = build(&[30], &[g(50, "late"), g(10, "early")]);
        assert_eq!((records[0], records[2], records[4], records[6]), (0, 10, 30, 50));
        let parsed = sonde_btf::Btf::from_bytes(btf).unwrap();
        assert_eq!(parsed.name(sonde_btf::TypeId(records[3])), "early");
        assert_eq!(parsed.name(sonde_btf::TypeId(records[7])), "late");
    }
}
