//! Measures what sonde pays at start-up for kernel types:
//! `cargo run --release -p sonde-btf --example load_time`.
//!
//! Each run is a fresh load (as in a new sonde process), timed as: load (map/read + index),
//! then the lookups a typical script makes (a function, a struct, a member, a type name).

use std::time::{Duration, Instant};

use sonde_btf::{Btf, NamedKind};

const RUNS: usize = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut loads = Vec::new();
    let mut lookups = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let btf = Btf::load_vmlinux()?;
        loads.push(t.elapsed());

        let t = Instant::now();
        let f = btf.find_func("wake_up_new_task").ok_or("no wake_up_new_task")?;
        let task = btf.find_named(NamedKind::Struct, "task_struct").ok_or("no task_struct")?;
        let comm = btf.member(task, "comm").ok_or("no comm")?;
        let name = btf.type_name(f.params[0].ty);
        lookups.push(t.elapsed());
        std::hint::black_box((comm, name));
    }
    let btf = Btf::load_vmlinux()?;
    println!("vmlinux BTF: {} types, {} functions", btf.max_id(), btf.func_count());
    report("load (map + index)", &mut loads);
    report("find_func + find_named + member + type_name", &mut lookups);

    let t = Instant::now();
    let n = btf.funcs().filter(|(name, _)| name.starts_with("tcp_")).count();
    println!("funcs() glob tcp_*: {n} matches in {:?}", t.elapsed());

    let t = Instant::now();
    let bytes = std::fs::read(Btf::VMLINUX_PATH)?;
    let read = t.elapsed();
    let t = Instant::now();
    Btf::from_bytes(bytes)?;
    println!("for comparison: std::fs::read {read:?}, index of the read copy {:?}", t.elapsed());
    Ok(())
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    println!(
        "{what}: min {:?}, median {:?}, max {:?} ({} runs)",
        times[0],
        times[times.len() / 2],
        times[times.len() - 1],
        times.len()
    );
}
