//! The `#[repr(C)]` mirrors of the uapi structs we pass: one struct per `bpf_attr` variant, plus
//! `perf_event_attr`. Offsets were checked against the C headers with offsetof.
#![allow(unsafe_code)]

/// bpf(2) command numbers (uapi `enum bpf_cmd`).
pub mod cmd {
    pub const MAP_CREATE: u32 = 0;
    pub const MAP_LOOKUP_ELEM: u32 = 1;
    pub const MAP_UPDATE_ELEM: u32 = 2;
    pub const MAP_DELETE_ELEM: u32 = 3;
    pub const MAP_GET_NEXT_KEY: u32 = 4;
    pub const PROG_LOAD: u32 = 5;
    pub const PROG_TEST_RUN: u32 = 10;
    pub const PROG_GET_NEXT_ID: u32 = 11;
    pub const PROG_GET_FD_BY_ID: u32 = 13;
    pub const OBJ_GET_INFO_BY_FD: u32 = 15;
    pub const RAW_TRACEPOINT_OPEN: u32 = 17;
    pub const BTF_GET_FD_BY_ID: u32 = 19;
    pub const BTF_GET_NEXT_ID: u32 = 23;
    pub const LINK_CREATE: u32 = 28;
    pub const ITER_CREATE: u32 = 33;
    pub const BTF_LOAD: u32 = 18;
    pub const ENABLE_STATS: u32 = 32;
    pub const MAP_LOOKUP_BATCH: u32 = 24;
    pub const MAP_UPDATE_BATCH: u32 = 26;
}

/// Marker for the attr structs: plain old data, no implicit padding, all-zero is valid.
///
/// # Safety
/// Implementors must be `#[repr(C)]` with every byte covered by a field.
pub unsafe trait BpfAttr: Default {}

/// ENABLE_STATS: which statistics (BPF_STATS_RUN_TIME = 0, the only kind).
#[repr(C)]
#[derive(Default)]
pub struct EnableStatsAttr {
    pub stat_type: u32,
}
unsafe impl BpfAttr for EnableStatsAttr {}

#[repr(C)]
#[derive(Default)]
pub struct MapCreateAttr {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub map_flags: u32,
    pub inner_map_fd: u32,
    pub numa_node: u32,
    pub map_name: [u8; 16],
    pub _pad: u32,
}
unsafe impl BpfAttr for MapCreateAttr {}

/// MAP_LOOKUP/UPDATE/DELETE_ELEM and MAP_GET_NEXT_KEY (`value` doubles as `next_key`).
#[repr(C)]
#[derive(Default)]
pub struct MapElemAttr {
    pub map_fd: u32,
    pub _pad: u32,
    pub key: u64,
    pub value: u64,
    pub flags: u64,
}
unsafe impl BpfAttr for MapElemAttr {}

/// MAP_LOOKUP_BATCH (5.6+): up to `count` keys and values from where `in_batch` left off
/// (0: the start); the kernel writes the next position to `out_batch` and the number read to
/// `count`.
#[repr(C)]
#[derive(Default)]
pub struct MapBatchAttr {
    pub in_batch: u64,
    pub out_batch: u64,
    pub keys: u64,
    pub values: u64,
    pub count: u32,
    pub map_fd: u32,
    pub elem_flags: u64,
    pub flags: u64,
}
unsafe impl BpfAttr for MapBatchAttr {}

#[repr(C)]
#[derive(Default)]
pub struct ProgLoadAttr {
    pub prog_type: u32,
    pub insn_cnt: u32,
    pub insns: u64,
    pub license: u64,
    pub log_level: u32,
    pub log_size: u32,
    pub log_buf: u64,
    pub kern_version: u32,
    pub prog_flags: u32,
    pub prog_name: [u8; 16],
    pub prog_ifindex: u32,
    pub expected_attach_type: u32,
    pub prog_btf_fd: u32,
    pub func_info_rec_size: u32,
    pub func_info: u64,
    pub func_info_cnt: u32,
    pub line_info_rec_size: u32,
    pub line_info: u64,
    pub line_info_cnt: u32,
    pub attach_btf_id: u32,
    /// Union with `attach_btf_obj_fd`: the module BTF holding `attach_btf_id` (0 for vmlinux).
    pub attach_prog_fd: u32,
    pub _pad: u32,
}
unsafe impl BpfAttr for ProgLoadAttr {}

#[repr(C)]
#[derive(Default)]
pub struct TestRunAttr {
    pub prog_fd: u32,
    pub retval: u32,
    pub data_size_in: u32,
    pub data_size_out: u32,
    pub data_in: u64,
    pub data_out: u64,
    pub repeat: u32,
    pub duration: u32,
    pub ctx_size_in: u32,
    pub ctx_size_out: u32,
    pub ctx_in: u64,
    pub ctx_out: u64,
    pub flags: u32,
    pub cpu: u32,
}
unsafe impl BpfAttr for TestRunAttr {}

/// PROG_GET_NEXT_ID (start_id -> next_id) and PROG_GET_FD_BY_ID (prog_id); the same for BTF objects.
#[repr(C)]
#[derive(Default)]
pub struct IdAttr {
    pub id: u32,
    pub next_id: u32,
    pub open_flags: u32,
    pub _pad: u32,
}
unsafe impl BpfAttr for IdAttr {}

#[repr(C)]
#[derive(Default)]
pub struct InfoAttr {
    pub bpf_fd: u32,
    pub info_len: u32,
    pub info: u64,
}
unsafe impl BpfAttr for InfoAttr {}

/// `struct bpf_prog_info` up to `recursion_misses` (5.12). The kernel fills what it knows and
/// says how much in `info_len`; the pointer fields stay 0 with their counts, so it writes
/// nothing through them.
#[repr(C)]
#[derive(Default)]
pub struct ProgInfo {
    pub prog_type: u32,
    pub id: u32,
    pub tag: [u8; 8],
    pub jited_prog_len: u32,
    pub xlated_prog_len: u32,
    pub jited_prog_insns: u64,
    pub xlated_prog_insns: u64,
    pub load_time: u64,
    pub created_by_uid: u32,
    pub nr_map_ids: u32,
    pub map_ids: u64,
    pub name: [u8; 16],
    pub ifindex: u32,
    pub gpl_compatible: u32,
    pub netns_dev: u64,
    pub netns_ino: u64,
    pub nr_jited_ksyms: u32,
    pub nr_jited_func_lens: u32,
    pub jited_ksyms: u64,
    pub jited_func_lens: u64,
    pub btf_id: u32,
    pub func_info_rec_size: u32,
    pub func_info: u64,
    pub nr_func_info: u32,
    pub nr_line_info: u32,
    pub line_info: u64,
    pub jited_line_info: u64,
    pub nr_jited_line_info: u32,
    pub line_info_rec_size: u32,
    pub jited_line_info_rec_size: u32,
    pub nr_prog_tags: u32,
    pub prog_tags: u64,
    pub run_time_ns: u64,
    pub run_cnt: u64,
    pub recursion_misses: u64,
}

/// `struct bpf_btf_info`: which BTF object an fd is (vmlinux or a module's).
#[repr(C)]
#[derive(Default)]
pub struct BtfInfo {
    pub btf: u64,
    pub btf_size: u32,
    pub id: u32,
    pub name: u64,
    pub name_len: u32,
    pub kernel_btf: u32,
}

/// RAW_TRACEPOINT_OPEN. `name` 0 attaches a TRACING program (fentry/fexit) at its load-time target.
#[repr(C)]
#[derive(Default)]
pub struct RawTracepointAttr {
    pub name: u64,
    pub prog_fd: u32,
    pub _pad: u32,
}
unsafe impl BpfAttr for RawTracepointAttr {}

#[repr(C)]
#[derive(Default)]
pub struct LinkCreateAttr {
    pub prog_fd: u32,
    pub target_fd: u32,
    pub attach_type: u32,
    pub flags: u32,
    /// `perf_event.bpf_cookie` for BPF_PERF_EVENT links.
    pub cookie: u64,
}
unsafe impl BpfAttr for LinkCreateAttr {}

/// BPF_ITER_CREATE (`iter_create`): a readable fd that runs an iterator link's program.
#[repr(C)]
#[derive(Default)]
pub struct IterCreateAttr {
    pub link_fd: u32,
    pub flags: u32,
}
unsafe impl BpfAttr for IterCreateAttr {}

/// LINK_CREATE for BPF_TRACE_KPROBE_MULTI (`link_create.kprobe_multi`).
#[repr(C)]
#[derive(Default)]
pub struct KprobeMultiLinkAttr {
    pub prog_fd: u32,
    /// Unused for kprobe_multi (the kernel reads it as target_fd).
    pub target_fd: u32,
    pub attach_type: u32,
    pub flags: u32,
    /// BPF_F_KPROBE_MULTI_RETURN or 0.
    pub kprobe_flags: u32,
    pub cnt: u32,
    /// Address of `cnt` C-string pointers.
    pub syms: u64,
    /// Address of `cnt` kernel addresses (instead of `syms`).
    pub addrs: u64,
    pub cookies: u64,
}
unsafe impl BpfAttr for KprobeMultiLinkAttr {}

/// `struct perf_event_attr` up to PERF_ATTR_SIZE_VER5 (112 bytes, every kernel since 4.1 takes it).
#[repr(C)]
#[derive(Default)]
pub struct PerfEventAttr {
    pub type_: u32,
    pub size: u32,
    pub config: u64,
    pub sample_period_or_freq: u64,
    pub sample_type: u64,
    pub read_format: u64,
    /// The bitfield word: disabled is bit 0, freq bit 10.
    pub flags: u64,
    pub wakeup_events: u32,
    pub bp_type: u32,
    pub config1: u64,
    pub config2: u64,
    pub branch_sample_type: u64,
    pub sample_regs_user: u64,
    pub sample_stack_user: u32,
    pub clockid: i32,
    pub sample_regs_intr: u64,
    pub aux_watermark: u32,
    pub sample_max_stack: u16,
    pub _reserved2: u16,
}

pub const PERF_FLAG_FREQ: u64 = 1 << 10;
pub const PERF_TYPE_HARDWARE: u32 = 0;
pub const PERF_TYPE_SOFTWARE: u32 = 1;
pub const PERF_TYPE_TRACEPOINT: u32 = 2;
pub const PERF_FLAG_FD_CLOEXEC: u64 = 8;
pub const PERF_EVENT_IOC_ENABLE: u64 = 0x2400;
pub const PERF_EVENT_IOC_SET_BPF: u64 = 0x4004_2408;

const _: () = {
    assert!(std::mem::size_of::<MapCreateAttr>() == 48);
    assert!(std::mem::size_of::<MapElemAttr>() == 32);
    assert!(std::mem::size_of::<ProgLoadAttr>() == 120);
    assert!(std::mem::size_of::<TestRunAttr>() == 72);
    assert!(std::mem::size_of::<LinkCreateAttr>() == 24);
    assert!(std::mem::size_of::<KprobeMultiLinkAttr>() == 48);
    assert!(std::mem::offset_of!(KprobeMultiLinkAttr, syms) == 24);
    assert!(std::mem::offset_of!(ProgLoadAttr, attach_prog_fd) == 112);
    assert!(std::mem::size_of::<BtfInfo>() == 32);
    assert!(std::mem::offset_of!(BtfInfo, name) == 16);
    assert!(std::mem::offset_of!(PerfEventAttr, config1) == 56);
    assert!(std::mem::offset_of!(ProgInfo, ifindex) == 80);
    assert!(std::mem::offset_of!(ProgInfo, btf_id) == 128);
    assert!(std::mem::offset_of!(ProgInfo, recursion_misses) == 208);
    assert!(std::mem::size_of::<ProgInfo>() == 216);
    assert!(std::mem::size_of::<PerfEventAttr>() == 112);
};

/// BTF_LOAD: a BTF blob of the program's own (func info for helper callbacks).
#[repr(C)]
#[derive(Default)]
pub struct BtfLoadAttr {
    pub btf: u64,
    pub btf_log_buf: u64,
    pub btf_size: u32,
    pub btf_log_size: u32,
    pub btf_log_level: u32,
    pub _pad: u32,
}
unsafe impl BpfAttr for BtfLoadAttr {}
