//! A hash map read whole: BPF_MAP_LOOKUP_BATCH (5.6+) hands over many keys and values per
//! bpf(2) call, where a walk takes two calls per element (the next key, then its value): at
//! 10 000 elements, one call instead of 20 000. Where the kernel or the map type has no batch
//! lookup, the walk. Filled whole the same way: BPF_MAP_UPDATE_BATCH, else one update each.

use super::map::{Map, MapType};
use crate::error::{KernelError, Result};
use crate::sys::{self, cmd, MapBatchAttr};

/// Elements asked for per call at first; doubled when a hash bucket holds more (ENOSPC).
const CHUNK: u32 = 4096;

/// Errnos that say the batch lookup is not there: an older kernel (EINVAL), a map type
/// without it (ENOTSUPP, which is 524 inside the kernel, or EOPNOTSUPP).
const UNSUPPORTED: [i32; 3] = [libc::EINVAL, 524, libc::EOPNOTSUPP];

/// One element: its key and its value, one per possible CPU on a per-CPU map.
pub type Entry = (Vec<u8>, Vec<Vec<u8>>);

impl Map {
    /// Every element, with [`Map::lookup_percpu`]'s values, by batches where the kernel can.
    pub fn entries(&self) -> Result<Vec<Entry>> {
        if is_hash(self.map_type()) {
            if let Some(all) = self.lookup_batches()? {
                return Ok(all);
            }
        }
        let mut out = Vec::new();
        for key in self.keys()? {
            if let Some(v) = self.lookup_percpu(&key)? {
                out.push((key, v));
            }
        }
        Ok(out)
    }

    /// Stores every (key, value) pair (values as [`Map::update`] takes them), in one bpf(2)
    /// call where the kernel can.
    pub fn update_all(&self, entries: &[(Vec<u8>, Vec<u8>)]) -> Result<()> {
        let (key_size, value_len) = (self.key_size(), self.value_len());
        if entries.is_empty() {
            return Ok(());
        }
        if entries.iter().any(|(k, v)| k.len() != key_size || v.len() != value_len) {
            // The per-element path says which size is wrong.
            return entries.iter().try_for_each(|(k, v)| self.update(k, v, 0));
        }
        let keys: Vec<u8> = entries.iter().flat_map(|(k, _)| k.iter().copied()).collect();
        let values: Vec<u8> = entries.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        let mut attr = MapBatchAttr {
            keys: sys::addr(&keys),
            values: sys::addr(&values),
            count: entries.len() as u32,
            map_fd: self.fd() as u32,
            ..Default::default()
        };
        match sys::bpf(cmd::MAP_UPDATE_BATCH, &mut attr) {
            Ok(_) => Ok(()),
            Err(e) if UNSUPPORTED.contains(&e) => {
                entries.iter().try_for_each(|(k, v)| self.update(k, v, 0))
            }
            Err(e) => Err(KernelError::Syscall { op: "bpf(BPF_MAP_UPDATE_BATCH)", errno: e }),
        }
    }

    /// None when the kernel has no batch lookup for this map.
    fn lookup_batches(&self) -> Result<Option<Vec<Entry>>> {
        let (key_size, value_len) = (self.key_size(), self.value_len());
        let mut chunk = CHUNK.min(self.max_entries().max(1));
        let mut out = Vec::new();
        // The position: a hash map's bucket index, a u32.
        let mut at = [0u8; 8];
        let mut next = [0u8; 8];
        let mut first = true;
        loop {
            let mut keys = vec![0u8; key_size * chunk as usize];
            let mut values = vec![0u8; value_len * chunk as usize];
            let mut attr = MapBatchAttr {
                in_batch: if first { 0 } else { sys::addr(&at) },
                out_batch: sys::addr_mut(&mut next),
                keys: sys::addr_mut(&mut keys),
                values: sys::addr_mut(&mut values),
                count: chunk,
                map_fd: self.fd() as u32,
                ..Default::default()
            };
            let done = match sys::bpf(cmd::MAP_LOOKUP_BATCH, &mut attr) {
                Ok(_) => false,
                Err(libc::ENOENT) => true,
                Err(libc::ENOSPC) if chunk < u32::MAX / 2 => {
                    chunk *= 2;
                    continue;
                }
                Err(e) if first && UNSUPPORTED.contains(&e) => return Ok(None),
                Err(e) => {
                    return Err(KernelError::Syscall { op: "bpf(BPF_MAP_LOOKUP_BATCH)", errno: e })
                }
            };
            let got = (attr.count as usize).min(chunk as usize);
            for i in 0..got {
                let key = keys[i * key_size..(i + 1) * key_size].to_vec();
                let raw = &values[i * value_len..(i + 1) * value_len];
                out.push((key, self.split_percpu(raw)));
            }
            if done {
                return Ok(Some(out));
            }
            at = next;
            first = false;
        }
    }

    /// A value as read into one per possible CPU (one for a map that is not per-CPU).
    fn split_percpu(&self, raw: &[u8]) -> Vec<Vec<u8>> {
        if !self.map_type().is_percpu() {
            return vec![raw.to_vec()];
        }
        let size = self.value_size();
        raw.chunks(size.next_multiple_of(8)).map(|c| c[..size].to_vec()).collect()
    }
}

fn is_hash(t: MapType) -> bool {
    matches!(t, MapType::Hash | MapType::PerCpuHash | MapType::LruHash | MapType::LruPerCpuHash)
}
