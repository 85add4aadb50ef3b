//! Detaching several tracepoints: one by one, and with `detach_all`.
//!
//!     detach_timing [N]     (N tracepoints from the sched category, default 4)

use sonde_bpf::insn::encode;
use sonde_bpf::{Insn, Reg};
use sonde_kernel::attach::link::{detach_all, Link};
use sonde_kernel::attach::tracepoint::attach_tracepoint;
use sonde_kernel::object::prog::{ProgSpec, ProgType, Program};
use sonde_kernel::tracefs::Tracefs;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(4);
    let insns = encode(&[Insn::mov64_imm(Reg::R0, 0), Insn::exit()]);
    let spec = ProgSpec {
        prog_type: ProgType::Tracepoint,
        insns: &insns,
        license: "GPL",
        name: "timing",
        expected_attach_type: None,
        attach_btf_id: None,
    };
    let t = Tracefs::find_or_mount().unwrap();
    let ids: Vec<u64> = t
        .list_tracepoints()
        .unwrap()
        .iter()
        .filter(|(c, _)| c == "sched")
        .take(n)
        .map(|(c, name)| t.tracepoint_id(c, name).unwrap())
        .collect();
    // A fresh program each time, as a run of sonde loads its own.
    let attach = || -> Vec<Link> {
        let prog = Program::load(&spec).unwrap();
        ids.iter().map(|&id| attach_tracepoint(&prog, id).unwrap()).collect()
    };
    for round in 0..3 {
        let links = attach();
        let t0 = Instant::now();
        drop(links);
        let seq = t0.elapsed();
        let links = attach();
        let t0 = Instant::now();
        detach_all(links);
        let all = t0.elapsed();
        println!(
            "round {round}: {} tracepoints: one by one {:?}, detach_all {:?}",
            ids.len(),
            seq,
            all
        );
    }
}
