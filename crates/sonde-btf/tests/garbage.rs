//! No input may panic or hang: random bytes, every truncation and many corruptions of a
//! valid blob, each either rejected or fully explorable.

mod common;

use common::Builder;
use sonde_btf::{Btf, NamedKind, TypeId};

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A blob using every kind, so corruptions land in every kind of record.
fn sample() -> Vec<u8> {
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let chr = b.int_enc("char", 1, 2, 0, 8);
    let arr = b.array(chr, int, 16);
    let inner = b.struct_("", 8, &[("c", int, 0), ("d", int, 32)]);
    let un = b.union_("", 8, &[("b", int, 0), ("", inner, 0)]);
    let st = b.composite(
        4,
        "task",
        32,
        true,
        &[("a", int, 0), ("", un, 32), ("comm", arr, 96), ("bf", int, (3 << 24) | 224)],
    );
    let pst = b.ptr(st);
    b.enum32("e", 4, true, &[("A", 1)]);
    b.enum64("e64", false, &[("B", 1 << 40)]);
    b.fwd("f", false);
    let td = b.typedef("pid_t", int);
    let c = b.const_(td);
    let v = b.volatile(c);
    b.restrict(pst);
    b.type_tag("user", v);
    let proto = b.func_proto(int, &[("p", pst), ("", 0)]);
    let func = b.func("wake", proto, 1);
    let var = b.var("x", int, 0);
    b.datasec(".data", 4, &[(var, 0, 4)]);
    b.float("double", 8);
    b.decl_tag("tag", func, -1);
    b.build()
}

/// Uses every query on every id; the results do not matter, only that they return.
fn exercise(btf: &Btf) {
    let max = btf.max_id().0.min(2000);
    for id in 0..=max + 2 {
        let id = TypeId(id);
        let _ = btf.kind(id);
        let _ = btf.type_name(id);
        let _ = btf.size_of(id);
        let _ = btf.strip(id);
        let _ = btf.name(id);
        for name in btf.member_names(id).iter().take(8) {
            let _ = btf.member(id, name);
        }
        let _ = btf.member(id, "comm");
    }
    for name in ["wake", "int", "task", "pid_t", "comm", "", "e64"] {
        let _ = btf.find_func(name);
        for kind in [
            NamedKind::Struct,
            NamedKind::Union,
            NamedKind::Enum,
            NamedKind::Typedef,
            NamedKind::Int,
            NamedKind::Float,
            NamedKind::Any,
        ] {
            let _ = btf.find_named(kind, name);
        }
    }
    assert_eq!(btf.funcs().count(), btf.func_count());
}

#[test]
fn the_sample_itself_loads() {
    exercise(&Btf::from_bytes(sample()).unwrap());
}

#[test]
fn every_truncation_is_handled() {
    let good = sample();
    for len in 0..good.len() {
        if let Ok(btf) = Btf::from_bytes(good[..len].to_vec()) {
            exercise(&btf);
        }
    }
}

#[test]
fn corrupted_words_are_handled() {
    let good = sample();
    let mut rng = Rng(0x5eed);
    // Small values make likely-valid ids, kinds and offsets; random ones hit the edges.
    let interesting =
        [0u32, 1, 2, 3, 7, 0xff, 0xffff, 0x8000_0000, 0x0d00_0001, 0x1300_0003, u32::MAX];
    for round in 0..3000 {
        let mut bytes = good.clone();
        for _ in 0..1 + round % 4 {
            let at = rng.below(bytes.len() / 4) * 4;
            let word = if rng.below(2) == 0 {
                interesting[rng.below(interesting.len())]
            } else {
                rng.next() as u32
            };
            bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        }
        if let Ok(btf) = Btf::from_bytes(bytes) {
            exercise(&btf);
        }
    }
}

#[test]
fn flipped_bits_are_handled() {
    let good = sample();
    let mut rng = Rng(42);
    for _ in 0..3000 {
        let mut bytes = good.clone();
        let at = rng.below(bytes.len());
        bytes[at] ^= 1 << rng.below(8);
        if let Ok(btf) = Btf::from_bytes(bytes) {
            exercise(&btf);
        }
    }
}

#[test]
fn random_bytes_are_handled() {
    let mut rng = Rng(7);
    for round in 0..2000 {
        let len = rng.below(400);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Half the time give it a valid header start so the parser gets further.
        if round % 2 == 0 && len >= 24 {
            bytes[..4].copy_from_slice(&[0x9f, 0xeb, 1, 0]);
            bytes[4..8].copy_from_slice(&24u32.to_le_bytes());
            let body = (len - 24) as u32;
            let split = rng.below(body as usize + 1) as u32;
            for (i, w) in [0, split, split, body - split].iter().enumerate() {
                bytes[8 + i * 4..12 + i * 4].copy_from_slice(&w.to_le_bytes());
            }
        }
        if let Ok(btf) = Btf::from_bytes(bytes.clone()) {
            exercise(&btf);
            // The same bytes as split BTF on top of it.
            if let Ok(split) = Btf::from_split_bytes(bytes, &btf) {
                exercise(&split);
            }
        }
    }
}

#[test]
fn pathological_nesting_stays_bounded() {
    // Each struct holds the previous one anonymously 8 times: flattening would visit 8^20
    // members without a budget.
    let mut b = Builder::new();
    let int = b.int("int", 4, true);
    let mut prev = b.struct_("", 4, &[("leaf", int, 0)]);
    for _ in 0..20 {
        let members: Vec<(&str, u32, u32)> = (0..8).map(|_| ("", prev, 0)).collect();
        prev = b.struct_("", 4, &members);
    }
    let mut protos = b.func_proto(int, &[]);
    for _ in 0..20 {
        let params: Vec<(&str, u32)> = (0..8).map(|_| ("", protos)).collect();
        protos = b.func_proto(protos, &params);
    }
    let btf = Btf::from_bytes(b.build()).unwrap();
    let start = std::time::Instant::now();
    assert!(btf.member(TypeId(prev), "leaf").is_some());
    assert!(btf.member(TypeId(prev), "missing").is_none());
    assert!(!btf.member_names(TypeId(prev)).is_empty());
    assert!(!btf.type_name(TypeId(protos)).is_empty());
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
}
