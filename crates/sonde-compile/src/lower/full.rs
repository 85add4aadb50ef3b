//! A full map is no silent miss: an update the kernel refuses because the map already holds its
//! `max_entries` elements (E2BIG) is counted, per user map, in an array of its own (`dropped`,
//! after every other map), and sonde reports the count. One increment on the refused path and
//! no helper call: the array's value is addressed directly and added to atomically (probes on
//! other CPUs count too). LRU maps make room instead, and a map without keys holds one element
//! whatever is stored: neither is counted.

use super::{Lower, MapDef, MapKind};
use crate::model::tir::MapInfo;
use sonde_bpf::{Cond, Insn, Reg};

/// The kernel's answer to an insert into a full hash map.
const E2BIG: i32 = 7;

/// Can updates of `m` be refused for want of room?
pub fn can_fill(m: &MapInfo) -> bool {
    !m.lru && !m.single_key()
}

/// The `dropped` array: one u64 a user map, in user-map order; None when no map can fill.
pub fn dropped_map(user_maps: &[MapInfo]) -> Option<MapDef> {
    user_maps.iter().any(can_fill).then(|| MapDef {
        name: "dropped".into(),
        kind: MapKind::Array,
        key_size: 4,
        value_size: 8 * user_maps.len() as u32,
        max_entries: 1,
    })
}

impl Lower<'_> {
    /// After a map update whose refusal is final: one more dropped update of user map `map` when
    /// the kernel said the map was full. r0 (the update's result) is kept; uses r1 and r2.
    pub(super) fn count_full(&mut self, map: usize) {
        let (Some(dropped), true) = (self.dropped_map, can_fill(&self.tp.maps[map])) else {
            return;
        };
        let kept = self.e.label();
        self.e.jmp_imm(Cond::Ne, Reg::R0, -E2BIG, kept);
        self.e.ld_map_value(Reg::R1, dropped, 8 * map as i32);
        self.e.emit(Insn::mov64_imm(Reg::R2, 1));
        self.e.emit(Insn::atomic_add64(Reg::R1, 0, Reg::R2));
        self.e.bind(kept);
    }

    /// A map update that is the last word on the element: counted when refused for want of room.
    pub(super) fn update(&mut self, map: usize, key: i16, val: i16, flags: u64) {
        self.map_update(map, key, val, flags);
        self.count_full(map);
    }
}
