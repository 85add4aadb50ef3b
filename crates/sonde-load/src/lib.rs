//! Compiled maps and programs -> kernel objects: the compiler's map kinds and program kinds as
//! BPF map and program types, and map fds patched into the instructions that name them. The
//! binary (`sonde/src/session.rs`) and the golden verifier lane (`sonde-compile/tests/golden.rs`)
//! both load through here, so the lane checks exactly what sonde loads. Kept out of
//! sonde-compile, which never touches the kernel, and out of sonde-kernel, which knows nothing
//! of the compiler.

use sonde_compile::provider::{AttachPoint, ProgKind};
use sonde_compile::{Compiled, MapKind, ProgramDef};
use sonde_kernel::object::func_info::GlobalFunc;
use sonde_kernel::object::map::{Map, MapSpec, MapType};
use sonde_kernel::object::prog::{ProgSpec, ProgType, Program};
use sonde_kernel::KernelError;

/// Create every map of `c`, in the order its programs' relocations number them.
pub fn create_maps(c: &Compiled) -> Result<Vec<Map>, KernelError> {
    c.maps
        .iter()
        .map(|m| {
            Map::create(&MapSpec {
                map_type: map_type(m.kind),
                key_size: m.key_size,
                value_size: m.value_size,
                max_entries: m.max_entries,
                name: &m.name,
                flags: 0,
            })
        })
        .collect()
}

fn map_type(kind: MapKind) -> MapType {
    match kind {
        MapKind::Hash => MapType::Hash,
        MapKind::PerCpuHash => MapType::PerCpuHash,
        MapKind::LruHash => MapType::LruHash,
        MapKind::LruPerCpuHash => MapType::LruPerCpuHash,
        MapKind::RingBuf => MapType::RingBuf,
        MapKind::PerCpuArray => MapType::PerCpuArray,
        MapKind::Array => MapType::Array,
        MapKind::StackTrace => MapType::StackTrace,
    }
}

/// Does this program attach to several kernel functions through one kprobe_multi link?
pub fn uses_kprobe_multi(p: &ProgramDef) -> bool {
    p.sites.len() > 1
        && p.sites.iter().all(|s| matches!(s.point, AttachPoint::Kprobe { offset: 0, .. }))
        && sonde_kernel::features::has_kprobe_multi()
}

/// Load one program of `c` with the maps [`create_maps`] made for it.
pub fn load_program(p: &ProgramDef, maps: &[Map]) -> Result<Program, KernelError> {
    load_program_unless(p, maps, None)
}

/// [`load_program`], given up (`KernelError::Interrupted`) once `stop` says so while the
/// kernel verifies it.
pub fn load_program_unless(
    p: &ProgramDef,
    maps: &[Map],
    stop: Option<fn() -> bool>,
) -> Result<Program, KernelError> {
    ready(p, maps).load(stop, false)
}

/// A program as the kernel takes it, its maps' fds in place: free of the compiler's types, so
/// another thread can load it.
pub struct Ready {
    bytes: Vec<u8>,
    name: String,
    kind: ProgKind,
    kprobe_multi: bool,
    btf_id: u32,
    callbacks: Vec<u32>,
    globals: Vec<GlobalFunc>,
}

/// `p` with the fds of the maps [`create_maps`] made for it.
pub fn ready(p: &ProgramDef, maps: &[Map]) -> Ready {
    let mut insns = p.insns.clone();
    for &(at, map) in &p.relocs {
        insns[at].imm = maps[map].fd();
    }
    let btf_id = match p.sites.first().map(|s| &s.point) {
        Some(
            AttachPoint::Fentry { btf_id, .. }
            | AttachPoint::RawTracepoint { btf_id, .. }
            | AttachPoint::Iter { btf_id, .. },
        ) => *btf_id,
        _ => 0,
    };
    Ready {
        bytes: sonde_bpf::insn::encode(&insns),
        name: p.name.clone(),
        kind: p.kind,
        kprobe_multi: p.kind == ProgKind::Kprobe && uses_kprobe_multi(p),
        btf_id,
        callbacks: p.callbacks.clone(),
        globals: p
            .functions
            .iter()
            .map(|f| GlobalFunc { start: f.start, params: f.params, name: f.name.clone() })
            .collect(),
    }
}

impl Ready {
    /// Instructions: what the verifier's time grows with.
    pub fn len(&self) -> usize {
        self.bytes.len() / 8
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Loads it, given up as [`load_program_unless`] says; with `stats`, the program keeps the
    /// verifier's statistics ([`Program::stats`]).
    pub fn load(&self, stop: Option<fn() -> bool>, stats: bool) -> Result<Program, KernelError> {
        let (bytes, name, btf_id) = (&self.bytes[..], &self.name[..], self.btf_id);
        let spec = match self.kind {
            ProgKind::RawTracepoint => ProgSpec::new(ProgType::RawTracepoint, bytes, name),
            ProgKind::Tracepoint => ProgSpec::new(ProgType::Tracepoint, bytes, name),
            ProgKind::PerfEvent => ProgSpec::new(ProgType::PerfEvent, bytes, name),
            ProgKind::Kprobe if self.kprobe_multi => ProgSpec::kprobe_multi(bytes, name),
            ProgKind::Kprobe => ProgSpec::new(ProgType::Kprobe, bytes, name),
            ProgKind::Fentry => ProgSpec::fentry(bytes, name, btf_id),
            ProgKind::Fexit => ProgSpec::fexit(bytes, name, btf_id),
            ProgKind::TpBtf => ProgSpec::tp_btf(bytes, name, btf_id),
            ProgKind::Iter => ProgSpec::iter(bytes, name, btf_id),
        };
        let opts = sonde_kernel::object::prog::LoadOptions {
            callbacks: &self.callbacks,
            globals: &self.globals,
            stop,
            stats,
            ..Default::default()
        };
        Program::load_with(&spec, &opts)
    }
}
