//! The on-disk type records: kind numbers, record lengths, and a borrowed view of one record.
//!
//! Every record is `struct btf_type { u32 name_off; u32 info; u32 size_or_type; }` followed by
//! a kind-specific tail (Documentation/bpf/btf.rst). `info` packs vlen (bits 0-15), kind
//! (bits 24-28) and kind_flag (bit 31).

use crate::header::u32_at;

pub(crate) const UNKN: u8 = 0;
pub(crate) const INT: u8 = 1;
pub(crate) const PTR: u8 = 2;
pub(crate) const ARRAY: u8 = 3;
pub(crate) const STRUCT: u8 = 4;
pub(crate) const UNION: u8 = 5;
pub(crate) const ENUM: u8 = 6;
pub(crate) const FWD: u8 = 7;
pub(crate) const TYPEDEF: u8 = 8;
pub(crate) const VOLATILE: u8 = 9;
pub(crate) const CONST: u8 = 10;
pub(crate) const RESTRICT: u8 = 11;
pub(crate) const FUNC: u8 = 12;
pub(crate) const FUNC_PROTO: u8 = 13;
pub(crate) const VAR: u8 = 14;
pub(crate) const DATASEC: u8 = 15;
pub(crate) const FLOAT: u8 = 16;
pub(crate) const DECL_TAG: u8 = 17;
pub(crate) const TYPE_TAG: u8 = 18;
pub(crate) const ENUM64: u8 = 19;

pub(crate) const HEAD_LEN: usize = 12;

pub(crate) fn kind_of(info: u32) -> u8 {
    ((info >> 24) & 0x1f) as u8
}

/// Length of the tail after the 12-byte head, or `None` for a kind this crate does not know.
pub(crate) fn tail_len(info: u32) -> Option<usize> {
    let vlen = (info & 0xffff) as usize;
    Some(match kind_of(info) {
        INT | VAR | DECL_TAG => 4,
        ARRAY => 12,
        STRUCT | UNION | DATASEC | ENUM64 => vlen * 12,
        ENUM | FUNC_PROTO => vlen * 8,
        UNKN | PTR | FWD | TYPEDEF | VOLATILE | CONST | RESTRICT | FUNC | FLOAT | TYPE_TAG => 0,
        _ => return None,
    })
}

/// One type record, borrowed from the data. Its tail length was checked when indexing.
#[derive(Clone, Copy)]
pub(crate) struct Rec<'a> {
    pub name_off: u32,
    pub info: u32,
    /// `size` for INT/ENUM/STRUCT/UNION/DATASEC/FLOAT/ENUM64, `type` for the rest.
    pub size_or_type: u32,
    pub tail: &'a [u8],
}

impl<'a> Rec<'a> {
    pub(crate) fn parse(record: &'a [u8]) -> Rec<'a> {
        Rec {
            name_off: u32_at(record, 0),
            info: u32_at(record, 4),
            size_or_type: u32_at(record, 8),
            tail: record.get(HEAD_LEN..).unwrap_or(&[]),
        }
    }

    pub(crate) fn kind(&self) -> u8 {
        kind_of(self.info)
    }

    /// Number of members/params/values; for FUNC it is the linkage instead.
    pub(crate) fn vlen(&self) -> usize {
        (self.info & 0xffff) as usize
    }

    pub(crate) fn kind_flag(&self) -> bool {
        self.info >> 31 != 0
    }

    /// The `i`-th u32 of the tail.
    pub(crate) fn word(&self, i: usize) -> u32 {
        u32_at(self.tail, i * 4)
    }

    /// Fields of the `i`-th entry of a tail made of `width`-word entries (members, params, ...).
    pub(crate) fn entry(&self, i: usize, width: usize, field: usize) -> u32 {
        self.word(i * width + field)
    }
}

/// A STRUCT/UNION member as stored: bit offset and bitfield size still packed when kind_flag is set.
#[derive(Clone, Copy)]
pub(crate) struct RawMember {
    pub name_off: u32,
    pub ty: u32,
    pub offset: u32,
}

impl Rec<'_> {
    pub(crate) fn member(&self, i: usize) -> RawMember {
        RawMember {
            name_off: self.entry(i, 3, 0),
            ty: self.entry(i, 3, 1),
            offset: self.entry(i, 3, 2),
        }
    }

    /// FUNC_PROTO params as (name_off, type).
    pub(crate) fn param(&self, i: usize) -> (u32, u32) {
        (self.entry(i, 2, 0), self.entry(i, 2, 1))
    }
}
