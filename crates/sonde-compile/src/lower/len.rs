//! bpftrace's `len(@m)`, a map's element count. bpftrace asks the kernel
//! (`bpf_map_sum_elem_count`, 6.6, or a `bpf_for_each_map_elem` walk, 5.13, whose callback
//! needs program BTF); neither exists on 5.10, so sonde counts instead: a map that `len()` reads
//! gets a one-u64 array of its own, incremented (atomically) when an insert with
//! `BPF_NOEXIST` succeeds and decremented when a delete does, and zeroed by user space when it
//! clears the map. Stores into such a map look the key up first, so replacing an element
//! never counts. Counters follow the user maps and the stack map, in user-map order.

use super::{h, Lower, MapDef, MapKind};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::MapInfo;
use sonde_bpf::map_update::{BPF_ANY, BPF_NOEXIST};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// The counter maps of the counted user maps, in order (they follow the stack map).
pub fn counter_maps(user_maps: &[MapInfo]) -> Vec<MapDef> {
    let counted = user_maps.iter().filter(|m| m.counted);
    counted
        .map(|m| MapDef {
            name: format!("len_{}", m.name.trim_start_matches('@')),
            kind: MapKind::Array,
            key_size: 4,
            value_size: 8,
            max_entries: 1,
        })
        .collect()
}

/// The index (in `Compiled::maps`) of user map `map`'s counter, when `len()` reads it.
pub fn len_counter(user_maps: &[MapInfo], stack_maps: usize, map: usize) -> Option<usize> {
    if !user_maps.get(map)?.counted {
        return None;
    }
    let rank = user_maps[..map].iter().filter(|m| m.counted).count();
    Some(FIRST_USER_MAP + user_maps.len() + stack_maps + rank)
}

impl Lower<'_> {
    fn counter(&self, map: usize) -> Option<usize> {
        len_counter(&self.tp.maps, self.stack_maps.len(), map)
    }

    /// `len(@m)`: the counter's value.
    pub(super) fn map_len(&mut self, map: usize) -> Reg {
        let d = self.e.alloc_reg();
        match self.counter(map) {
            Some(c) => {
                self.e.ld_map_value(d, c, 0);
                self.e.emit(Insn::load(Size::DW, d, d, 0));
            }
            None => self.e.emit(Insn::mov64_imm(d, 0)),
        }
        d
    }

    /// `counter += src` (atomic: probes on other CPUs count too). Uses r1.
    fn add_to_counter(&mut self, map: usize, src: Reg) {
        if let Some(c) = self.counter(map) {
            self.e.ld_map_value(Reg::R1, c, 0);
            self.e.emit(Insn::atomic_add64(Reg::R1, 0, src));
        }
    }

    /// After a `BPF_NOEXIST` insert: one more element when it succeeded (r0 == 0).
    pub(super) fn count_insert(&mut self, map: usize) {
        if self.counter(map).is_none() {
            return;
        }
        let failed = self.e.label();
        self.e.jmp_imm(Cond::Ne, Reg::R0, 0, failed);
        self.e.emit(Insn::mov64_imm(Reg::R2, 1));
        self.add_to_counter(map, Reg::R2);
        self.e.bind(failed);
    }

    /// After a delete: one element fewer when it was there (r0 == 0).
    pub(super) fn count_delete(&mut self, map: usize) {
        if self.counter(map).is_none() {
            return;
        }
        let absent = self.e.label();
        self.e.jmp_imm(Cond::Ne, Reg::R0, 0, absent);
        self.e.emit(Insn::mov64_imm(Reg::R2, -1));
        self.add_to_counter(map, Reg::R2);
        self.e.bind(absent);
    }

    /// `delete(@m, k)` as a value: `d` is 1 when the element was there.
    pub(super) fn count_deleted(&mut self, map: usize, d: Reg) {
        if self.counter(map).is_some() {
            self.e.emit(Insn::mov64_imm(Reg::R2, 0));
            self.e.emit(Insn::alu64_reg(Alu::Sub, Reg::R2, d));
            self.add_to_counter(map, Reg::R2);
        }
    }

    /// Insert or replace the element (a key known to be missing, or any key in an uncounted
    /// map): a counted map tries `BPF_NOEXIST` first and counts it, and replaces when another
    /// CPU inserted the key meanwhile.
    pub(super) fn insert(&mut self, map: usize, key: i16, val: i16) {
        if self.counter(map).is_none() {
            self.update(map, key, val, BPF_ANY);
            return;
        }
        let replace = self.e.label();
        let done = self.e.label();
        // Refused for want of room, the replace below is refused too: that one counts.
        self.map_update(map, key, val, BPF_NOEXIST);
        self.e.jmp_imm(Cond::Ne, Reg::R0, 0, replace);
        self.e.emit(Insn::mov64_imm(Reg::R2, 1));
        self.add_to_counter(map, Reg::R2);
        self.e.goto(done);
        self.e.bind(replace);
        self.update(map, key, val, BPF_ANY);
        self.e.bind(done);
    }

    /// Store a value: in a counted map, look the key up first so only a new element counts.
    pub(super) fn store(&mut self, map: usize, key: i16, val: i16) {
        if self.counter(map).is_none() {
            self.update(map, key, val, BPF_ANY);
            return;
        }
        let missing = self.e.label();
        let done = self.e.label();
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, missing);
        self.update(map, key, val, BPF_ANY);
        self.e.goto(done);
        self.e.bind(missing);
        self.insert(map, key, val);
        self.e.bind(done);
    }
}
