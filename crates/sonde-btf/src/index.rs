//! One pass over the type section: where each record starts and what its name offset is.
//!
//! Type ids are positions in the type section, and records have variable length, so finding
//! type N needs the offsets of all records; that pass (~1 ms for vmlinux) is the only eager
//! work. Names are not hashed up front (that costs ~10 ms for vmlinux's 70k names): a name
//! lookup searches the string section for `name\0` with SIMD memmem and then scans the
//! compact array of name offsets for the hits (~0.1 ms per lookup).

use std::ops::Range;

use crate::error::BtfError;
use crate::header::{u32_at, Header};
use crate::raw::{self, Rec};
use crate::source::Bytes;

/// The types and strings of one BTF blob: vmlinux, or a module's split BTF on top of it.
pub(crate) struct Layer {
    data: Bytes,
    types: Range<usize>,
    strings: Range<usize>,
    /// Absolute offset of each record in `data`; entry i is type id `first_id + i`.
    offsets: Vec<u32>,
    /// `name_off` of each record, kept apart so name scans touch 4 bytes per type.
    name_offs: Vec<u32>,
    /// 1 for vmlinux; for split BTF, ids continue after the base's last id.
    pub first_id: u32,
    /// 0 for vmlinux; for split BTF, string offsets continue after the base's strings.
    pub str_start: u32,
    /// Ids of the FUNC records, collected in the same pass (sonde globs and lists them).
    pub funcs: Vec<u32>,
}

impl Layer {
    pub(crate) fn build(data: Bytes, first_id: u32, str_start: u32) -> Result<Layer, BtfError> {
        let header = Header::parse(&data)?;
        let Header { types, strings } = header;
        // Kernel BTF averages ~25 bytes a record; reserving on that avoids regrowing.
        let guess = types.len() / 24;
        let mut offsets = Vec::with_capacity(guess);
        let mut name_offs = Vec::with_capacity(guess);
        let mut funcs = Vec::with_capacity(guess / 2);
        let mut off = types.start;
        while off < types.end {
            let id = first_id.saturating_add(offsets.len() as u32);
            if off + raw::HEAD_LEN > types.end {
                return Err(BtfError::Truncated { what: "type section" });
            }
            let info = u32_at(&data, off + 4);
            let Some(tail) = raw::tail_len(info) else {
                return Err(BtfError::UnknownKind { id, kind: raw::kind_of(info) });
            };
            let next = off + raw::HEAD_LEN + tail;
            if next > types.end {
                return Err(BtfError::Truncated { what: "type section" });
            }
            if raw::kind_of(info) == raw::FUNC {
                funcs.push(id);
            }
            offsets.push(off as u32);
            name_offs.push(u32_at(&data, off));
            off = next;
        }
        if u32::try_from(offsets.len()).ok().and_then(|n| first_id.checked_add(n)).is_none() {
            return Err(BtfError::Malformed("too many types".into()));
        }
        Ok(Layer { data, types, strings, offsets, name_offs, first_id, str_start, funcs })
    }

    pub(crate) fn len(&self) -> u32 {
        self.offsets.len() as u32
    }

    pub(crate) fn contains(&self, id: u32) -> bool {
        id >= self.first_id && id - self.first_id < self.len()
    }

    pub(crate) fn rec(&self, id: u32) -> Option<Rec<'_>> {
        let i = id.checked_sub(self.first_id)? as usize;
        let start = *self.offsets.get(i)? as usize;
        let end = self.offsets.get(i + 1).map_or(self.types.end, |&o| o as usize);
        Some(Rec::parse(self.data.get(start..end)?))
    }

    /// The string section's bytes, whose offset 0 is string offset `str_start`.
    pub(crate) fn strings(&self) -> &[u8] {
        &self.data[self.strings.clone()]
    }

    /// The NUL-terminated string at a local offset; "" when out of range or not UTF-8.
    pub(crate) fn str_at(&self, local: usize) -> &str {
        let s = self.strings().get(local..).unwrap_or(&[]);
        let end = memchr::memchr(0, s).unwrap_or(s.len());
        std::str::from_utf8(&s[..end]).unwrap_or("")
    }

    /// Ids of this layer's types whose name offset is one of `cands`.
    /// Each type's id with its name offset, in id order.
    pub(crate) fn name_offsets(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let first = self.first_id;
        self.name_offs.iter().enumerate().map(move |(i, &n)| (first + i as u32, n))
    }

    pub(crate) fn ids_with_name_off<'a>(
        &'a self,
        cands: &'a CandidateSet,
    ) -> impl Iterator<Item = u32> + 'a {
        let first = self.first_id;
        self.name_offs
            .iter()
            .enumerate()
            .filter_map(move |(i, &n)| cands.contains(n).then_some(first + i as u32))
    }
}

/// String offsets a name starts at, with a 4096-bit filter in front: a name search tests
/// every type's name offset (126k in vmlinux), and a name may start at a handful of
/// offsets (as a suffix of longer strings), so the filter rejects almost all in one L1 load.
pub(crate) struct CandidateSet {
    offsets: Vec<u32>,
    filter: [u64; 64],
}

impl CandidateSet {
    pub(crate) fn new(offsets: Vec<u32>) -> CandidateSet {
        let mut filter = [0u64; 64];
        for &o in &offsets {
            filter[(o as usize >> 6) & 63] |= 1 << (o & 63);
        }
        CandidateSet { offsets, filter }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    fn contains(&self, n: u32) -> bool {
        self.filter[(n as usize >> 6) & 63] & (1 << (n & 63)) != 0 && self.offsets.contains(&n)
    }
}

/// Every string offset (local to `strings`) at which the string `name` starts: the
/// positions of `name\0`. Any such position is a valid target of a name_off, including a
/// suffix of a longer string, so matching offsets against these is exact.
pub(crate) fn string_offsets(strings: &[u8], needle_with_nul: &[u8]) -> Vec<usize> {
    memchr::memmem::find_iter(strings, needle_with_nul).collect()
}
