//! Checks against the real host: its libc, bash, kallsyms, and this very process.

use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use sonde_symbols::maps::read_maps;
use sonde_symbols::*;

extern "C" {
    fn getpid() -> i32;
    fn fopen(path: *const u8, mode: *const u8) -> *mut u8;
}

/// Exported (see build.rs) so that it survives `strip = true` in .dynsym.
#[inline(never)]
#[no_mangle]
pub extern "C" fn sonde_symbols_probe_target(x: u64) -> u64 {
    std::hint::black_box(x).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 7
}

/// The libc.so.6 this test process has mapped.
fn mapped_libc() -> PathBuf {
    let maps = read_maps(std::process::id()).unwrap();
    maps.iter()
        .find(|m| m.path.ends_with("/libc.so.6"))
        .map(|m| PathBuf::from(&m.path))
        .expect("this test expects a glibc host")
}

/// Where file offset `off` of `path` is mapped in this process.
fn mapped_address(path: &Path, off: u64) -> u64 {
    let ino = std::fs::metadata(path).unwrap().ino();
    let maps = read_maps(std::process::id()).unwrap();
    let m = maps
        .iter()
        .find(|m| m.inode == ino && m.offset <= off && off < m.offset + (m.end - m.start))
        .expect("offset not mapped");
    m.start + off - m.offset
}

fn read_file(path: &Path, off: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0; len];
    File::open(path).unwrap().read_exact_at(&mut buf, off).unwrap();
    buf
}

fn read_self_mem(addr: u64, len: usize) -> Vec<u8> {
    read_file(Path::new("/proc/self/mem"), addr, len)
}

/// The uprobe file offset must hold the very bytes the loader mapped where
/// our own calls to the function go.
fn check_libc_function(name: &str, fn_addr: u64) {
    let libc = mapped_libc();
    let t0 = Instant::now();
    let t = resolve_symbol(&libc, name).unwrap();
    eprintln!("resolve_symbol({}, {name}) took {:?}: {t:?}", libc.display(), t0.elapsed());
    assert!(t.size > 0);
    let in_memory = mapped_address(&libc, t.offset);
    assert_eq!(in_memory, fn_addr, "{name}: file offset maps to where the function really is");
    let len = t.size.min(32) as usize;
    let (file, mem) = (read_file(&libc, t.offset, len), read_self_mem(in_memory, len));
    // An active uprobe anywhere on the system (sonde's own tests!) shows up as int3 (0xcc).
    let differing = file.iter().zip(&mem).filter(|(f, m)| f != m && **m != 0xcc).count();
    assert_eq!(differing, 0, "{name}: file {file:02x?} vs memory {mem:02x?}");
}

#[test]
fn libc_getpid_and_fopen() {
    check_libc_function("getpid", getpid as *const () as usize as u64);
    check_libc_function("fopen", fopen as *const () as usize as u64);
    let libc = mapped_libc();
    let v = resolve_symbol(&libc, "fopen@@GLIBC_2.2.5").unwrap();
    assert_eq!(v.offset, resolve_symbol(&libc, "fopen").unwrap().offset);
    // +OFF adds to the file offset, but only where an instruction starts: the offsets inside
    // fopen's first instruction are refused, the first one after it is accepted.
    let (off, plus) = (1..=15u64)
        .find_map(|off| match resolve_symbol(&libc, &format!("fopen+{off}")) {
            Ok(t) => Some((off, t)),
            Err(Error::OffsetInsideInstruction { starts: 0, next, .. }) if next > off => None,
            Err(e) => panic!("fopen+{off}: {e}"),
        })
        .expect("an instruction boundary in fopen's first 15 bytes");
    assert_eq!(plus.offset, v.offset + off);
    assert!(matches!(
        resolve_symbol(&libc, "fopen+0x100000"),
        Err(Error::OffsetOutsideSymbol { .. })
    ));
}

#[test]
fn missing_symbol_suggests_near_names() {
    let err = resolve_symbol(mapped_libc(), "fopne").unwrap_err();
    let msg = err.to_string();
    eprintln!("{msg}");
    assert!(
        matches!(&err, Error::SymbolNotFound { near, .. } if near.iter().any(|n| n == "fopen"))
    );
    assert!(msg.contains("did you mean"));
}

#[test]
fn a_function_glibc_moved_into_libc_is_named_there() {
    let libc = mapped_libc();
    let stub = libc.with_file_name("libpthread.so.0");
    if !stub.exists() {
        eprintln!("skipped: no {} beside libc", stub.display());
        return;
    }
    match resolve_symbol(&stub, "pthread_create") {
        // A glibc before 2.34 still has it in libpthread.
        Ok(_) => eprintln!("skipped: {} still has pthread_create", stub.display()),
        Err(err) => {
            let msg = err.to_string();
            assert!(matches!(&err, Error::SymbolInLibc { .. }), "{msg}");
            assert!(msg.contains("libc.so.6 (glibc 2.34 moved libpthread"), "{msg}");
        }
    }
    // A symbol libc lacks too keeps the plain answer.
    assert!(matches!(
        resolve_symbol(&stub, "no_such_function_xyz"),
        Err(Error::SymbolNotFound { .. })
    ));
}

#[test]
fn clear_errors_for_bad_files() {
    let e = resolve_symbol("/nonexistent/bin", "x").unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    let e = resolve_symbol("/etc/passwd", "x").unwrap_err();
    assert_eq!(e.to_string(), "/etc/passwd is not an ELF file");
}

#[test]
fn bash_readline() {
    let Ok(bash) = locate("bash") else {
        eprintln!("note: no bash in $PATH; skipping");
        return;
    };
    match resolve_symbol(&bash, "readline") {
        Ok(t) => {
            eprintln!("bash:readline = {t:?}");
            let len = std::fs::metadata(&bash).unwrap().len();
            assert!(t.offset > 0 && t.offset < len && t.size > 0);
            // The text at that offset is the function: it does not start with zeros.
            assert_ne!(read_file(&bash, t.offset, 4), [0; 4]);
        }
        Err(e) => eprintln!("note: this bash has no readline symbol: {e}"),
    }
    let fns = functions(&bash).unwrap();
    assert!(fns.windows(2).all(|w| w[0].name < w[1].name));
    eprintln!("{} has {} function symbols", bash.display(), fns.len());
}

#[test]
fn libc_name_finds_the_mapped_libc() {
    let mapped = mapped_libc();
    let found = locate("libc").unwrap();
    eprintln!("libc -> {} (mapped: {})", found.display(), mapped.display());
    let (a, b) = (std::fs::metadata(&found).unwrap(), std::fs::metadata(&mapped).unwrap());
    assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()));
    assert_eq!(locate_for_pid("libc", std::process::id()).unwrap(), mapped);
    assert_eq!(locate("c").unwrap(), found);
    assert!(matches!(locate("no_such_library_xyz"), Err(Error::NotFound { .. })));
    assert!(matches!(locate_for_pid("libc", u32::MAX - 1), Err(Error::NoSuchProcess { .. })));
}

#[test]
fn mapped_files_are_the_binary_and_its_libraries_once_each() {
    let files = sonde_symbols::locate::mapped_files(std::process::id()).unwrap();
    let me = std::fs::canonicalize("/proc/self/exe").unwrap();
    assert!(files.iter().any(|f| std::fs::canonicalize(f).unwrap() == me), "{files:?}");
    assert!(files.contains(&mapped_libc()), "{files:?}");
    let mut unique = files.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), files.len(), "{files:?}");
}

#[test]
fn own_process_addresses_to_names() {
    assert_ne!(sonde_symbols_probe_target(1), 0);
    let mut p = ProcessSymbols::for_pid(std::process::id());
    let addr = sonde_symbols_probe_target as *const () as usize as u64;
    let s = p.resolve(addr + 1).unwrap();
    eprintln!("{} -> {s:?}", p.format(addr + 1));
    assert_eq!(s.symbol.as_deref(), Some("sonde_symbols_probe_target"));
    assert_eq!(s.offset, 1);
    // Stack frames as bpftrace prints them: the offset in decimal, the file in perf's mode.
    // The offset in decimal: +12 where the function is that long (optimised, it may be shorter).
    let off = match p.resolve(addr + 12) {
        Some(far) if far.symbol == s.symbol => 12,
        _ => 1,
    };
    assert_eq!(p.frame(addr + off, false), format!("sonde_symbols_probe_target+{off}"));
    assert_eq!(p.frame(addr, true), format!("sonde_symbols_probe_target+0 ({})", s.file));
    // A shared library too.
    let s = p.resolve(getpid as *const () as usize as u64).unwrap();
    assert_eq!(s.symbol.as_deref(), Some("getpid"), "not its alias __getpid");
    assert!(s.file.ends_with("libc.so.6"));
    let s = p.resolve(fopen as *const () as usize as u64).unwrap();
    assert_eq!(s.symbol.as_deref(), Some("fopen"), "not its alias fopen64");
}

#[test]
fn kallsyms_round_trip() {
    let t0 = Instant::now();
    let k = match KernelSymbols::spawn_load().wait() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("note: skipping: {e}");
            return;
        }
    };
    let load = t0.elapsed();
    let t1 = Instant::now();
    let addr = k.address("schedule").expect("schedule in kallsyms");
    let by_name = t1.elapsed();
    let t2 = Instant::now();
    let s = k.resolve(addr + 4).unwrap();
    let by_addr = t2.elapsed();
    eprintln!(
        "kallsyms: {} symbols loaded in {load:?}; first name lookup {by_name:?}; resolve {by_addr:?}",
        k.len()
    );
    assert_eq!((s.name, s.offset, s.module), ("schedule", 4, None));
    assert_eq!(s.address, addr);
    // Known aliases at the start of the kernel image resolve to one stable name.
    let text = k.address("_text").unwrap();
    assert_eq!(k.resolve(text).unwrap().address, text);
}
