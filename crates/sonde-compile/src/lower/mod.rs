//! Lowering: typed program -> BPF instructions, one program per probe instance, plus the maps they
//! share. Expression temporaries live in r6-r8 (callee-saved, so they survive helper calls), the
//! context pointer in r9, strings and keys in stack slots.

mod agg_read;
mod branch;
mod compact;
mod debugf;
mod division;
mod emit;
mod expr;
pub mod full;
mod functions;
mod join;
mod len;
mod ns_pid;
mod percpu;
pub use len::len_counter;
mod map_for;
mod range_for;
mod read_str;
mod scratch;
mod stack_len;
mod stmt;
mod str_concat;
mod strcontains;
mod strings;
mod tseries;
mod tuple;
mod values;

use crate::abi::CONTROL_MAP;
use crate::env::Options;
use crate::model::site::{ProgKind, Site};
use crate::model::tir::{EventDef, EventKind, MapInfo, TProbe, TProgram};
use crate::model::types::STACK_DEPTH;
use emit::{Emitter, CTX, STACK_LIMIT};
use sonde_bpf::{Insn, Reg};
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;

/// Entries in each hash map.
pub const MAP_ENTRIES: u32 = 4096;
/// Size of the event ring buffer (a power of two, a multiple of the page size) when probes
/// stream printf/print records. The kernel maps its pages into sonde at once (and the data
/// area twice), so every byte here is resident memory: 1 MiB holds ~20k typical records,
/// which the reader drains every 20 ms.
pub const RINGBUF_SIZE: u32 = 1 << 20;
/// ...and when the only records are rare control events (exit, clear, print of a map).
pub const RINGBUF_SIZE_CONTROL: u32 = 64 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MapKind {
    Hash,
    PerCpuHash,
    /// bpftrace's `let @m = lruhash(N)`: the least recently used entries make room.
    LruHash,
    LruPerCpuHash,
    RingBuf,
    PerCpuArray,
    Array,
    StackTrace,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MapDef {
    pub name: String,
    pub kind: MapKind,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ProgramDef {
    /// A short name for the kernel and for messages: the first site's description.
    pub name: String,
    pub kind: ProgKind,
    pub sites: Vec<Site>,
    #[serde(with = "compact::insns")]
    pub insns: Vec<Insn>,
    /// (instruction index, map index) of each map-fd load.
    pub relocs: Vec<(usize, usize)>,
    /// Source span of each instruction.
    #[serde(with = "compact::spans")]
    pub spans: Vec<Span>,
    /// For an `interval:` probe, the u64 of CONTROL_MAP's value it counts its runs in. The
    /// kernel skips a timer's program that fires while another BPF program runs on its CPU and,
    /// unlike other skips, counts that nowhere: the runs set against the time elapsed tell.
    pub run_slot: Option<usize>,
    /// The first instruction of each `for ($kv : @map)` callback, placed after the program's own
    /// (the loader gives the kernel their BTF func info).
    pub callbacks: Vec<u32>,
    /// The `fn`s this program calls, placed after it as BPF global functions.
    #[serde(default)]
    pub functions: Vec<FunctionDef>,
}

/// A `fn` in a program's instructions: the loader names it to the kernel as a global function
/// of `params` integer parameters returning an integer.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FunctionDef {
    pub name: String,
    pub start: u32,
    pub params: u8,
}

/// Everything the runtime needs: maps to create, programs to load and attach, how to decode events.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Compiled {
    pub maps: Vec<MapDef>,
    pub programs: Vec<ProgramDef>,
    pub events: Vec<EventDef>,
    /// The user maps' types, in order (map `FIRST_USER_MAP + i` is `user_maps[i]`).
    pub user_maps: Vec<MapInfo>,
    /// The stack-trace maps, (frames, index in `maps`): one a depth the probes take.
    pub stack_maps: Vec<(u8, usize)>,
    /// The index in `maps` of the updates each user map refused because it was full (see
    /// [`full::dropped_map`]); None when the program has no user map.
    pub dropped_map: Option<usize>,
}

impl Compiled {
    /// The stack map ids of stacks of `frames` go to.
    pub fn stack_map(&self, frames: u8) -> Option<usize> {
        stack_map_of(&self.stack_maps, frames)
    }
}

/// In (frames, map) pairs, the map of stacks of `frames`.
fn stack_map_of(stack_maps: &[(u8, usize)], frames: u8) -> Option<usize> {
    stack_maps.iter().find(|&&(f, _)| f == frames).map(|&(_, m)| m)
}

pub fn lower(tp: &TProgram, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let streams = tp.events.iter().any(|e| {
        matches!(
            e.kind,
            EventKind::Printf { .. }
                | EventKind::Time { .. }
                | EventKind::Print
                | EventKind::Join { .. }
                | EventKind::Formatted { .. }
        )
    });
    let ring = if streams { RINGBUF_SIZE } else { RINGBUF_SIZE_CONTROL };
    let mut maps = vec![
        MapDef {
            name: "events".into(),
            kind: MapKind::RingBuf,
            key_size: 0,
            value_size: 0,
            max_entries: ring,
        },
        MapDef {
            name: "lost".into(),
            kind: MapKind::PerCpuArray,
            key_size: 4,
            value_size: 8,
            max_entries: 1,
        },
        MapDef {
            name: "control".into(),
            kind: MapKind::Array,
            key_size: 4,
            value_size: 8 * (1 + intervals(tp)) as u32,
            max_entries: 1,
        },
    ];
    for m in &tp.maps {
        let (_, key_size) = m.key_layout();
        maps.push(MapDef {
            name: m.name.trim_start_matches('@').to_string(),
            kind: match (m.is_percpu(), m.lru) {
                (true, false) => MapKind::PerCpuHash,
                (false, false) => MapKind::Hash,
                (true, true) => MapKind::LruPerCpuHash,
                (false, true) => MapKind::LruHash,
            },
            key_size: key_size as u32,
            value_size: m.value_size() as u32,
            // One element for a scalar map: a per-CPU hash preallocates every element's
            // per-CPU values at creation, ~0.5 µs each (2 ms of start-up for 4096).
            max_entries: m.max_entries.unwrap_or(if m.single_key() { 1 } else { MAP_ENTRIES }),
        });
    }
    // The stack maps come after the user maps, one a depth (`kstack(3)` keeps 3 frames).
    let stack_maps: Vec<(u8, usize)> = tp
        .stacks
        .iter()
        .map(|&frames| {
            maps.push(MapDef {
                name: stack_map_name(frames),
                kind: MapKind::StackTrace,
                key_size: 4,
                value_size: 8 * frames as u32,
                max_entries: MAP_ENTRIES,
            });
            (frames, maps.len() - 1)
        })
        .collect();
    // `len(@m)`'s counters come after it (`len::len_counter`), then `len(kstack)`'s buffer.
    maps.extend(len::counter_maps(&tp.maps));
    let stack_len_map = stack_len::buffer_map(tp.stack_len_frames).map(|m| {
        maps.push(m);
        maps.len() - 1
    });
    let dropped_map = full::dropped_map(&tp.maps).map(|m| {
        maps.push(m);
        maps.len() - 1
    });
    let mut programs = Vec::new();
    let mut diags = Vec::new();
    let mut slots = 1..;
    // The scratch map, if a probe needs one, comes after every other map.
    let scratch_index = maps.len();
    let mut scratch_frame = 0;
    for (key, probe) in tp.probes.iter().enumerate() {
        let run_slot = is_interval(probe).then(|| slots.next().unwrap_or(1));
        let extra =
            ExtraMaps { stacks: &stack_maps, stack_len: stack_len_map, dropped: dropped_map };
        let lowered = match lower_probe(tp, probe, opts, extra, run_slot, None) {
            Err((_, true)) => {
                let s = scratch::Scratch { map: scratch_index, key: key as u32 };
                lower_probe(tp, probe, opts, extra, run_slot, Some(s))
            }
            other => other,
        };
        match lowered {
            Ok((p, frame)) => {
                scratch_frame = scratch_frame.max(frame);
                programs.push(p)
            }
            Err((d, _)) => diags.push(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    if scratch_frame > 0 {
        maps.push(scratch::scratch_map(scratch_frame, tp.probes.len() as u32));
    }
    Ok(Compiled {
        maps,
        programs,
        events: tp.events.clone(),
        user_maps: tp.maps.clone(),
        stack_maps,
        dropped_map,
    })
}

/// `stacks` for the full depth, `stacks_3` for `kstack(3)`.
fn stack_map_name(frames: u8) -> String {
    if frames as u32 == STACK_DEPTH {
        "stacks".into()
    } else {
        format!("stacks_{}", frames)
    }
}

/// State while lowering one probe.
pub(crate) struct Lower<'a> {
    pub e: Emitter,
    pub tp: &'a TProgram,
    pub opts: &'a Options,
    /// Stack offset and slot size of each `$variable`.
    pub vars: Vec<(i16, usize)>,
    /// Where the program returns 0.
    pub exit: emit::Label,
    /// The stack map of each depth: (frames, index in `Compiled::maps`).
    pub stack_maps: &'a [(u8, usize)],
    /// `len(kstack)`'s buffer (stack_len.rs).
    pub stack_len_map: Option<usize>,
    /// Where refused updates are counted (full.rs).
    pub dropped_map: Option<usize>,
    /// The enclosing loops' `continue` and `break` targets, innermost last.
    pub loops: Vec<(emit::Label, emit::Label)>,
    /// `for ($kv : @map)` bodies lowered as callbacks, placed after the program (map_for.rs),
    /// and the current function's references to them.
    pub callbacks: Vec<map_for::Callback>,
    pub callback_refs: Vec<(usize, usize)>,
    /// The `fn`s lowered into this program: (function, its index in `callbacks`).
    pub functions: Vec<(usize, usize)>,
    /// Calls of `fn`s are lowered in place (the global functions' frames did not fit).
    pub inline_functions: bool,
    /// The context's pointer arguments are typed by BTF (`rawtracepoint:` as tp_btf): the
    /// kernel lets their integer members be loaded directly (expr.rs).
    pub btf_ctx: bool,
    /// The frame is in scratch space, this program's element of this map (scratch.rs).
    pub scratch: Option<scratch::Scratch>,
}

fn is_interval(probe: &TProbe) -> bool {
    matches!(probe.sites[0].point, crate::model::site::AttachPoint::Interval { .. })
}

fn intervals(tp: &TProgram) -> usize {
    tp.probes.iter().filter(|p| is_interval(p)).count()
}

/// The maps after the user maps that every probe may use.
#[derive(Clone, Copy)]
struct ExtraMaps<'a> {
    stacks: &'a [(u8, usize)],
    stack_len: Option<usize>,
    dropped: Option<usize>,
}

/// The probe's program and the size of its frame in scratch space (0 when on the stack); on
/// error, whether the frame outgrew the stack (the probe is then lowered again with `scratch`).
/// Its `fn`s are called as BPF global functions where the frames of every chain of calls fit
/// the verifier's 512 bytes, lowered in place otherwise.
fn lower_probe(
    tp: &TProgram,
    probe: &TProbe,
    opts: &Options,
    extra: ExtraMaps,
    run_slot: Option<usize>,
    scratch: Option<scratch::Scratch>,
) -> Result<(ProgramDef, u32), (Diagnostic, bool)> {
    let lowered = match lower_probe_with(tp, probe, opts, extra, run_slot, scratch, false) {
        Err(Lowered::TooDeep) => lower_probe_with(tp, probe, opts, extra, run_slot, scratch, true),
        r => r,
    };
    lowered.map_err(|e| match e {
        Lowered::Refused(d, wants_scratch) => (d, wants_scratch),
        Lowered::TooDeep => (Diagnostic::error(probe.span, emit::STACK_SENTENCE), false),
    })
}

/// Why a lowering gave up: a mistake to report (and whether the frame outgrew the stack), or a
/// chain of calls too deep for global functions (the caller lowers them in place instead).
enum Lowered {
    Refused(Diagnostic, bool),
    TooDeep,
}

fn lower_probe_with(
    tp: &TProgram,
    probe: &TProbe,
    opts: &Options,
    extra: ExtraMaps,
    run_slot: Option<usize>,
    scratch: Option<scratch::Scratch>,
    inline: bool,
) -> Result<(ProgramDef, u32), Lowered> {
    let mut e = if scratch.is_some() { Emitter::scratch(0) } else { Emitter::new() };
    e.span = probe.span;
    let exit = e.label();
    let kind = probe.sites[0].kind;
    let mut lw = Lower {
        e,
        tp,
        opts,
        vars: Vec::new(),
        exit,
        stack_maps: extra.stacks,
        stack_len_map: extra.stack_len,
        dropped_map: extra.dropped,
        loops: Vec::new(),
        callbacks: Vec::new(),
        callback_refs: Vec::new(),
        functions: Vec::new(),
        inline_functions: inline,
        btf_ctx: kind == ProgKind::TpBtf,
        scratch,
    };
    lw.e.emit(Insn::mov64_reg(CTX, Reg::R1));
    if let Some(s) = scratch {
        lw.scratch_frame(s);
    }
    for (_, ty) in &probe.vars {
        let off = lw.e.alloc_stack(ty.slot_size());
        lw.vars.push((off, ty.slot_size()));
    }
    if map_for::loops_over_maps(&probe.body) {
        let size = lw.vars.iter().map(|&(off, _)| -(off as i32)).max().unwrap_or(0);
        lw.e.zero_stack(-(size as i16), size as usize);
    }
    // An interval's perf event is on one CPU: a plain increment of its own slot. Counted even
    // once stopped: the runs are set against the time until sonde reads them, which goes on
    // after an `exit()` stops the probes (misses.rs).
    if let Some(slot) = run_slot {
        lw.e.ld_map_value(Reg::R1, CONTROL_MAP, 8 * slot as i32);
        lw.e.emit(Insn::load(sonde_bpf::Size::DW, Reg::R2, Reg::R1, 0));
        lw.e.emit(Insn::alu64_imm(sonde_bpf::Alu::Add, Reg::R2, 1));
        lw.e.emit(Insn::store(sonde_bpf::Size::DW, Reg::R1, 0, Reg::R2));
    }
    // Stopped (see CONTROL_MAP): three instructions, no helper call. BEGIN and END run by hand;
    // an iterator runs while sonde reads it, to its end (an `exit()` there ends the run after).
    if !matches!(kind, ProgKind::RawTracepoint | ProgKind::Iter) {
        lw.e.ld_map_value(Reg::R1, CONTROL_MAP, 0);
        lw.e.emit(Insn::load(sonde_bpf::Size::DW, Reg::R1, Reg::R1, 0));
        lw.e.jmp_imm(sonde_bpf::Cond::Ne, Reg::R1, 0, exit);
    }
    // An iterator's last run, past its last object, has none (`ctx->task` is NULL): it is not
    // the program's to see. The object is the context's second pointer in every iterator.
    if kind == ProgKind::Iter {
        lw.e.emit(Insn::load(sonde_bpf::Size::DW, Reg::R1, CTX, 8));
        lw.e.jmp_imm(sonde_bpf::Cond::Eq, Reg::R1, 0, exit);
    }
    // -p / -c: only the traced process. BEGIN, END and iterators run in sonde itself and are
    // never filtered.
    if let (Some(pid), false) =
        (opts.filter_pid, matches!(kind, ProgKind::RawTracepoint | ProgKind::Iter))
    {
        lw.e.call(h::GET_CURRENT_PID_TGID);
        lw.e.emit(Insn::alu64_imm(sonde_bpf::Alu::Rsh, Reg::R0, 32));
        lw.e.jmp_imm(sonde_bpf::Cond::Ne, Reg::R0, pid as i32, exit);
    }
    if let Some(pred) = &probe.predicate {
        lw.e.span = pred.span;
        lw.branch(pred, false, exit);
    }
    lw.block(&probe.body);
    lw.e.bind(exit);
    lw.e.emit(Insn::mov64_imm(Reg::R0, 0));
    lw.e.emit(Insn::exit());
    let e = lw.e.finish();
    let depth = map_for::deepest_chain(&e, &lw.callback_refs, &lw.callbacks);
    if !lw.functions.is_empty() && depth > STACK_LIMIT {
        return Err(Lowered::TooDeep);
    }
    // The verifier adds a callback's frame to its caller's: a probe that fits the stack alone
    // may not with its loop bodies, and then goes to scratch space as a larger one does.
    if scratch.is_none() && depth > STACK_LIMIT {
        return Err(Lowered::Refused(Diagnostic::error(probe.span, emit::STACK_SENTENCE), true));
    }
    let frame = lw.callbacks.iter().map(|c| c.0.peak).fold(e.peak, i32::max);
    let functions = lw.functions;
    let (mut e, starts) = map_for::link(e, &lw.callback_refs, lw.callbacks);
    if scratch.is_some() {
        for &at in &e.frame_adds {
            e.insns[at].imm = frame;
        }
    }
    let is_function = |i: &usize| functions.iter().any(|&(_, sub)| sub == *i);
    let callbacks = (0..starts.len()).filter(|i| !is_function(i)).map(|i| starts[i]).collect();
    let functions = functions
        .iter()
        .map(|&(f, sub)| FunctionDef {
            name: tp.funcs[f].name.clone(),
            start: starts[sub],
            params: tp.funcs[f].params as u8,
        })
        .collect();
    if e.full() {
        return Err(Lowered::Refused(
            Diagnostic::error(
                probe.span,
                format!(
                "this probe needs {} BPF instructions; the kernel loads at most {} in one program \
                 (split the work across probes)",
                e.count,
                emit::MAX_INSNS
            ),
            ),
            false,
        ));
    }
    if let Some((span, msg)) = e.overflow {
        let wants_scratch = e.wants_scratch && scratch.is_none();
        return Err(Lowered::Refused(Diagnostic::error(span, msg), wants_scratch));
    }
    let frame = if scratch.is_some() { frame as u32 } else { 0 };
    let program = ProgramDef {
        name: probe.sites[0].point.describe(),
        kind,
        sites: probe.sites.clone(),
        insns: e.insns,
        relocs: e.relocs,
        spans: e.spans,
        run_slot,
        callbacks,
        functions,
    };
    Ok((program, frame))
}

/// The BPF helper ids this lowering calls (include/uapi/linux/bpf.h).
pub(crate) mod h {
    pub const MAP_LOOKUP_ELEM: u32 = 1;
    pub const MAP_UPDATE_ELEM: u32 = 2;
    pub const MAP_DELETE_ELEM: u32 = 3;
    pub const KTIME_GET_NS: u32 = 5;
    pub const GET_SMP_PROCESSOR_ID: u32 = 8;
    pub const GET_CURRENT_PID_TGID: u32 = 14;
    pub const GET_CURRENT_UID_GID: u32 = 15;
    pub const GET_CURRENT_COMM: u32 = 16;
    /// The original probe-read helpers pick kernel or user memory by the address on x86-64
    /// (non-overlapping address spaces). Pointers whose side is not known statically use them:
    /// a kprobe's `const char *filename` is a user address that no BTF type marks as such.
    pub const PROBE_READ: u32 = 4;
    pub const PROBE_READ_STR: u32 = 45;
    pub const PROBE_READ_USER: u32 = 112;
    pub const PROBE_READ_KERNEL: u32 = 113;
    pub const PROBE_READ_USER_STR: u32 = 114;
    pub const PROBE_READ_KERNEL_STR: u32 = 115;
    pub const GET_STACKID: u32 = 27;
    pub const GET_CURRENT_TASK: u32 = 35;
    pub const GET_CURRENT_CGROUP_ID: u32 = 80;
    pub const GET_PRANDOM_U32: u32 = 7;
    pub const JIFFIES64: u32 = 118;
    pub const GET_NUMA_NODE_ID: u32 = 42;
    pub const SEND_SIGNAL: u32 = 109;
    pub const RINGBUF_OUTPUT: u32 = 130;
    pub const GET_FUNC_IP: u32 = 173;
    pub const FOR_EACH_MAP_ELEM: u32 = 164;
    pub const LOOP: u32 = 181;
    pub const MAP_LOOKUP_PERCPU_ELEM: u32 = 195;
}
