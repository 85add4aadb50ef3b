//! A tiny BTF writer: header + type section + string section. For tests of crates that read
//! BTF (this one's, sonde-probe's fixture kernel types), so no test keeps a copy of its own, and
//! for the func info sonde-kernel loads with programs that have helper callbacks.
#![allow(missing_docs)]

pub const KIND_FLAG: u32 = 1 << 31;

pub struct Builder {
    types: Vec<u8>,
    strings: Vec<u8>,
    next_id: u32,
    /// String offsets continue after the base's for split BTF.
    str_base: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    pub fn new() -> Builder {
        Builder { types: Vec::new(), strings: vec![0], next_id: 1, str_base: 0 }
    }

    /// Split BTF on a base with `base_types` types (ids 1..=base_types) and `base_str_len` bytes of strings.
    pub fn split(base_types: u32, base_str_len: u32) -> Builder {
        Builder {
            types: Vec::new(),
            strings: Vec::new(),
            next_id: base_types + 1,
            str_base: base_str_len,
        }
    }

    pub fn str_len(&self) -> u32 {
        self.strings.len() as u32
    }

    /// Adds a string (no dedup: tests want control) and returns its offset; "" is offset 0 (the base's, for split BTF).
    pub fn str(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let off = self.str_base + self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    /// Appends a raw record; returns its id.
    pub fn raw(
        &mut self,
        name_off: u32,
        kind: u32,
        vlen: u32,
        flags: u32,
        size_or_type: u32,
        tail: &[u32],
    ) -> u32 {
        let info = (kind << 24) | (vlen & 0xffff) | flags;
        for w in [name_off, info, size_or_type].iter().chain(tail) {
            self.types.extend_from_slice(&w.to_le_bytes());
        }
        self.next_id += 1;
        self.next_id - 1
    }

    fn named(
        &mut self,
        name: &str,
        kind: u32,
        vlen: u32,
        flags: u32,
        size_or_type: u32,
        tail: &[u32],
    ) -> u32 {
        let n = self.str(name);
        self.raw(n, kind, vlen, flags, size_or_type, tail)
    }

    /// encoding: 1 signed, 2 char, 4 bool.
    pub fn int_enc(&mut self, name: &str, size: u32, encoding: u32, offset: u32, bits: u32) -> u32 {
        self.named(name, 1, 0, 0, size, &[(encoding << 24) | (offset << 16) | bits])
    }
    pub fn int(&mut self, name: &str, size: u32, signed: bool) -> u32 {
        self.int_enc(name, size, signed as u32, 0, size * 8)
    }
    pub fn ptr(&mut self, to: u32) -> u32 {
        self.raw(0, 2, 0, 0, to, &[])
    }
    pub fn array(&mut self, elem: u32, index: u32, len: u32) -> u32 {
        self.raw(0, 3, 0, 0, 0, &[elem, index, len])
    }
    /// members: (name, type, offset word as stored).
    pub fn composite(
        &mut self,
        kind: u32,
        name: &str,
        size: u32,
        kind_flag: bool,
        members: &[(&str, u32, u32)],
    ) -> u32 {
        let mut tail = Vec::new();
        for &(n, t, o) in members {
            tail.extend([self.str(n), t, o]);
        }
        let flags = if kind_flag { KIND_FLAG } else { 0 };
        self.named(name, kind, members.len() as u32, flags, size, &tail)
    }
    pub fn struct_(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) -> u32 {
        self.composite(4, name, size, false, members)
    }
    pub fn union_(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) -> u32 {
        self.composite(5, name, size, false, members)
    }
    pub fn enum32(&mut self, name: &str, size: u32, signed: bool, values: &[(&str, u32)]) -> u32 {
        let mut tail = Vec::new();
        for &(n, v) in values {
            tail.extend([self.str(n), v]);
        }
        let flags = if signed { KIND_FLAG } else { 0 };
        self.named(name, 6, values.len() as u32, flags, size, &tail)
    }
    pub fn enum64(&mut self, name: &str, signed: bool, values: &[(&str, u64)]) -> u32 {
        let mut tail = Vec::new();
        for &(n, v) in values {
            tail.extend([self.str(n), v as u32, (v >> 32) as u32]);
        }
        let flags = if signed { KIND_FLAG } else { 0 };
        self.named(name, 19, values.len() as u32, flags, 8, &tail)
    }
    pub fn fwd(&mut self, name: &str, union: bool) -> u32 {
        self.named(name, 7, 0, if union { KIND_FLAG } else { 0 }, 0, &[])
    }
    pub fn typedef(&mut self, name: &str, to: u32) -> u32 {
        self.named(name, 8, 0, 0, to, &[])
    }
    pub fn volatile(&mut self, to: u32) -> u32 {
        self.raw(0, 9, 0, 0, to, &[])
    }
    pub fn const_(&mut self, to: u32) -> u32 {
        self.raw(0, 10, 0, 0, to, &[])
    }
    pub fn restrict(&mut self, to: u32) -> u32 {
        self.raw(0, 11, 0, 0, to, &[])
    }
    pub fn func(&mut self, name: &str, proto: u32, linkage: u32) -> u32 {
        self.named(name, 12, linkage, 0, proto, &[])
    }
    pub fn func_proto(&mut self, ret: u32, params: &[(&str, u32)]) -> u32 {
        let mut tail = Vec::new();
        for &(n, t) in params {
            tail.extend([self.str(n), t]);
        }
        self.raw(0, 13, params.len() as u32, 0, ret, &tail)
    }
    pub fn var(&mut self, name: &str, ty: u32, linkage: u32) -> u32 {
        self.named(name, 14, 0, 0, ty, &[linkage])
    }
    pub fn datasec(&mut self, name: &str, size: u32, vars: &[(u32, u32, u32)]) -> u32 {
        let tail: Vec<u32> = vars.iter().flat_map(|&(t, o, s)| [t, o, s]).collect();
        self.named(name, 15, vars.len() as u32, 0, size, &tail)
    }
    pub fn float(&mut self, name: &str, size: u32) -> u32 {
        self.named(name, 16, 0, 0, size, &[])
    }
    pub fn decl_tag(&mut self, name: &str, to: u32, component: i32) -> u32 {
        self.named(name, 17, 0, 0, to, &[component as u32])
    }
    pub fn type_tag(&mut self, name: &str, to: u32) -> u32 {
        self.named(name, 18, 0, 0, to, &[])
    }

    pub fn build(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&0xeb9fu16.to_le_bytes());
        out.push(1); // version
        out.push(0); // flags
        let hdr_len = 24u32;
        let type_len = self.types.len() as u32;
        for w in [hdr_len, 0, type_len, type_len, self.strings.len() as u32] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.types);
        out.extend_from_slice(&self.strings);
        out
    }
}
