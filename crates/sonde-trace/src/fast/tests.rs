use super::*;
use crate::fixtures::fixtures;
use crate::program::Mode;
use crate::select::Selection;
use crate::syscalls::SyscallTable;
use sonde_compile::provider::{ProgKind, Site};
use sonde_compile::ProgramDef;

/// What the compiler makes of the summary, as far as `rewrite` looks: the three runtime maps
/// and the raw tracepoints' programs (the fixtures have no BTF to compile those against; the
/// host test `summary_of_every_syscall_counts_each_thread_as_strace_c` loads the real ones).
fn compiled() -> Compiled {
    let map = |name: &str, kind| MapDef {
        name: name.into(),
        kind,
        key_size: 4,
        value_size: 8,
        max_entries: 1,
    };
    let prog = |name: &str| ProgramDef {
        name: name.into(),
        kind: ProgKind::TpBtf,
        sites: vec![Site::new(
            AttachPoint::RawTracepoint { name: name.into(), btf_id: 7 },
            ProgKind::TpBtf,
        )],
        insns: vec![Insn::mov64_imm(Reg::R0, 0), Insn::exit()],
        relocs: Vec::new(),
        spans: vec![Default::default(); 2],
        run_slot: None,
        callbacks: Vec::new(),
        functions: Vec::new(),
    };
    Compiled {
        maps: vec![
            map("events", MapKind::RingBuf),
            map("lost", MapKind::PerCpuArray),
            map("control", MapKind::Array),
            map("st", MapKind::Hash),
        ],
        programs: vec![prog("sys_enter"), prog("sys_exit"), prog("sched_switch")],
        events: Vec::new(),
        user_maps: Vec::new(),
        stack_maps: Vec::new(),
        dropped_map: None,
    }
}

fn summary<'a>(t: &'a SyscallTable, sel: &'a Selection) -> Plan<'a> {
    Plan {
        targets: Targets::AllBut(42),
        follow: false,
        mode: Mode::Summary,
        uid: Some(1000),
        cpus: vec![0, 3],
        raw_tracepoints: true,
        copies: false,
        ..crate::fixtures::plan(t, sel)
    }
}

/// Every jump lands inside the program, every map load names a map, the program ends in exit.
fn well_formed(p: &ProgramDef, maps: usize) {
    let text = sonde_bpf::disasm(&p.insns).join("\n");
    for (at, i) in p.insns.iter().enumerate() {
        let class = i.code & 0x07;
        let op = i.code & 0xf0;
        if (class == 0x05) && op != 0x80 && op != 0x90 {
            let to = at as i64 + 1 + i.off as i64;
            assert!((0..p.insns.len() as i64).contains(&to), "{at}: {text}");
        }
    }
    for &(at, map) in &p.relocs {
        assert!(p.insns[at].is_ld_imm64() && map < maps, "{at}: {text}");
    }
    assert_eq!(p.insns.last(), Some(&Insn::exit()));
    assert_eq!(p.spans.len(), p.insns.len());
}

fn calls(p: &ProgramDef, helper: &str) -> usize {
    sonde_bpf::disasm(&p.insns).iter().filter(|l| l.contains(helper)).count()
}

#[test]
fn the_summary_pair_looks_one_row_up_at_each_end() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sel = Selection::everything(&t);
    let mut c = compiled();
    let m = rewrite(&mut c, &summary(&t, &sel)).unwrap();
    assert_eq!((m.calls, m.errs, m.slot, m.moved), (4, 5, 6, 7));
    assert_eq!(c.maps[m.calls].key_size, 16);
    assert_eq!(c.maps[m.calls].value_size, 40);
    assert_eq!(c.maps[m.errs].key_size, 24);
    assert_eq!(c.maps[m.slot].kind, MapKind::PerCpuArray);
    // The language's own start map is left unused: one entry.
    assert_eq!(c.maps[3].max_entries, 1);
    let (enter, exit, switch) = (&c.programs[0], &c.programs[1], &c.programs[2]);
    for p in [enter, exit, switch] {
        well_formed(p, c.maps.len());
    }
    let uses = |p: &ProgramDef, map: usize| p.relocs.iter().filter(|r| r.1 == map).count();
    // Entry: this CPU's slot only, no hash.
    assert_eq!(calls(enter, "bpf_map_lookup_elem"), 1);
    assert_eq!((uses(enter, m.slot), uses(enter, m.calls), uses(enter, m.moved)), (1, 0, 0));
    assert_eq!(calls(enter, "bpf_ktime_get_ns"), 1);
    // Exit: the slot (or the moved one), the row, the errno's.
    assert_eq!(uses(exit, m.slot), 2, "this CPU's, again only when an errno row was refused");
    assert_eq!(uses(exit, m.moved), 2, "looked up, deleted once used");
    assert_eq!(uses(exit, m.calls), 2, "looked up, inserted when missing");
    assert_eq!(calls(exit, "bpf_ktime_get_ns"), 1);
    // Each refused insert is counted in this CPU's slot head, no helper on the way.
    let text = sonde_bpf::disasm(&exit.insns).join("\n");
    assert!(text.contains(&format!("*(u64 *)(r6 +{FULL_CALLS}) = r1")), "{text}");
    assert!(text.contains(&format!("*(u64 *)(r0 +{FULL_ERRNOS}) = r1")), "{text}");
    let text = sonde_bpf::disasm(&switch.insns).join("\n");
    assert!(text.contains(&format!("*(u64 *)(r6 +{FULL_MOVED}) = r1")), "{text}");
    assert_eq!(c.maps[m.calls].max_entries, ENTRIES);
    let mut small = compiled();
    let m = rewrite(&mut small, &Plan { summary_rows: Some(8), ..summary(&t, &sel) }).unwrap();
    let sizes = [m.calls, m.errs, m.moved].map(|i| small.maps[i].max_entries);
    assert_eq!(sizes, [8, 8, 8], "--summary-rows");
    // A switch moves the slot of the task leaving.
    assert_eq!((uses(switch, m.slot), uses(switch, m.moved)), (1, 1));
    assert_eq!(calls(switch, "bpf_map_update_elem"), 1);
    // The targets, -u and -C, at both ends.
    for p in [enter, exit] {
        let text = sonde_bpf::disasm(&p.insns).join("\n");
        assert!(text.contains("if r8 == 0x2a goto"), "not sonde itself: {text}");
        assert!(text.contains("call bpf_get_current_uid_gid"), "{text}");
        assert!(text.contains("if r0 != 0x3e8 goto"), "-u 1000: {text}");
        assert!(text.contains("if r0 == 0x3 goto"), "-C 0,3: {text}");
    }
    // exit and exit_group never return: no slot.
    let text = sonde_bpf::disasm(&enter.insns).join("\n");
    assert!(text.contains(&format!("if r7 == {:#x} goto", libc::SYS_exit_group)), "{text}");
}

#[test]
fn only_raw_summaries_with_an_inline_set_are_rewritten() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sel = Selection::everything(&t);
    let mut c = compiled();
    let lines = Plan { mode: Mode::Lines, ..summary(&t, &sel) };
    assert!(rewrite(&mut c, &lines).is_none());
    let filter = crate::filter::Filter::parse("uid == 0").ok();
    let filtered = Plan { filter, ..summary(&t, &sel) };
    assert!(rewrite(&mut c, &filtered).is_none());
    let perf = Plan { raw_tracepoints: false, ..summary(&t, &sel) };
    assert!(rewrite(&mut c, &perf).is_none());
    assert_eq!(c.maps.len(), 4, "nothing added");
    // A few syscalls: compared inline at entry, where the slot is written.
    let few = Selection::parse("getpid,openat", &t).unwrap();
    let few_plan = summary(&t, &few);
    assert!(rewrite(&mut c, &few_plan).is_some());
    let text = sonde_bpf::disasm(&c.programs[0].insns).join("\n");
    for nr in &few.nrs {
        assert!(text.contains(&format!("if r7 == {nr:#x} goto")), "{nr}: {text}");
    }
}

#[test]
fn each_cpus_rows_add_to_their_owners_hash_rows() {
    let u = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let row = |r: [u64; 5]| u(&r);
    // A CPU's slot: the head (tid, syscall, start, owner, then the refused inserts: calls,
    // errnos, moved), then rows by syscall number.
    let slot = |owner: u64, rows: &[(usize, [u64; 5])]| {
        let mut b = u(&[0, 0, 0, owner, 0, 0, 0]);
        b.resize(SLOT_HEAD + SLOT_ROWS * ROW_BYTES as usize, 0);
        for (nr, r) in rows {
            let at = SLOT_HEAD + nr * ROW_BYTES as usize;
            b[at..at + ROW_BYTES as usize].copy_from_slice(&row(*r));
        }
        b
    };
    // Thread 7 read (nr 0) on CPU 0 (its own), on CPU 1 (thread 9's: the hash) and on CPU 2
    // (its own again); thread 9 wrote (nr 1) on CPU 1; nobody owns CPU 3.
    let slots = vec![
        slot(7, &[(0, [2, 30, 10, 20, 4])]),
        slot(9, &[(1, [1, 5, 5, 5, 0])]),
        slot(7, &[(0, [1, 4, 4, 4, 0])]),
        slot(0, &[]),
    ];
    let mut slots = slots;
    // CPU 1 could insert no row for 3 calls and no errno for 1; CPU 3 could move no start for 2.
    slots[1][FULL_CALLS as usize] = 3;
    slots[1][FULL_ERRNOS as usize] = 1;
    slots[3][FULL_MOVED as usize] = 2;
    let calls = vec![(u(&[7, 0]), row([3, 90, 25, 35, 8])), (u(&[9, 2]), row([0, 0, 0, 0, 0]))];
    let errs = vec![(u(&[7, 0, 11]), u(&[2])), (u(&[9, 1, 4]), u(&[1]))];
    let (s, lost) = crate::fast::summary(&calls, &slots, &errs);
    assert_eq!(lost, NotCounted { calls: 5, errnos: 1 });
    let read = &s.rows[&(7, 0)];
    assert_eq!(
        (read.calls, read.total_ns, read.min_ns, read.max_ns, read.squares),
        (6, 124, 4, 35, 12)
    );
    assert_eq!(read.errnos.get(&11), Some(&2));
    let write = &s.rows[&(9, 1)];
    assert_eq!((write.calls, write.min_ns, write.errors()), (1, 5, 1));
    // A row whose calls never returned counts nothing.
    assert_eq!(s.rows.len(), 2, "{:?}", s.rows.keys());
}
