//! The summary from the hand-built pair's maps: the hash rows by (tid, syscall), each CPU's slot
//! rows added to the thread that owns that CPU, and the failures by errno.

use super::{Row, FULL_CALLS, FULL_ERRNOS, FULL_MOVED, OWNER, ROW_BYTES, SLOT_HEAD, SLOT_ROWS};
use crate::summary::{Stats, Summary};

/// A hash map's (key, value) entries, as read from the kernel.
pub type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// What a full hash cost, added over every CPU's slot head.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NotCounted {
    /// Calls in no row: their (thread, syscall) row could not be inserted, or their start
    /// could not be moved when the thread was switched out mid-call.
    pub calls: u64,
    /// Failed calls counted, but not by errno: their (thread, syscall, errno) row could not be
    /// inserted.
    pub errnos: u64,
}

/// `calls`: the hash's (key, value) entries; `slots`: the slot's value on each CPU; `errs`:
/// the errno hash's entries. Keys are u64 slots (tid, syscall[, errno]). With the summary, the
/// calls and errnos it could not count.
pub fn summary(calls: &Entries, slots: &[Vec<u8>], errs: &Entries) -> (Summary, NotCounted) {
    let mut s = Summary::default();
    let mut add = |tid: u64, nr: u64, r: Row| {
        // A row whose calls never returned (exit_group) counts nothing, as in strace -c.
        if r.calls > 0 {
            let st = Stats {
                calls: r.calls,
                total_ns: r.total_ns,
                min_ns: r.min_ns,
                max_ns: r.max_ns,
                squares: r.squares,
                errnos: Default::default(),
            };
            s.rows.entry((tid as u32, nr as u32)).or_default().add(&st);
        }
    };
    for (k, v) in calls {
        let key = decode_key(k);
        if let (Some(&tid), Some(&nr), Some(r)) = (key.first(), key.get(1), Row::decode(v)) {
            add(tid, nr, r);
        }
    }
    let mut lost = NotCounted::default();
    for slot in slots {
        lost.calls += u64_at(slot, FULL_CALLS as usize) + u64_at(slot, FULL_MOVED as usize);
        lost.errnos += u64_at(slot, FULL_ERRNOS as usize);
        let owner = u64_at(slot, OWNER as usize);
        if owner == 0 {
            continue;
        }
        for nr in 0..SLOT_ROWS {
            let at = SLOT_HEAD + nr * ROW_BYTES as usize;
            if let Some(r) = slot.get(at..at + ROW_BYTES as usize).and_then(Row::decode) {
                add(owner, nr as u64, r);
            }
        }
    }
    for (k, v) in errs {
        let key = decode_key(k);
        if let (Some(&tid), Some(&nr), Some(&e)) = (key.first(), key.get(1), key.get(2)) {
            if let Some(st) = s.rows.get_mut(&(tid as u32, nr as u32)) {
                *st.errnos.entry(e as i32).or_default() += u64_at(v, 0);
            }
        }
    }
    (s, lost)
}

/// A key of [`super::MAP_CALLS`] or [`super::MAP_ERRS`]: u64 slots (tid, syscall[, errno]).
fn decode_key(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|s| u64::from_le_bytes(s.try_into().unwrap_or_default())).collect()
}

/// The little-endian u64 at `at`, 0 past the end.
pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8).map_or(0, |s| u64::from_le_bytes(s.try_into().unwrap_or_default()))
}
