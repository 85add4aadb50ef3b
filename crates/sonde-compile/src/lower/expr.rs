//! Expressions: scalars into registers, strings and other buffers into stack slots.

use super::emit::{past, CTX};
use super::{h, Lower};
use crate::abi::FIRST_USER_MAP;
use crate::model::tir::{Builtin, TExpr, TExprKind};
use crate::model::types::{Type, STACK_DEPTH};
use sonde_bpf::{Alu, Cond, Insn, Reg, Size};
use sonde_syntax::ast::BinOp;

impl Lower<'_> {
    /// Evaluate a scalar into a fresh temporary register (the caller frees it).
    pub fn scalar(&mut self, x: &TExpr) -> Reg {
        let saved = self.e.span;
        self.e.span = x.span;
        let r = self.scalar_inner(x);
        self.e.span = saved;
        r
    }

    fn scalar_inner(&mut self, x: &TExpr) -> Reg {
        match &x.kind {
            TExprKind::Int(v) => {
                let d = self.e.alloc_reg();
                self.e.mov_const(d, *v);
                d
            }
            TExprKind::Builtin(b) => self.builtin(*b, &x.ty),
            TExprKind::CtxLoad { offset } => {
                let d = self.e.alloc_reg();
                let size = Size::of_bytes(x.ty.size()).unwrap_or(Size::DW);
                self.e.emit(Insn::load(size, d, CTX, *offset as i16));
                self.extend(d, &x.ty);
                d
            }
            TExprKind::Var(i) => {
                let d = self.e.alloc_reg();
                self.e.emit(Insn::load(Size::DW, d, self.e.fp, self.vars[*i].0));
                d
            }
            TExprKind::MapGet { map, keys } if self.tp.maps[*map].is_percpu() => {
                let key = self.build_key(*map, keys, 0);
                self.agg_read(*map, key)
            }
            TExprKind::MapGet { map, keys } => {
                let key = self.build_key(*map, keys, 0);
                self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
                self.e.stack_addr(Reg::R2, key);
                self.e.call(h::MAP_LOOKUP_ELEM);
                let d = self.e.alloc_reg();
                self.e.emit(Insn::mov64_imm(d, 0));
                self.e.emit(Insn::jmp_imm(Cond::Eq, Reg::R0, 0, 1));
                self.e.emit(Insn::load(Size::DW, d, Reg::R0, 0));
                d
            }
            TExprKind::Field { base, offset } => self.field_scalar(base, *offset, &x.ty),
            TExprKind::Bswap { arg, bytes } => self.bswap(arg, *bytes),
            TExprKind::StrLen(s) => self.str_len(s),
            TExprKind::PercpuAddr { var, cpu } => self.percpu_addr(*var, cpu.as_deref()),
            TExprKind::StackLen { user, frames } => self.stack_len(*user, *frames),
            TExprKind::MapHas { map, keys } => self.map_has(*map, keys),
            TExprKind::MapFind { map, keys, var } => self.map_find(*map, keys, *var),
            TExprKind::MapDelete { map, keys } => self.map_delete(*map, keys),
            TExprKind::MapLen { map } => self.map_len(*map),
            TExprKind::VarAddr(i) => {
                let d = self.e.alloc_reg();
                self.e.stack_addr(d, self.vars[*i].0);
                d
            }
            TExprKind::Neg(a) => {
                let d = self.scalar(a);
                self.e.emit(Insn::alu64_imm(Alu::Neg, d, 0));
                d
            }
            TExprKind::BitNot(a) => {
                let d = self.scalar(a);
                self.e.emit(Insn::alu64_imm(Alu::Xor, d, -1));
                d
            }
            // Truth values (0 or 1) come from the same jumps as conditions do (`branch.rs`).
            TExprKind::Not(_) => self.boolean(x),
            TExprKind::Binary { op, lhs, .. }
                if !lhs.ty.is_string()
                    && !lhs.ty.compares_bytes()
                    && (op.is_comparison() || matches!(op, BinOp::And | BinOp::Or)) =>
            {
                self.boolean(x)
            }
            TExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs),
            TExprKind::Divide { op, lhs, rhs, warning } => self.divide(*op, lhs, rhs, *warning),
            TExprKind::Then { first, value } => {
                first.iter().for_each(|s| self.stmt(s));
                self.scalar(value)
            }
            TExprKind::CallFn { func, args } => self.call_fn(*func, args),
            TExprKind::Ternary { cond, then, els } => {
                let else_l = self.e.label();
                let end = self.e.label();
                self.branch(cond, false, else_l);
                let d = self.scalar(then);
                self.e.goto(end);
                self.e.bind(else_l);
                self.e.free_reg(d);
                let o = self.scalar(els);
                if o != d {
                    self.e.emit(Insn::mov64_reg(d, o));
                    self.e.free_reg(o);
                }
                self.e.take_reg(d);
                self.e.bind(end);
                d
            }
            // An array's bytes read as an integer of its size.
            TExprKind::Cast(a) if !a.ty.is_scalar() => {
                let slot = a.ty.slot_size();
                let buf = self.e.alloc_stack(slot);
                self.value_into(a, buf, slot);
                let d = self.e.alloc_reg();
                let size = Size::of_bytes(x.ty.size()).unwrap_or(Size::DW);
                self.e.emit(Insn::load(size, d, self.e.fp, buf));
                self.extend(d, &x.ty);
                d
            }
            TExprKind::Cast(a) => {
                let d = self.scalar(a);
                self.truncate(d, &x.ty);
                d
            }
            TExprKind::Read { ptr, offset, user: false }
                if self.loads_directly(ptr, *offset, &x.ty) =>
            {
                // One load where the helper took six instructions and a call: the verifier
                // checks it against BTF and, should the address fault, the load gives 0, as
                // bpf_probe_read's zeroed buffer does.
                let p = self.scalar(ptr);
                let size = Size::of_bytes(x.ty.size()).unwrap_or(Size::DW);
                self.e.emit(Insn::load(size, p, p, *offset as i16));
                self.extend(p, &x.ty);
                p
            }
            TExprKind::Read { ptr, offset, user } => {
                let p = self.scalar(ptr);
                let tmp = self.e.alloc_stack(8);
                self.e.stack_addr(Reg::R1, tmp);
                self.e.emit(Insn::mov64_imm(Reg::R2, x.ty.size().min(8) as i32));
                self.e.emit(Insn::mov64_reg(Reg::R3, p));
                if *offset != 0 {
                    self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, *offset as i32));
                }
                self.e.call(if *user { h::PROBE_READ_USER } else { h::PROBE_READ });
                let size = Size::of_bytes(x.ty.size()).unwrap_or(Size::DW);
                self.e.emit(Insn::load(size, p, self.e.fp, tmp));
                self.extend(p, &x.ty);
                p
            }
            TExprKind::Strcmp(a, b) => self.strcmp(a, b, usize::MAX),
            TExprKind::Strncmp(a, b, n) => self.strcmp(a, b, *n),
            TExprKind::StrContains(a, b) => self.str_contains(a, b),
            TExprKind::Str(_)
            | TExprKind::CtxBuf { .. }
            | TExprKind::CtxDataLoc { .. }
            | TExprKind::ReadStr { .. }
            | TExprKind::ReadMem { .. }
            | TExprKind::Tuple(_)
            | TExprKind::StrConcat(..)
            | TExprKind::Inet { .. }
            | TExprKind::ReadBuf { .. } => {
                self.e
                    .overflow
                    .get_or_insert((x.span, "internal error: a string was used as a number"));
                self.e.alloc_reg()
            }
        }
    }

    /// Can `ptr->member` (an integer `offset` bytes into the struct) be one load? Only on a
    /// `struct pt_regs *` argument of a BTF-typed context (the registers at a syscall): the
    /// verifier knows its type there (PTR_TO_BTF_ID) and checks the load against its members.
    /// Not on other structs: 6.x makes an argument that may hold an error value (signal_deliver's
    /// `info`) a scalar, and 5.10 checks a union's members by its first one only. An integer read
    /// as an address (`str(arg0->di)` types it `void *`) is a scalar to the verifier too.
    fn loads_directly(&self, ptr: &TExpr, offset: i64, ty: &Type) -> bool {
        let bytes = match ty {
            Type::Int { bytes, .. } => *bytes as i64,
            Type::Ptr { to, .. } if **to == Type::Void => 8,
            _ => return false,
        };
        let struct_size = match &ptr.ty {
            Type::Ptr { to, user: false } => match &**to {
                Type::Btf { size, user: None, name, .. } if name == "struct pt_regs" => {
                    *size as i64
                }
                _ => return false,
            },
            _ => return false,
        };
        self.btf_ctx
            && matches!(ptr.kind, TExprKind::CtxLoad { .. })
            && (0..=i16::MAX as i64).contains(&offset)
            && offset + bytes <= struct_size
    }

    /// `ty`: the builtin's type, which for a stack says its depth.
    fn builtin(&mut self, b: Builtin, ty: &Type) -> Reg {
        let helper = match b {
            Builtin::NsPid | Builtin::NsTid => return self.ns_task_id(b == Builtin::NsTid),
            Builtin::Pid | Builtin::Tid => h::GET_CURRENT_PID_TGID,
            Builtin::Uid | Builtin::Gid => h::GET_CURRENT_UID_GID,
            Builtin::Cpu => h::GET_SMP_PROCESSOR_ID,
            Builtin::Nsecs | Builtin::Elapsed => h::KTIME_GET_NS,
            Builtin::NsecsBoot => sonde_bpf::helper::KTIME_GET_BOOT_NS,
            Builtin::NsecsTai => sonde_bpf::helper::KTIME_GET_TAI_NS,
            Builtin::CurTask => h::GET_CURRENT_TASK,
            Builtin::Cgroup => h::GET_CURRENT_CGROUP_ID,
            Builtin::NumaId => h::GET_NUMA_NODE_ID,
            Builtin::Rand => h::GET_PRANDOM_U32,
            Builtin::Jiffies => h::JIFFIES64,
            Builtin::KStack | Builtin::UStack => {
                let frames = match ty {
                    Type::Stack { frames, .. } => *frames,
                    _ => STACK_DEPTH as u8,
                };
                return self.stack(b == Builtin::UStack, frames);
            }
            Builtin::Ctx => {
                let d = self.e.alloc_reg();
                self.e.emit(Insn::mov64_reg(d, CTX));
                return d;
            }
            Builtin::FuncIp => {
                self.e.emit(Insn::mov64_reg(Reg::R1, CTX));
                h::GET_FUNC_IP
            }
            Builtin::Comm => {
                self.e
                    .overflow
                    .get_or_insert((self.e.span, "internal error: comm used as a number"));
                return self.e.alloc_reg();
            }
        };
        self.e.call(helper);
        let d = self.e.alloc_reg();
        match b {
            // The upper half: tgid, gid.
            Builtin::Pid | Builtin::Gid => {
                self.e.emit(Insn::mov64_reg(d, Reg::R0));
                self.e.emit(Insn::alu64_imm(Alu::Rsh, d, 32));
            }
            // The lower half: pid, uid; a 32-bit move zero-extends.
            Builtin::Tid | Builtin::Uid => self.e.emit(Insn::new(
                sonde_bpf::insn::BPF_ALU | Alu::Mov as u8 | sonde_bpf::insn::BPF_X,
                d,
                Reg::R0,
                0,
                0,
            )),
            Builtin::Elapsed => {
                self.e.emit_all(Insn::ld_imm64(Reg::R1, self.opts.start_ns));
                self.e.emit(Insn::mov64_reg(d, Reg::R0));
                self.e.emit(Insn::alu64_reg(Alu::Sub, d, Reg::R1));
            }
            _ => self.e.emit(Insn::mov64_reg(d, Reg::R0)),
        }
        d
    }

    /// `bpf_get_stackid(ctx, stacks, flags)` into the map of the stack's depth; a user stack
    /// also records the process id above it.
    fn stack(&mut self, user: bool, frames: u8) -> Reg {
        const BPF_F_USER_STACK: i32 = 1 << 8;
        let d = self.e.alloc_reg();
        let Some(map) = super::stack_map_of(self.stack_maps, frames) else {
            self.e.overflow.get_or_insert((self.e.span, "internal error: no stack map"));
            return d;
        };
        self.e.emit(Insn::mov64_reg(Reg::R1, CTX));
        self.e.ld_map(Reg::R2, map);
        self.e.emit(Insn::mov64_imm(Reg::R3, if user { BPF_F_USER_STACK } else { 0 }));
        self.e.call(h::GET_STACKID);
        // A negative id (no stack) keeps its low 32 bits set; user space prints it as missing.
        self.e.emit(Insn::mov64_reg(d, Reg::R0));
        self.e.emit(Insn::alu64_imm(Alu::Lsh, d, 32));
        self.e.emit(Insn::alu64_imm(Alu::Rsh, d, 32));
        if user {
            self.e.call(h::GET_CURRENT_PID_TGID);
            self.e.emit(Insn::alu64_imm(Alu::Rsh, Reg::R0, 32));
            self.e.emit(Insn::alu64_imm(Alu::Lsh, Reg::R0, 32));
            self.e.emit(Insn::alu64_reg(Alu::Or, d, Reg::R0));
        }
        d
    }

    /// Sign-extend a loaded value narrower than 64 bits (loads zero-extend).
    pub fn extend(&mut self, d: Reg, ty: &Type) {
        if let Type::Int { bytes, signed: true } = ty {
            if *bytes < 8 {
                let shift = 64 - 8 * *bytes as i32;
                self.e.emit(Insn::alu64_imm(Alu::Lsh, d, shift));
                self.e.emit(Insn::alu64_imm(Alu::Arsh, d, shift));
            }
        }
    }

    /// Convert a 64-bit value to a narrower integer type, as a C cast does.
    fn truncate(&mut self, d: Reg, ty: &Type) {
        match ty {
            Type::Int { bytes: 8, .. } => {}
            Type::Int { bytes, signed: true } => {
                self.extend(d, &Type::Int { bytes: *bytes, signed: true })
            }
            Type::Int { bytes: 4, signed: false } => self.e.emit(Insn::new(
                sonde_bpf::insn::BPF_ALU | Alu::Mov as u8 | sonde_bpf::insn::BPF_X,
                d,
                d,
                0,
                0,
            )),
            Type::Int { bytes, signed: false } => self.e.emit(Insn::alu64_imm(
                Alu::And,
                d,
                ((1u64 << (8 * *bytes as u32)) - 1) as i32,
            )),
            _ => {}
        }
    }

    /// Evaluate `rhs` while keeping `l` alive, spilling it to the stack if `rhs` may need more
    /// registers than are left (`1 + (1 + (1 + 1))` holds three sums at once).
    pub fn hold_while(&mut self, l: Reg, rhs: &TExpr) -> (Reg, Reg) {
        if self.e.free_regs() >= registers_needed(rhs) {
            let r = self.scalar(rhs);
            return (l, r);
        }
        let slot = self.e.alloc_stack(8);
        self.e.emit(Insn::store(Size::DW, self.e.fp, slot, l));
        self.e.free_reg(l);
        let r = self.scalar(rhs);
        let l = self.e.alloc_reg();
        self.e.emit(Insn::load(Size::DW, l, self.e.fp, slot));
        (l, r)
    }

    fn binary(&mut self, op: BinOp, lhs: &TExpr, rhs: &TExpr) -> Reg {
        if lhs.ty.is_string() || lhs.ty.compares_bytes() {
            let d = self.str_eq(lhs, rhs);
            if op == BinOp::Ne {
                self.e.emit(Insn::alu64_imm(Alu::Xor, d, 1));
            }
            return d;
        }
        let l = self.scalar(lhs);
        let (l, r) = self.hold_while(l, rhs);
        let alu = match op {
            BinOp::Add => Alu::Add,
            BinOp::Sub => Alu::Sub,
            BinOp::Mul => Alu::Mul,
            BinOp::Div => Alu::Div,
            BinOp::Mod => Alu::Mod,
            BinOp::Shl => Alu::Lsh,
            BinOp::Shr => {
                if lhs.ty.is_signed() {
                    Alu::Arsh
                } else {
                    Alu::Rsh
                }
            }
            BinOp::BitAnd => Alu::And,
            BinOp::BitOr => Alu::Or,
            BinOp::BitXor => Alu::Xor,
            // Comparisons and `&&`/`||` are truth values (see `scalar_inner`).
            _ => {
                self.e.overflow.get_or_insert((
                    self.e.span,
                    "internal error: a comparison reached arithmetic lowering",
                ));
                Alu::Add
            }
        };
        let signed = crate::model::types::arith_type(&lhs.ty, &rhs.ty).is_signed();
        if signed && matches!(alu, Alu::Div | Alu::Mod) {
            for insn in super::division::signed(alu, l, r, self.tp.signed_division) {
                self.e.emit(insn);
            }
        } else {
            self.e.emit(Insn::alu64_reg(alu, l, r));
        }
        self.e.free_reg(r);
        l
    }

    /// Write a value of `x` into the stack slot at `off` of `size` bytes (a multiple of 8), filling
    /// every byte so it can serve as a map key.
    pub fn value_into(&mut self, x: &TExpr, off: i16, size: usize) {
        if x.ty.is_scalar() {
            let r = self.scalar(x);
            self.e.emit(Insn::store(Size::DW, self.e.fp, off, r));
            self.e.free_reg(r);
            if size > 8 {
                self.e.zero_stack(off + 8, size - 8);
            }
        } else {
            let saved = self.e.span;
            self.e.span = x.span;
            self.buffer(x, off, size);
            self.e.span = saved;
        }
    }

    fn buffer(&mut self, x: &TExpr, off: i16, size: usize) {
        let len = x.ty.size().min(size);
        match &x.kind {
            TExprKind::Str(bytes) => {
                let mut data = bytes.clone();
                data.resize(size, 0);
                for (i, chunk) in data.chunks(4).enumerate() {
                    let v = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                    self.e.emit(Insn::store_imm(Size::W, self.e.fp, past(off, 4 * i), v as i32));
                }
            }
            TExprKind::Builtin(Builtin::Comm) => {
                // Every byte first: on some kernels (Debian's 6.1 among them) the helper copies up
                // to the name's NUL and leaves the rest of the buffer as it was, and stale bytes in
                // a map key would split one command into many entries.
                self.e.zero_stack(off, size);
                self.e.stack_addr(Reg::R1, off);
                self.e.emit(Insn::mov64_imm(Reg::R2, len.min(16) as i32));
                self.e.call(h::GET_CURRENT_COMM);
            }
            TExprKind::CtxBuf { offset, .. } => {
                self.e.zero_stack(off, size);
                self.e.stack_addr(Reg::R1, off);
                self.e.emit(Insn::mov64_imm(Reg::R2, len as i32));
                self.e.emit(Insn::mov64_reg(Reg::R3, CTX));
                self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, *offset as i32));
                self.e.call(h::PROBE_READ_KERNEL);
            }
            TExprKind::CtxDataLoc { offset } if x.ty.is_string() => {
                self.data_loc_str_into(*offset, x.ty.size(), off, size)
            }
            TExprKind::CtxDataLoc { offset } => {
                // The u32 holds (length << 16 | offset from the start of the record).
                self.e.zero_stack(off, size);
                self.e.emit(Insn::load(Size::W, Reg::R3, CTX, *offset as i16));
                self.e.emit(Insn::alu64_imm(Alu::And, Reg::R3, 0xffff));
                self.e.emit(Insn::alu64_reg(Alu::Add, Reg::R3, CTX));
                self.e.stack_addr(Reg::R1, off);
                self.e.emit(Insn::mov64_imm(Reg::R2, len as i32));
                self.e.call(h::PROBE_READ_KERNEL);
            }
            TExprKind::ReadStr { ptr, user, len } => {
                self.read_str_into(ptr, *user, len, x.ty.size(), off, size)
            }
            TExprKind::ReadMem { ptr, user } => {
                let p = self.scalar(ptr);
                self.e.zero_stack(off, size);
                self.e.stack_addr(Reg::R1, off);
                self.e.emit(Insn::mov64_imm(Reg::R2, len as i32));
                self.e.emit(Insn::mov64_reg(Reg::R3, p));
                self.e.free_reg(p);
                self.e.call(if *user { h::PROBE_READ_USER } else { h::PROBE_READ });
            }
            // A char array (or other buffer) inside a struct in memory: `task->comm`.
            TExprKind::Read { ptr, offset, user } => {
                let p = self.scalar(ptr);
                self.e.zero_stack(off, size);
                self.e.stack_addr(Reg::R1, off);
                self.e.emit(Insn::mov64_imm(Reg::R2, len as i32));
                self.e.emit(Insn::mov64_reg(Reg::R3, p));
                if *offset != 0 {
                    self.e.emit(Insn::alu64_imm(Alu::Add, Reg::R3, *offset as i32));
                }
                self.e.free_reg(p);
                self.e.call(if *user { h::PROBE_READ_USER } else { h::PROBE_READ });
            }
            TExprKind::Var(i) => {
                let from = self.vars[*i].0;
                let n = x.ty.slot_size().min(size);
                self.copy_stack(self.e.fp, from, off, n);
                if size > n {
                    self.e.zero_stack(past(off, n), size - n);
                }
            }
            TExprKind::MapGet { map, keys } if self.tp.maps[*map].is_percpu() => {
                let key = self.build_key(*map, keys, 0);
                let r = self.agg_read(*map, key);
                self.e.emit(Insn::store(Size::DW, self.e.fp, off, r));
                self.e.free_reg(r);
                if size > 8 {
                    self.e.zero_stack(off + 8, size - 8);
                }
            }
            TExprKind::MapGet { map, keys } => {
                let key = self.build_key(*map, keys, 0);
                self.e.ld_map(Reg::R1, FIRST_USER_MAP + map);
                self.e.stack_addr(Reg::R2, key);
                self.e.call(h::MAP_LOOKUP_ELEM);
                let missing = self.e.label();
                let end = self.e.label();
                self.e.jmp_imm(Cond::Eq, Reg::R0, 0, missing);
                let n = self.tp.maps[*map].value_size().min(size);
                self.copy_stack(Reg::R0, 0, off, n);
                if size > n {
                    self.e.zero_stack(past(off, n), size - n);
                }
                self.e.goto(end);
                self.e.bind(missing);
                self.e.zero_stack(off, size);
                self.e.bind(end);
            }
            // A cast to an array: the value's bytes (an integer's, little-endian, in its slot).
            TExprKind::Cast(inner) => self.value_into(inner, off, size),
            TExprKind::Tuple(items) => match &x.ty {
                Type::Tuple(layout) | Type::Record { elems: layout, .. } => {
                    self.tuple_into(items, layout, off, size)
                }
                _ => {
                    let why = "internal error: a tuple without a tuple type";
                    self.e.overflow.get_or_insert((x.span, why));
                }
            },
            TExprKind::StrConcat(a, b) => self.str_concat_into(a, b, x.ty.size(), off, size),
            TExprKind::Inet { family, addr } => self.inet_into(family, addr, off, size),
            TExprKind::ReadBuf { ptr, len, user } => {
                self.buf_into(ptr, len, *user, x.ty.size() - 8, off, size)
            }
            TExprKind::Field { base, offset } => self.field_into(base, *offset, &x.ty, off, size),
            TExprKind::Then { first, value } => {
                first.iter().for_each(|s| self.stmt(s));
                self.buffer(value, off, size);
            }
            TExprKind::Ternary { cond, then, els } => {
                let else_l = self.e.label();
                let end = self.e.label();
                self.branch(cond, false, else_l);
                self.buffer(then, off, size);
                self.e.goto(end);
                self.e.bind(else_l);
                self.buffer(els, off, size);
                self.e.bind(end);
            }
            _ => {
                self.e
                    .overflow
                    .get_or_insert((x.span, "internal error: this value cannot be stored"));
            }
        }
    }

    /// Copy `n` bytes (a multiple of 8) from `base + from` to the stack at `to`, 8 bytes at a time.
    pub(super) fn copy_stack(&mut self, base: Reg, from: i16, to: i16, n: usize) {
        for i in (0..n).step_by(8) {
            self.e.emit(Insn::load(Size::DW, Reg::R1, base, past(from, i)));
            self.e.emit(Insn::store(Size::DW, self.e.fp, past(to, i), Reg::R1));
        }
    }

    /// Build a map key on the stack (user keys, then an optional histogram bucket slot) and return
    /// its offset. The bucket's offset is `key_size - 8`.
    /// The key of `map` for `keys`, built in a new stack slot; its last `filled_later` bytes are
    /// left for the caller to write (a histogram's bucket index).
    pub fn build_key(&mut self, map: usize, keys: &[TExpr], filled_later: usize) -> i16 {
        let info = &self.tp.maps[map];
        let (offs, size) = info.key_layout();
        let slots: Vec<usize> = info.keys.iter().map(Type::slot_size).collect();
        let key = self.e.alloc_stack(size);
        if keys.is_empty() || offs.is_empty() {
            self.e.zero_stack(key, size.saturating_sub(filled_later));
            return key;
        }
        for ((k, o), s) in keys.iter().zip(offs).zip(slots) {
            self.value_into(k, past(key, o), s);
        }
        key
    }
}

/// The registers evaluating `x` holds at once (Sethi–Ullman's count for operators); anything
/// else is taken to need one, as its own lowering spills what it must.
fn registers_needed(x: &TExpr) -> usize {
    match &x.kind {
        TExprKind::Cast(a) | TExprKind::Neg(a) | TExprKind::BitNot(a) => registers_needed(a),
        TExprKind::Binary { lhs, rhs, .. } | TExprKind::Divide { lhs, rhs, .. } => {
            registers_needed(lhs).max(registers_needed(rhs) + 1)
        }
        _ => 1,
    }
}
