//! Compiled maps and programs -> kernel objects. Each program is loaded as the BPF program type
//! its provider needs; kprobe programs shared by many functions are loaded for one multi-kprobe
//! link when the kernel has them.

use crate::error::Failure;
use sonde_compile::provider::{AttachPoint, ProgKind};
use sonde_compile::{Compiled, MapKind, ProgramDef};
use sonde_kernel::map::{Map, MapSpec, MapType};
use sonde_kernel::prog::{ProgSpec, ProgType, Program};
use sonde_syntax::diag::SourceFile;

pub fn create_maps(c: &Compiled) -> Result<Vec<Map>, Failure> {
    c.maps
        .iter()
        .map(|m| {
            let map_type = match m.kind {
                MapKind::Hash => MapType::Hash,
                MapKind::PerCpuHash => MapType::PerCpuHash,
                MapKind::RingBuf => MapType::RingBuf,
                MapKind::PerCpuArray => MapType::PerCpuArray,
                MapKind::Array => MapType::Array,
                MapKind::StackTrace => MapType::StackTrace,
            };
            Map::create(&MapSpec {
                map_type,
                key_size: m.key_size,
                value_size: m.value_size,
                max_entries: m.max_entries,
                name: &m.name,
                flags: 0,
            })
            .map_err(Failure::kernel)
        })
        .collect()
}

/// Does this program attach to several kernel functions through one kprobe_multi link?
pub fn uses_kprobe_multi(p: &ProgramDef) -> bool {
    p.sites.len() > 1
        && p.sites.iter().all(|s| matches!(s.point, AttachPoint::Kprobe { offset: 0, .. }))
        && sonde_kernel::features::has_kprobe_multi()
}

pub fn load_programs(c: &Compiled, maps: &[Map], source: &SourceFile) -> Result<Vec<Program>, Failure> {
    c.programs
        .iter()
        .map(|p| {
            let mut insns = p.insns.clone();
            for &(at, map) in &p.relocs {
                insns[at].imm = maps[map].fd();
            }
            let bytes = sonde_bpf::insn::encode(&insns);
            let btf_id = match p.sites.first().map(|s| &s.point) {
                Some(AttachPoint::Fentry { btf_id, .. }) => *btf_id,
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
            };
            Program::load(&spec).map_err(|e| crate::error::verifier_failure(e, p, source))
        })
        .collect()
}
