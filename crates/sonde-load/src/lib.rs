//! Compiled maps and programs -> kernel objects: the compiler's map kinds and program kinds as
//! BPF map and program types, and map fds patched into the instructions that name them. The
//! binary (`sonde/src/session.rs`) and the golden verifier lane (`sonde-compile/tests/golden.rs`)
//! both load through here, so the lane checks exactly what sonde loads. Kept out of
//! sonde-compile, which never touches the kernel, and out of sonde-kernel, which knows nothing
//! of the compiler.

use sonde_compile::provider::{AttachPoint, ProgKind};
use sonde_compile::{Compiled, MapKind, ProgramDef};
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
    let mut insns = p.insns.clone();
    for &(at, map) in &p.relocs {
        insns[at].imm = maps[map].fd();
    }
    let bytes = sonde_bpf::insn::encode(&insns);
    let btf_id = match p.sites.first().map(|s| &s.point) {
        Some(AttachPoint::Fentry { btf_id, .. } | AttachPoint::RawTracepoint { btf_id, .. }) => {
            *btf_id
        }
        _ => 0,
    };
    let spec = match p.kind {
        ProgKind::RawTracepoint => ProgSpec::new(ProgType::RawTracepoint, &bytes, &p.name),
        ProgKind::Tracepoint => ProgSpec::new(ProgType::Tracepoint, &bytes, &p.name),
        ProgKind::PerfEvent => ProgSpec::new(ProgType::PerfEvent, &bytes, &p.name),
        ProgKind::Kprobe if uses_kprobe_multi(p) => ProgSpec::kprobe_multi(&bytes, &p.name),
        ProgKind::Kprobe => ProgSpec::new(ProgType::Kprobe, &bytes, &p.name),
        ProgKind::Fentry => ProgSpec::fentry(&bytes, &p.name, btf_id),
        ProgKind::Fexit => ProgSpec::fexit(&bytes, &p.name, btf_id),
        ProgKind::TpBtf => ProgSpec::tp_btf(&bytes, &p.name, btf_id),
    };
    let opts = sonde_kernel::object::prog::LoadOptions {
        callbacks: &p.callbacks,
        stop,
        ..Default::default()
    };
    Program::load_with(&spec, &opts)
}
