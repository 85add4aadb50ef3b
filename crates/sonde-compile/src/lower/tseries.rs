//! bpftrace's `tseries(x, interval, n[, agg])`: the clock picks the interval (its epoch, the
//! time divided by the interval) and the key's slot for it (the epoch modulo `n`); the slot holds
//! {value, meta, epoch}, meta being the time of the last value (no agg), the count (avg) or
//! whether a value is set (min, max). A slot last written in an older epoch starts again.

use super::emit::past;
use super::stmt::min_max_keeps;
use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::{AggFunc, TExpr, TsAgg};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};

/// The slot's fields.
const VALUE: i16 = 0;
const META: i16 = 8;
const EPOCH: i16 = 16;

impl Lower<'_> {
    pub(super) fn tseries(&mut self, map: usize, keys: &[TExpr], x: &TExpr, func: AggFunc) {
        let AggFunc::Tseries { interval_ns, intervals, agg } = func else { return };
        let signed = x.ty.is_signed();
        let x = self.scalar(x);
        let key = self.build_key(map, keys, 8);
        let (_, key_size) = self.tp.maps[map].key_layout();
        // now, then the epoch, then the slot (in the key's last 8 bytes).
        let now = self.e.alloc_stack(8);
        let epoch = self.e.alloc_stack(8);
        self.now_ns();
        self.e.emit(Insn::store(Size::DW, self.e.fp, now, Reg::R0));
        self.e.mov_const(Reg::R1, interval_ns);
        self.e.emit(Insn::alu64_reg(Alu::Div, Reg::R0, Reg::R1));
        self.e.emit(Insn::store(Size::DW, self.e.fp, epoch, Reg::R0));
        self.e.mov_const(Reg::R1, intervals);
        self.e.emit(Insn::alu64_reg(Alu::Mod, Reg::R0, Reg::R1));
        self.e.emit(Insn::store(Size::DW, self.e.fp, past(key, key_size) - 8, Reg::R0));
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        let missing = self.e.label();
        let done = self.e.label();
        self.e.jmp_imm(Cond::Eq, Reg::R0, 0, missing);
        if agg != TsAgg::Last {
            // An older epoch's slot: its value and meta start again.
            let same = self.e.label();
            self.e.emit(Insn::load(Size::DW, Reg::R1, Reg::R0, EPOCH));
            self.e.emit(Insn::load(Size::DW, Reg::R2, self.e.fp, epoch));
            self.e.jmp_reg(Cond::Eq, Reg::R1, Reg::R2, same);
            self.e.emit(Insn::store_imm(Size::DW, Reg::R0, VALUE, 0));
            self.e.emit(Insn::store_imm(Size::DW, Reg::R0, META, 0));
            self.e.bind(same);
        }
        self.tseries_fields(Reg::R0, 0, (x, signed), agg, (now, epoch));
        self.e.goto(done);
        self.e.bind(missing);
        let val = self.e.alloc_stack(24);
        self.e.zero_stack(val, 24);
        self.tseries_fields(self.e.fp, val, (x, signed), agg, (now, epoch));
        self.update(map, key, val, sonde_bpf::map_update::BPF_NOEXIST);
        self.count_insert(map);
        self.e.bind(done);
        self.e.free_reg(x);
    }

    /// The slot at `base + off` takes the value in `x` (and whether it is signed); its epoch
    /// becomes this one. `slots` are the stack slots of now and of the epoch.
    fn tseries_fields(
        &mut self,
        base: Reg,
        off: i16,
        x: (Reg, bool),
        agg: TsAgg,
        slots: (i16, i16),
    ) {
        let ((x, signed), (now, epoch)) = (x, slots);
        let add = |lw: &mut Self, field: i16, src: Option<Reg>| {
            lw.e.emit(Insn::load(Size::DW, Reg::R1, base, off + field));
            match src {
                Some(r) => lw.e.emit(Insn::alu64_reg(Alu::Add, Reg::R1, r)),
                None => lw.e.emit(Insn::alu64_imm(Alu::Add, Reg::R1, 1)),
            }
            lw.e.emit(Insn::store(Size::DW, base, off + field, Reg::R1));
        };
        match agg {
            TsAgg::Last => {
                self.e.emit(Insn::store(Size::DW, base, off + VALUE, x));
                self.e.emit(Insn::load(Size::DW, Reg::R1, self.e.fp, now));
                self.e.emit(Insn::store(Size::DW, base, off + META, Reg::R1));
            }
            TsAgg::Sum => add(self, VALUE, Some(x)),
            TsAgg::Avg => {
                add(self, VALUE, Some(x));
                add(self, META, None);
            }
            TsAgg::Min | TsAgg::Max => {
                let func = if agg == TsAgg::Min { AggFunc::Min } else { AggFunc::Max };
                let keep = self.e.label();
                let store = self.e.label();
                self.e.emit(Insn::load(Size::DW, Reg::R1, base, off + META));
                self.e.jmp_imm(Cond::Eq, Reg::R1, 0, store);
                self.e.emit(Insn::load(Size::DW, Reg::R1, base, off + VALUE));
                self.e.jmp_reg(min_max_keeps(func, signed), x, Reg::R1, keep);
                self.e.bind(store);
                self.e.emit(Insn::store(Size::DW, base, off + VALUE, x));
                self.e.emit(Insn::store_imm(Size::DW, base, off + META, 1));
                self.e.bind(keep);
            }
        }
        self.e.emit(Insn::load(Size::DW, Reg::R1, self.e.fp, epoch));
        self.e.emit(Insn::store(Size::DW, base, off + EPOCH, Reg::R1));
    }

    /// The wall-clock time in r0: the boot clock plus its offset to the real-time clock at
    /// start-up; or, under bpftrace's test hook `BPFTRACE_DUMMY_TS_MAP=@m`, the value of the
    /// key-less map `@m` (`Options::dummy_ts_map`).
    fn now_ns(&mut self) {
        let dummy = self.opts.dummy_ts_map.as_deref().and_then(|name| {
            let bare = name.trim_start_matches('@');
            self.tp
                .maps
                .iter()
                .position(|m| m.name.trim_start_matches('@') == bare && m.keys.is_empty())
        });
        let Some(d) = dummy else {
            self.e.call(sonde_bpf::helper::KTIME_GET_BOOT_NS);
            self.e.mov_const(Reg::R1, self.opts.wall_offset_ns);
            self.e.emit(Insn::alu64_reg(Alu::Add, Reg::R0, Reg::R1));
            return;
        };
        let key = self.build_key(d, &[], 0);
        self.e.ld_map(Reg::R1, FIRST_USER_MAP + d);
        self.e.stack_addr(Reg::R2, key);
        self.e.call(h::MAP_LOOKUP_ELEM);
        let found = self.e.label();
        self.e.jmp_imm(Cond::Ne, Reg::R0, 0, found);
        self.e.emit(Insn::mov64_imm(Reg::R0, 0));
        let end = self.e.label();
        self.e.goto(end);
        self.e.bind(found);
        self.e.emit(Insn::load(Size::DW, Reg::R0, Reg::R0, 0));
        self.e.bind(end);
    }
}
