//! A user binary's types, read from its DWARF as BTF: a C program with a struct of its own,
//! built by the system's C compiler (the one cargo links with) in each DWARF version.

use std::path::{Path, PathBuf};
use std::process::Command;

use sonde_btf::{Btf, Kind, NamedKind, TypeId};
use sonde_symbols::user_types::{user_types, NoTypes};

const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tprog.c");

/// `tprog.c` built with `flags` into a directory of its own.
fn build(tag: &str, flags: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sonde-user-types-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("tprog");
    let status = Command::new("cc").args(flags).arg("-o").arg(&out).arg(SOURCE).status().unwrap();
    assert!(status.success(), "cc {flags:?} failed");
    out
}

/// A directory removed when dropped.
struct Gone(PathBuf);

impl Drop for Gone {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn member(btf: &Btf, id: TypeId, name: &str) -> (u32, u32, String) {
    let m = btf.member(id, name).unwrap_or_else(|| panic!("no member {name}"));
    (m.bit_offset, m.bitfield_size, btf.type_name(m.ty))
}

/// Offsets as C lays `struct pt` out on x86-64 (the build's directory removed after).
fn check_pt(path: &Path) {
    let _gone = Gone(path.parent().unwrap().to_path_buf());
    let btf = user_types(path).unwrap();
    let pt = btf.find_named(NamedKind::Struct, "pt").expect("struct pt");
    assert_eq!(btf.size_of(pt), Some(48));
    assert_eq!(member(&btf, pt, "x"), (0, 0, "int".into()));
    assert_eq!(member(&btf, pt, "y"), (64, 0, "long int".into()));
    assert_eq!(member(&btf, pt, "name"), (128, 0, "char[8]".into()));
    assert_eq!(member(&btf, pt, "flag"), (192, 3, "unsigned int".into()));
    assert_eq!(member(&btf, pt, "mode"), (195, 5, "unsigned int".into()));
    assert_eq!(member(&btf, pt, "grid"), (208, 0, "short int[2][3]".into()));
    assert_eq!(member(&btf, pt, "next"), (320, 0, "struct pt *".into()));
    let signed = |name: &str| match btf.kind(btf.member(pt, name).unwrap().ty) {
        Kind::Int { signed, .. } => signed,
        k => panic!("{name} is {k:?}"),
    };
    assert!(signed("x") && signed("y") && !signed("flag"));
    // Functions with their parameters' names and types, for uprobe arguments.
    let work = btf.find_func("work").expect("func work");
    let params: Vec<(String, String)> =
        work.params.iter().map(|p| (p.name.clone(), btf.type_name(p.ty))).collect();
    assert_eq!(params, [("p".to_string(), "struct pt *".to_string())]);
    assert_eq!(btf.type_name(work.ret), "int");
    let main = btf.find_func("main").expect("func main");
    let names: Vec<&str> = main.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["argc", "argv"]);
    assert_eq!(btf.type_name(main.params[1].ty), "char **");
}

#[test]
fn a_struct_of_the_program_is_read_from_dwarf_5_and_4() {
    check_pt(&build("dwarf5", &["-g", "-gdwarf-5", "-O1"]));
    check_pt(&build("dwarf4", &["-g", "-gdwarf-4", "-O1"]));
    check_pt(&build("dwarf2", &["-g", "-gdwarf-2", "-gstrict-dwarf", "-O1"]));
}

#[test]
fn the_types_come_from_a_separate_debug_file_named_by_debuglink() {
    let bin = build("debuglink", &["-g", "-O1"]);
    let dir = bin.parent().unwrap();
    let objcopy = |args: &[&str]| {
        let ok = Command::new("objcopy").args(args).current_dir(dir).status();
        ok.map(|s| s.success()).unwrap_or(false)
    };
    if !objcopy(&["--only-keep-debug", "tprog", "tprog.debug"]) {
        eprintln!("skipped: no objcopy");
        return;
    }
    assert!(objcopy(&["--strip-debug", "--add-gnu-debuglink=tprog.debug", "tprog"]));
    check_pt(&bin);
}

#[test]
fn a_binary_without_debug_info_says_so_in_one_sentence() {
    let bin = build("nodebug", &["-g0", "-O1"]);
    let _gone = Gone(bin.parent().unwrap().to_path_buf());
    let err = user_types(&bin).unwrap_err();
    assert_eq!(err, NoTypes::None { path: bin.clone() });
    let text = err.to_string();
    assert!(text.contains("has no type information"), "{text}");
    assert!(text.contains("the kernel's types do not apply"), "{text}");
}

/// A fixed-address executable (`-no-pie`) names its functions' addresses with no process to
/// read (it exited); a position-independent one cannot, its addresses depend on the process.
#[test]
fn fixed_address_executables_name_addresses_without_a_process() {
    use sonde_symbols::{ElfSymbols, Symbolizer};
    let fixed = build("no-pie", &["-g", "-no-pie"]);
    let _gone = Gone(fixed.parent().unwrap().to_path_buf());
    let main = ElfSymbols::load(&fixed).unwrap().resolve("main").unwrap();
    let elf = ElfSymbols::load(&fixed).unwrap();
    let addr = elf.file_offset_to_vaddr(main.offset).unwrap();
    // No live process has this pid: only the executable's own symbols can name the address.
    let mut s = Symbolizer::new(None).with_executables([fixed.as_path()]);
    assert_eq!(s.usym(addr + 4).as_deref(), Some("main+0x4"));
    assert_eq!(s.frames(&[addr + 4], Some(u32::MAX), false), ["main+4"]);
    let pie = build("pie", &["-g", "-pie", "-fPIE"]);
    let _gone_pie = Gone(pie.parent().unwrap().to_path_buf());
    let mut s = Symbolizer::new(None).with_executables([pie.as_path()]);
    assert_eq!(s.usym(addr + 4), None);
}
