//! BPF maps: create one, and read, write and walk it from user space.
//!
//! Every key and value is length-checked against the sizes the map was created with before its
//! address reaches the kernel, which reads and writes exactly that many bytes.

use crate::error::{KernelError, Result};
use crate::sys::{self, cmd, MapCreateAttr, MapElemAttr};
use std::collections::HashSet;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

/// `flags` for [`Map::update`].
pub const BPF_ANY: u64 = 0;
pub const BPF_NOEXIST: u64 = 1;
pub const BPF_EXIST: u64 = 2;

/// Frames in one stack trace map value: the kernel's `PERF_MAX_STACK_DEPTH` (and the default of
/// `kernel.perf_event_max_stack`).
pub const PERF_MAX_STACK_DEPTH: u32 = 127;

/// `flags` of the bpf_get_stackid/bpf_get_stack helpers (uapi `BPF_F_*`), for the code generator.
pub mod stack_flags {
    /// Low 8 bits: frames to skip.
    pub const BPF_F_SKIP_FIELD_MASK: u64 = 0xff;
    /// The user-space stack instead of the kernel's.
    pub const BPF_F_USER_STACK: u64 = 1 << 8;
    /// bpf_get_stackid: compare stacks by hash only.
    pub const BPF_F_FAST_STACK_CMP: u64 = 1 << 9;
    /// bpf_get_stackid: on a hash collision, replace the old stack rather than fail with EEXIST.
    pub const BPF_F_REUSE_STACKID: u64 = 1 << 10;
    /// bpf_get_stack: build-id + offset records instead of addresses (with BPF_F_USER_STACK).
    pub const BPF_F_USER_BUILD_ID: u64 = 1 << 11;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapType {
    #[doc(alias = "BPF_MAP_TYPE_HASH")]
    Hash,
    #[doc(alias = "BPF_MAP_TYPE_ARRAY")]
    Array,
    #[doc(alias = "BPF_MAP_TYPE_PERCPU_HASH")]
    PerCpuHash,
    #[doc(alias = "BPF_MAP_TYPE_PERCPU_ARRAY")]
    PerCpuArray,
    #[doc(alias = "BPF_MAP_TYPE_RINGBUF")]
    RingBuf,
    #[doc(alias = "BPF_MAP_TYPE_PERF_EVENT_ARRAY")]
    PerfEventArray,
    #[doc(alias = "BPF_MAP_TYPE_STACK_TRACE")]
    StackTrace,
    #[doc(alias = "BPF_MAP_TYPE_LRU_HASH")]
    LruHash,
    #[doc(alias = "BPF_MAP_TYPE_LRU_PERCPU_HASH")]
    LruPerCpuHash,
}

impl MapType {
    /// The uapi `enum bpf_map_type` value.
    pub fn id(self) -> u32 {
        match self {
            MapType::Hash => 1,
            MapType::Array => 2,
            MapType::PerfEventArray => 4,
            MapType::PerCpuHash => 5,
            MapType::LruHash => 9,
            MapType::LruPerCpuHash => 10,
            MapType::PerCpuArray => 6,
            MapType::StackTrace => 7,
            MapType::RingBuf => 27,
        }
    }

    pub fn is_percpu(self) -> bool {
        matches!(self, MapType::PerCpuHash | MapType::PerCpuArray | MapType::LruPerCpuHash)
    }

    fn is_array(self) -> bool {
        matches!(self, MapType::Array | MapType::PerCpuArray)
    }
}

#[derive(Clone, Copy, Debug)]
pub struct MapSpec<'a> {
    pub map_type: MapType,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    /// Shown by bpftool; truncated and sanitized to the kernel's 15 chars of `[A-Za-z0-9_.]`.
    pub name: &'a str,
    pub flags: u32,
}

impl<'a> MapSpec<'a> {
    /// A BPF_MAP_TYPE_STACK_TRACE map for bpf_get_stackid: u32 stack id -> up to
    /// [`PERF_MAX_STACK_DEPTH`] u64 instruction pointers, zero-padded.
    pub fn stack_trace(name: &'a str, max_entries: u32) -> MapSpec<'a> {
        MapSpec {
            map_type: MapType::StackTrace,
            key_size: 4,
            value_size: PERF_MAX_STACK_DEPTH * 8,
            max_entries,
            name,
            flags: 0,
        }
    }
}

/// A map this process created. Dropping it closes the fd; the kernel frees the map once no loaded
/// program uses it either.
#[derive(Debug)]
pub struct Map {
    fd: OwnedFd,
    map_type: MapType,
    key_size: usize,
    value_size: usize,
    max_entries: u32,
    name: String,
    /// Possible CPUs, for per-CPU maps (the kernel exchanges one 8-byte-aligned slot per CPU).
    ncpus: usize,
}

impl Map {
    pub fn create(spec: &MapSpec) -> Result<Map> {
        let mut attr = MapCreateAttr {
            map_type: spec.map_type.id(),
            key_size: spec.key_size,
            value_size: spec.value_size,
            max_entries: spec.max_entries,
            map_flags: spec.flags,
            map_name: crate::object::name::obj_name(spec.name),
            ..Default::default()
        };
        let ncpus =
            if spec.map_type.is_percpu() { crate::host::cpus::possible_cpus()?.len() } else { 1 };
        let fd = sys::bpf_fd(cmd::MAP_CREATE, &mut attr)
            .map_err(KernelError::sys("bpf(BPF_MAP_CREATE)"))?;
        Ok(Map {
            fd,
            map_type: spec.map_type,
            key_size: spec.key_size as usize,
            value_size: spec.value_size as usize,
            max_entries: spec.max_entries,
            name: spec.name.to_string(),
            ncpus,
        })
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    pub(crate) fn owned_fd(&self) -> &OwnedFd {
        &self.fd
    }

    pub fn map_type(&self) -> MapType {
        self.map_type
    }

    pub fn key_size(&self) -> usize {
        self.key_size
    }

    pub fn value_size(&self) -> usize {
        self.value_size
    }

    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes the kernel copies for one value: `value_size`, or for per-CPU maps one slot per possible
    /// CPU, each padded to 8 bytes.
    pub fn value_len(&self) -> usize {
        if self.map_type.is_percpu() {
            self.value_size.next_multiple_of(8) * self.ncpus
        } else {
            self.value_size
        }
    }

    /// The value under `key`, or None. On a per-CPU map this is every CPU's slot back to back (see
    /// [`Map::lookup_percpu`] for them split).
    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check("key", self.key_size, key.len())?;
        let mut value = vec![0u8; self.value_len()];
        let mut attr = MapElemAttr {
            map_fd: self.fd() as u32,
            key: sys::addr(key),
            value: sys::addr_mut(&mut value),
            ..Default::default()
        };
        match sys::bpf(cmd::MAP_LOOKUP_ELEM, &mut attr) {
            Ok(_) => Ok(Some(value)),
            Err(libc::ENOENT) => Ok(None),
            Err(e) => Err(KernelError::Syscall { op: "bpf(BPF_MAP_LOOKUP_ELEM)", errno: e }),
        }
    }

    /// One value per possible CPU, each `value_size` bytes. On a map that is not per-CPU, one value.
    pub fn lookup_percpu(&self, key: &[u8]) -> Result<Option<Vec<Vec<u8>>>> {
        let Some(raw) = self.lookup(key)? else {
            return Ok(None);
        };
        if !self.map_type.is_percpu() {
            return Ok(Some(vec![raw]));
        }
        let slot = self.value_size.next_multiple_of(8);
        Ok(Some(raw.chunks(slot).map(|c| c[..self.value_size].to_vec()).collect()))
    }

    /// Write `value` under `key`. `value` is [`Map::value_len`] bytes (per-CPU maps take every CPU's
    /// slot). `flags` is [`BPF_ANY`], [`BPF_NOEXIST`] or [`BPF_EXIST`].
    pub fn update(&self, key: &[u8], value: &[u8], flags: u64) -> Result<()> {
        self.check("key", self.key_size, key.len())?;
        self.check("value", self.value_len(), value.len())?;
        let mut attr = MapElemAttr {
            map_fd: self.fd() as u32,
            key: sys::addr(key),
            value: sys::addr(value),
            flags,
            ..Default::default()
        };
        sys::bpf(cmd::MAP_UPDATE_ELEM, &mut attr)
            .map_err(KernelError::sys("bpf(BPF_MAP_UPDATE_ELEM)"))?;
        Ok(())
    }

    /// Remove `key`; false if it was not there.
    pub fn delete(&self, key: &[u8]) -> Result<bool> {
        self.check("key", self.key_size, key.len())?;
        let mut attr =
            MapElemAttr { map_fd: self.fd() as u32, key: sys::addr(key), ..Default::default() };
        match sys::bpf(cmd::MAP_DELETE_ELEM, &mut attr) {
            Ok(_) => Ok(true),
            Err(libc::ENOENT) => Ok(false),
            Err(e) => Err(KernelError::Syscall { op: "bpf(BPF_MAP_DELETE_ELEM)", errno: e }),
        }
    }

    /// The stack with id `id` in a stack trace map (what bpf_get_stackid returned): its instruction
    /// pointers, innermost first, up to the first zero. None if there is no such stack.
    pub fn stack(&self, id: u32) -> Result<Option<Vec<u64>>> {
        if self.map_type != MapType::StackTrace {
            return Err(KernelError::WrongMapType {
                map: self.name.clone(),
                needed: "a stack trace map",
            });
        }
        Ok(self.lookup(&id.to_le_bytes())?.map(|v| {
            v.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunk")))
                .take_while(|&ip| ip != 0)
                .collect()
        }))
    }

    /// [`Map::stack`], then delete it so the id can be reused (for long runs that print stacks as
    /// they go).
    pub fn take_stack(&self, id: u32) -> Result<Option<Vec<u64>>> {
        let s = self.stack(id)?;
        if s.is_some() {
            self.delete(&id.to_le_bytes())?;
        }
        Ok(s)
    }

    /// Every key, by walking BPF_MAP_GET_NEXT_KEY from the start. A hash walk restarts from the top if
    /// a program deletes the current key under us, so duplicates are dropped.
    pub fn keys(&self) -> Result<Vec<Vec<u8>>> {
        let mut keys = Vec::new();
        let mut seen = HashSet::new();
        let mut cur: Option<Vec<u8>> = None;
        // A map never holds more than max_entries keys; the bound stops a walk that keeps restarting.
        for _ in 0..=(self.max_entries as usize * 2) {
            let mut next = vec![0u8; self.key_size];
            let mut attr = MapElemAttr {
                map_fd: self.fd() as u32,
                key: cur.as_deref().map_or(0, sys::addr),
                value: sys::addr_mut(&mut next),
                ..Default::default()
            };
            match sys::bpf(cmd::MAP_GET_NEXT_KEY, &mut attr) {
                Ok(_) => {}
                Err(libc::ENOENT) => break,
                Err(e) => {
                    return Err(KernelError::Syscall { op: "bpf(BPF_MAP_GET_NEXT_KEY)", errno: e })
                }
            }
            if seen.insert(next.clone()) {
                keys.push(next.clone());
            }
            cur = Some(next);
        }
        Ok(keys)
    }

    /// Empty the map: delete every key of a hash, zero every slot of an array (arrays cannot delete).
    pub fn clear(&self) -> Result<()> {
        if self.map_type.is_array() {
            let zero = vec![0u8; self.value_len()];
            for i in 0..self.max_entries {
                self.update(&i.to_le_bytes(), &zero, BPF_ANY)?;
            }
            return Ok(());
        }
        for key in self.keys()? {
            self.delete(&key)?;
        }
        Ok(())
    }

    /// Zero every value and keep the keys (bpftrace's `zero(@m)`); an array is zeroed whole. A key
    /// a program deletes meanwhile stays deleted.
    pub fn zero(&self) -> Result<()> {
        if self.map_type.is_array() {
            return self.clear();
        }
        let zero = vec![0u8; self.value_len()];
        for key in self.keys()? {
            match self.update(&key, &zero, BPF_EXIST) {
                Err(KernelError::Syscall { errno: libc::ENOENT, .. }) => {}
                other => other?,
            }
        }
        Ok(())
    }

    fn check(&self, what: &'static str, expected: usize, got: usize) -> Result<()> {
        if expected == got {
            Ok(())
        } else {
            Err(KernelError::Size { object: self.name.clone(), what, expected, got })
        }
    }
}
