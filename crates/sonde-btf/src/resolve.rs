//! Following type chains: modifiers, sizes, and member lookup through anonymous members.
//!
//! Every walk here is bounded, because corrupt BTF can contain cycles (a typedef naming
//! itself) or exponential fan-out (anonymous members nesting the same struct many times).

use crate::decode::DecodedMember;
use crate::model::{MemberAt, TypeId};
use crate::raw::{self, Rec};
use crate::Btf;

/// Longer than any real chain (kernel chains are < 10 deep); shorter than any stack limit.
const MAX_DEPTH: usize = 64;
/// How many members a single flattening walk may visit; task_struct has ~250 in all.
const MAX_VISITS: usize = 1 << 16;
/// Pointer size on every 64-bit kernel sonde supports; BTF does not record it.
pub(crate) const PTR_SIZE: usize = 8;

impl Btf {
    /// Skips typedef, const, volatile, restrict and type tags: `const pid_t` → `int`.
    pub fn strip(&self, mut id: TypeId) -> TypeId {
        for _ in 0..MAX_DEPTH {
            match self.rec(id) {
                Some(r) if is_alias(r.kind()) => id = TypeId(r.size_or_type),
                _ => return id,
            }
        }
        id
    }

    /// Size in bytes: pointers 8, arrays elem × len, through typedefs and modifiers.
    /// `None` for void, forward declarations, functions, and overflowing arrays.
    pub fn size_of(&self, mut id: TypeId) -> Option<usize> {
        let mut scale: usize = 1;
        for _ in 0..MAX_DEPTH {
            let r = self.rec(id)?;
            match r.kind() {
                raw::INT
                | raw::ENUM
                | raw::ENUM64
                | raw::STRUCT
                | raw::UNION
                | raw::FLOAT
                | raw::DATASEC => {
                    return scale.checked_mul(r.size_or_type as usize);
                }
                raw::PTR => return scale.checked_mul(PTR_SIZE),
                raw::ARRAY => {
                    scale = scale.checked_mul(r.word(2) as usize)?;
                    id = TypeId(r.word(0));
                }
                k if is_alias(k) || k == raw::VAR => id = TypeId(r.size_or_type),
                _ => return None,
            }
        }
        None
    }

    /// Finds a member of a struct or union (typedefs and modifiers on `id` are skipped)
    /// by name, looking inside anonymous struct/union members as C does; the offset is
    /// from the start of the outer type.
    pub fn member(&self, id: TypeId, name: &str) -> Option<MemberAt> {
        if name.is_empty() {
            return None;
        }
        let mut found = None;
        self.walk_members(id, 0, 0, &mut { MAX_VISITS }, &mut |m, at| {
            if self.str_at(m.name_off) == name {
                found = Some(at);
                return true;
            }
            false
        });
        found
    }

    /// Every member name reachable with `.`, anonymous members flattened, in declaration
    /// order: the candidates for a "did you mean" suggestion.
    pub fn member_names(&self, id: TypeId) -> Vec<String> {
        let mut names = Vec::new();
        self.walk_members(id, 0, 0, &mut { MAX_VISITS }, &mut |m, _| {
            names.push(self.str_at(m.name_off).to_owned());
            false
        });
        names
    }

    /// Calls `visit` on each named member reachable from `id`, descending into anonymous
    /// struct/union members in place; stops when `visit` returns true (and returns true).
    fn walk_members(
        &self,
        id: TypeId,
        base_bits: u32,
        depth: usize,
        budget: &mut usize,
        visit: &mut dyn FnMut(DecodedMember, MemberAt) -> bool,
    ) -> bool {
        let Some(r) = self.composite(id) else {
            return false;
        };
        if depth >= MAX_DEPTH {
            return false;
        }
        for i in 0..r.vlen() {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let m = self.member_at(r, i);
            let at = MemberAt {
                ty: m.ty,
                bit_offset: base_bits.saturating_add(m.bit_offset),
                bitfield_size: m.bitfield_size,
            };
            let stop = if m.name_off != 0 && !self.str_at(m.name_off).is_empty() {
                visit(m, at)
            } else {
                // Unnamed: an anonymous struct/union to flatten, or bitfield padding to skip.
                self.walk_members(m.ty, at.bit_offset, depth + 1, budget, visit)
            };
            if stop {
                return true;
            }
        }
        false
    }

    /// The STRUCT/UNION record behind `id`, through typedefs and modifiers.
    pub(crate) fn composite(&self, id: TypeId) -> Option<Rec<'_>> {
        self.rec(self.strip(id)).filter(|r| matches!(r.kind(), raw::STRUCT | raw::UNION))
    }
}

/// Kinds that only rename or qualify another type.
pub(crate) fn is_alias(kind: u8) -> bool {
    matches!(kind, raw::TYPEDEF | raw::CONST | raw::VOLATILE | raw::RESTRICT | raw::TYPE_TAG)
}
