//! Finding a binary's DWARF where it is kept (a debug file named by `.gnu_debuglink` and checked
//! by its CRC, a build-id path, a `--debuginfo` directory, split DWARF's `.dwo` and `.dwp`), and
//! source lines through its line tables: `tests/fixtures/tprog.c` built by the system's C
//! compiler and taken apart by binutils.

use std::path::{Path, PathBuf};
use std::process::Command;

use sonde_symbols::debuginfo::lines::{line_address as place_address, LineError, SourcePlace};
use sonde_symbols::debuginfo::{set_search_dirs, DebugInfo, NoDebugInfo};
use sonde_symbols::user_types::{user_types, NoTypes};
use sonde_symbols::{resolve_symbol, ElfSymbols};

const SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tprog.c");

/// A directory of its own, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("sonde-debuginfo-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn run(&self, program: &str, args: &[&str]) -> bool {
        let status = Command::new(program).args(args).current_dir(&self.0).status();
        status.map(|s| s.success()).unwrap_or(false)
    }

    /// `tprog.c` built here as `name` with `flags` (at -O0, with a build-id).
    fn build(&self, name: &str, flags: &[&str]) -> PathBuf {
        let mut args = vec!["-O0", "-Wl,--build-id"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["-o", name, SOURCE]);
        assert!(self.run("cc", &args), "cc {args:?} failed");
        self.0.join(name)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn has_tool(name: &str) -> bool {
    Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `work`'s parameters, as read from wherever the binary's DWARF is.
fn work_params(binary: &Path) -> Vec<String> {
    let btf = user_types(binary).unwrap();
    let work = btf.find_func("work").expect("func work");
    work.params.iter().map(|p| format!("{} {}", btf.type_name(p.ty), p.name)).collect()
}

fn line_address(info: &DebugInfo, file: &str, line: u64) -> Result<u64, LineError> {
    place_address(info, &SourcePlace { file, line, column: None })
}

/// Line 17 is `work`'s opening brace: at -O0 its first statement is the function's first byte.
fn check_lines(binary: &Path) {
    let info = DebugInfo::of(binary).unwrap();
    let work = ElfSymbols::load(binary).unwrap().resolve("work").unwrap().address;
    assert_eq!(line_address(&info, "tprog.c", 17), Ok(work));
    assert_eq!(line_address(&info, "fixtures/tprog.c", 17), Ok(work));
    let main = ElfSymbols::load(binary).unwrap().resolve("main").unwrap().address;
    assert_eq!(line_address(&info, "tprog.c", 23), Ok(main));
    let err = line_address(&info, "tprog.c", 18).unwrap_err();
    assert_eq!(
        err,
        LineError::NoCode { file: "tprog.c".into(), line: 18, before: Some(17), after: Some(19) }
    );
    assert_eq!(
        err.to_string(),
        "line 18 of tprog.c has no code: the nearest lines with code are 17 and 19"
    );
    let err = line_address(&info, "other.c", 17).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("the line tables of {} name no source file `other.c`", binary.display())
    );
    // A name matches whole path components only.
    assert!(line_address(&info, "prog.c", 17).is_err());
    // Line 28's `for` has statements at several columns: the loop's start is at its first.
    let at = |column| place_address(&info, &SourcePlace { file: "tprog.c", line: 28, column });
    let first = at(None).unwrap();
    assert_eq!(at(Some(11)), Ok(first));
    let err = at(Some(3)).unwrap_err();
    let LineError::NoColumn { columns, .. } = &err else { panic!("{err}") };
    assert!(columns.len() > 1 && columns.contains(&11), "{err}");
    assert!(
        err.to_string().starts_with(
            "line 28 of tprog.c has no statement at column 3: its statements start at column "
        ),
        "{err}"
    );
}

#[test]
fn lines_are_found_in_the_line_tables() {
    let dir = Dir::new("lines");
    check_lines(&dir.build("tprog", &["-g"]));
}

#[test]
fn a_debuglink_is_followed_beside_the_binary_and_in_dot_debug_when_its_crc_matches() {
    if !has_tool("objcopy") {
        eprintln!("skipped: no objcopy");
        return;
    }
    let dir = Dir::new("debuglink");
    let bin = dir.build("tprog", &["-g"]);
    std::fs::create_dir(dir.0.join(".debug")).unwrap();
    assert!(dir.run("objcopy", &["--only-keep-debug", "tprog", ".debug/tprog.dbg"]));
    assert!(dir.run("objcopy", &["--strip-debug", "tprog"]));
    assert!(dir.run("objcopy", &["--add-gnu-debuglink=.debug/tprog.dbg", "tprog"]));
    assert_eq!(work_params(&bin), ["struct pt * p"]);
    check_lines(&bin);
    assert_eq!(DebugInfo::of(&bin).unwrap().path, dir.0.join(".debug/tprog.dbg"));
    // Another build's debug file under the same name: its CRC differs, it is not taken.
    dir.build("other", &["-g", "-O1"]);
    assert!(dir.run("objcopy", &["--only-keep-debug", "other", ".debug/tprog.dbg"]));
    assert_eq!(user_types(&bin).unwrap_err(), NoTypes::None { path: bin.clone() });
    let err = DebugInfo::of(&bin).err().unwrap();
    assert_eq!(err, NoDebugInfo::None { path: bin.clone() });
}

/// `--debuginfo DIR` (one test: the directories are the process's): DIR/.build-id/xx/rest.debug,
/// then DIR/NAME.debug for a binary with no debuglink, checked by build-id; a relative DIR is
/// read from the binary's directory.
#[test]
fn debuginfo_directories_are_searched_by_build_id_and_by_name() {
    if !has_tool("objcopy") || !has_tool("readelf") {
        eprintln!("skipped: no objcopy or readelf");
        return;
    }
    let dir = Dir::new("dirs");
    let bin = dir.build("tprog", &["-g"]);
    assert!(dir.run("objcopy", &["--only-keep-debug", "tprog", "tprog.full"]));
    assert!(dir.run("objcopy", &["--strip-debug", "tprog"]));
    assert!(user_types(&bin).is_err());
    let id = build_id(&bin);
    let by_id = dir.0.join("ext/.build-id").join(&id[..2]);
    std::fs::create_dir_all(&by_id).unwrap();
    std::fs::copy(dir.0.join("tprog.full"), by_id.join(format!("{}.debug", &id[2..]))).unwrap();
    set_search_dirs(vec![PathBuf::from("ext")]);
    assert_eq!(work_params(&bin), ["struct pt * p"]);
    check_lines(&bin);
    // A fully stripped copy (no .symtab) finds its functions in the same debug file.
    assert!(dir.run("objcopy", &["--strip-all", "tprog", "bare"]));
    let bare = dir.0.join("bare");
    assert!(ElfSymbols::load(&bare).unwrap().resolve("work").is_err());
    let work = ElfSymbols::load(&bin).unwrap().resolve("work").unwrap().offset;
    assert_eq!(resolve_symbol(&bare, "work").unwrap().offset, work);
    std::fs::remove_dir_all(dir.0.join("ext/.build-id")).unwrap();
    std::fs::copy(dir.0.join("tprog.full"), dir.0.join("ext/tprog.debug")).unwrap();
    set_search_dirs(vec![dir.0.join("none"), dir.0.join("ext")]);
    assert_eq!(DebugInfo::of(&bin).unwrap().path, dir.0.join("ext/tprog.debug"));
    // Another build's file by that name has another build-id: not taken.
    dir.build("other", &["-g", "-O1"]);
    assert!(dir.run("objcopy", &["--only-keep-debug", "other", "ext/tprog.debug"]));
    assert!(DebugInfo::of(&bin).is_err());
    set_search_dirs(Vec::new());
}

fn build_id(binary: &Path) -> String {
    let out = Command::new("readelf").arg("-n").arg(binary).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("Build ID:")).expect("a build-id note");
    line.split_whitespace().last().unwrap().to_string()
}

#[test]
fn split_dwarf_is_read_from_dwo_files_and_dwp_packages() {
    let dir = Dir::new("split");
    let dwo = dir.build("tprog", &["-g", "-gsplit-dwarf"]);
    assert!(std::fs::read_dir(&dir.0).unwrap().any(|e| e
        .unwrap()
        .path()
        .extension()
        .is_some_and(|x| x == "dwo")));
    assert_eq!(work_params(&dwo), ["struct pt * p"]);
    check_lines(&dwo);
    let dwp = ["llvm-dwp", "dwp"].into_iter().find(|t| has_tool(t));
    let Some(dwp) = dwp else {
        eprintln!("skipped the .dwp half: no llvm-dwp or dwp");
        return;
    };
    let packed = dir.0.join("packed");
    std::fs::create_dir(&packed).unwrap();
    let pdir = Dir(packed);
    let bin = pdir.build("tprog", &["-g", "-gsplit-dwarf"]);
    assert!(pdir.run(dwp, &["-e", "tprog", "-o", "tprog.dwp"]));
    for e in std::fs::read_dir(&pdir.0).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "dwo") {
            std::fs::remove_file(p).unwrap();
        }
    }
    assert_eq!(work_params(&bin), ["struct pt * p"]);
    check_lines(&bin);
    std::mem::forget(pdir); // inside `dir`, removed with it
}

#[test]
fn what_is_not_a_binary_or_has_no_dwarf_says_so() {
    let dir = Dir::new("none");
    let text = dir.0.join("notes.txt");
    std::fs::write(&text, "not an ELF file\n").unwrap();
    let err = DebugInfo::of(&text).err().unwrap();
    assert!(matches!(err, NoDebugInfo::Unreadable { .. }), "{err}");
    assert!(err
        .to_string()
        .starts_with(&format!("cannot read the debug info of {}: ", text.display())));
    let bin = dir.build("tprog", &["-g0"]);
    let err = DebugInfo::of(&bin).err().unwrap();
    assert_eq!(err.to_string(), format!("{} has no DWARF debug info (none in the file, no separate debug file found): build it with -g, install its debug package, or name its directory with --debuginfo DIR", bin.display()));
}
