//! `-l 'uprobe:BINARY:FUNC'`: BINARY a path, a name found as `uprobe:` finds it, a glob over
//! files (`./bin/prog*`), or with -p a glob over the files the process has mapped. With -v,
//! each function's parameters from the binary's debug info, as bpftrace lists them (`int* n`).

use crate::error::Failure;
use sonde_glob::{glob_match, is_glob};
use std::fmt::Write;
use std::path::PathBuf;

pub fn list(
    provider: &str,
    pat: &str,
    pid: Option<u32>,
    verbose: bool,
    out: &mut String,
) -> Result<(), Failure> {
    let name = if provider.starts_with("ur") { "uretprobe" } else { "uprobe" };
    let (binary, sym) = pat.rsplit_once(':').unwrap_or((pat, "*"));
    let setup = |e: sonde_symbols::Error| Failure::Setup(e.to_string());
    let (paths, globbed) = match pid {
        Some(pid) if is_glob(binary) => {
            let mapped = sonde_symbols::locate::mapped_files(pid).map_err(setup)?;
            (
                mapped.into_iter().filter(|p| glob_match(binary, &p.to_string_lossy())).collect(),
                true,
            )
        }
        Some(pid) => {
            (vec![sonde_symbols::locate::locate_for_pid(binary, pid).map_err(setup)?], false)
        }
        None if is_glob(binary) => (matching_files(binary)?, true),
        None if binary.contains('/') => (vec![PathBuf::from(binary)], false),
        None => (vec![sonde_symbols::locate::locate(binary).map_err(setup)?], false),
    };
    for path in paths {
        let funcs = match sonde_symbols::functions(&path) {
            Ok(f) => f,
            // A glob may match files that are not ELF (scripts, sources): they have no functions.
            Err(_) if globbed => continue,
            Err(e) => return Err(setup(e)),
        };
        // Types only when asked for: reading DWARF costs more than the symbols.
        let types = verbose.then(|| sonde_symbols::user_types::user_types(&path).ok()).flatten();
        for f in funcs.iter().filter(|f| glob_match(sym, &f.name)) {
            let _ = writeln!(out, "{}:{}:{}", name, path.display(), f.name);
            if let Some(func) = types.as_ref().and_then(|t| t.find_func(&f.name).map(|x| (t, x))) {
                parameters(func.0, &func.1, out);
            }
        }
    }
    Ok(())
}

/// A function's parameters one a line, spelled as bpftrace spells them (`struct Foo* foo1`).
fn parameters(btf: &sonde_btf::Btf, func: &sonde_btf::Func, out: &mut String) {
    for p in &func.params {
        let _ = writeln!(out, "    {} {}", btf.type_name(p.ty).replace(" *", "*"), p.name);
    }
}

/// The regular files a glob in a path's last part matches (`./testprogs/uprobe*`), by name,
/// spelled with the directory as written.
fn matching_files(binary: &str) -> Result<Vec<PathBuf>, Failure> {
    let Some((dir, file)) = binary.rsplit_once('/') else {
        return Err(Failure::Usage(format!(
            "{}: a glob over binaries needs a directory (`./bin/prog*`) or -p PID (its mapped files)",
            binary
        )));
    };
    if is_glob(dir) {
        return Err(Failure::Usage(format!(
            "{}: a glob lists files of one directory: put it in the file's name only",
            binary
        )));
    }
    let read = std::fs::read_dir(if dir.is_empty() { "/" } else { dir })
        .map_err(|e| Failure::Setup(format!("cannot read {}: {}", dir, e)))?;
    let mut names: Vec<String> = read
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| glob_match(file, n))
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| PathBuf::from(format!("{}/{}", dir, n))).collect())
}
