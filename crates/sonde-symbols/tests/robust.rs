//! Garbage in, errors out: truncated and corrupted ELF files never panic.

use std::path::Path;

use sonde_symbols::{Blacklist, ElfSymbols, KernelSymbols, TraceableFunctions};

/// Deterministic xorshift, so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn exercise(data: &[u8]) {
    let p = Path::new("fuzzed");
    if let Ok(e) = ElfSymbols::parse(p, data) {
        let _ = e.resolve("fopen");
        let _ = e.resolve("fopen+4");
        let _ = e.resolve("fopen@@GLIBC_2.2.5");
        let _ = e.resolve("nonexistent_symbol");
        let fns = e.functions();
        for f in fns.iter().take(50) {
            let _ = e.symbol_at(f.address.wrapping_add(1));
            let _ = e.vaddr_to_file_offset(f.address);
        }
        let _ = e.file_offset_to_vaddr(u64::MAX);
        let _ = e.symbol_at(u64::MAX);
    }
}

fn sample_elf() -> Vec<u8> {
    // libc has versions, both tables and several segments: the richest sample around.
    std::fs::read("/usr/lib/x86_64-linux-gnu/libc.so.6")
        .or_else(|_| std::fs::read("/proc/self/exe"))
        .unwrap()
}

#[test]
fn truncated_elf() {
    let data = sample_elf();
    let mut rng = Rng(0x5eed);
    let mut cuts: Vec<usize> = (0..128).chain([4, 16, 52, 63, 64, 65]).collect();
    cuts.extend((0..150).map(|_| rng.next() as usize % data.len()));
    for cut in cuts {
        exercise(&data[..cut.min(data.len())]);
    }
}

#[test]
fn corrupted_elf() {
    let data = sample_elf();
    let mut rng = Rng(0xbad_c0de);
    for round in 0..300 {
        let mut d = data.clone();
        // Mostly the headers, where damage is most interesting; sometimes anywhere.
        let span = if round % 3 == 0 { d.len() } else { 4096.min(d.len()) };
        for _ in 0..(1 + rng.next() % 8) {
            let i = rng.next() as usize % span;
            d[i] = rng.next() as u8;
        }
        exercise(&d);
    }
}

#[test]
fn truncated_files_on_disk() {
    let data = sample_elf();
    let path = std::env::temp_dir().join(format!("sonde-trunc-{}", std::process::id()));
    for cut in [0, 10, 64, 1000, 100_000, data.len() - 1] {
        std::fs::write(&path, &data[..cut.min(data.len())]).unwrap();
        match sonde_symbols::resolve_symbol(&path, "fopen") {
            Ok(t) => eprintln!("cut {cut}: {t:?}"),
            Err(e) => eprintln!("cut {cut}: {e}"),
        }
        let _ = sonde_symbols::functions(&path);
    }
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn text_parsers_take_anything() {
    let mut rng = Rng(42);
    for _ in 0..50 {
        let junk: Vec<u8> = (0..4000).map(|_| rng.next() as u8 % 96 + 9).collect();
        let text = String::from_utf8_lossy(&junk);
        let k = KernelSymbols::parse(junk.clone());
        let _ = (k.resolve(rng.next()), k.address("a"), k.names().count());
        let t = TraceableFunctions::parse(&text);
        let b = Blacklist::parse(&text);
        let _ = t.matches("*[a-", &b, k.names());
        let _ = sonde_symbols::maps::parse_maps(&text);
        let _ = sonde_symbols::locate::parse_ld_so_conf(&text);
    }
}
