//! Measures attach and detach of one program, the numbers behind perf_attach.rs's choices.
//!
//!     attach_timing METHOD CATEGORY:NAME [ROUNDS]
//!
//! METHOD is `link` (BPF_LINK_CREATE on a perf event), `ioctl` (PERF_EVENT_IOC_SET_BPF), `raw`
//! (BPF_RAW_TRACEPOINT_OPEN on NAME) or `clock` (a 10 ms CPU-clock perf event on CPU 0; the
//! tracepoint is then ignored). Prints one line per round: attach and detach in microseconds.

use sonde_bpf::insn::encode;
use sonde_bpf::{Insn, Reg};
use sonde_kernel::attach::perf_attach::PerfAttach;
use sonde_kernel::attach::perf_event::{attach_perf_event, PerfEventSpec};
use sonde_kernel::attach::tracepoint::{attach_raw_tracepoint, attach_tracepoint_with};
use sonde_kernel::object::prog::{ProgSpec, ProgType, Program};
use sonde_kernel::tracefs::Tracefs;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let method = args.get(1).map(String::as_str).unwrap_or("link");
    let tp = args.get(2).map(String::as_str).unwrap_or("syscalls:sys_enter_getpid");
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let (cat, name) = tp.split_once(':').expect("CATEGORY:NAME");
    let prog_type = match method {
        "raw" => ProgType::RawTracepoint,
        "clock" => ProgType::PerfEvent,
        _ => ProgType::Tracepoint,
    };
    let insns = encode(&[Insn::mov64_imm(Reg::R0, 0), Insn::exit()]);
    let prog = Program::load(&ProgSpec {
        prog_type,
        insns: &insns,
        license: "GPL",
        name: "timing",
        expected_attach_type: None,
        attach_btf_id: None,
    })
    .unwrap();
    let id = if method == "clock" {
        0
    } else {
        Tracefs::find_or_mount().unwrap().tracepoint_id(cat, name).unwrap()
    };
    for _ in 0..rounds {
        let t0 = Instant::now();
        let link = match method {
            "link" => attach_tracepoint_with(&prog, id, PerfAttach::Link),
            "ioctl" => attach_tracepoint_with(&prog, id, PerfAttach::Ioctl),
            "raw" => attach_raw_tracepoint(&prog, name),
            "clock" => attach_perf_event(&prog, PerfEventSpec::cpu_clock(10_000_000, 0)),
            _ => panic!("method: link, ioctl or raw"),
        }
        .unwrap();
        let t1 = Instant::now();
        drop(link);
        let t2 = Instant::now();
        println!(
            "{method} {tp} attach_us {} detach_us {}",
            (t1 - t0).as_micros(),
            (t2 - t1).as_micros()
        );
    }
}
