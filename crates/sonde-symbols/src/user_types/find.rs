//! Where a binary's DWARF may be, in the order `perf probe` tries (its `debuginfo__new`): the
//! distributions' debug files first, then the binary itself, then its `.gnu_debuglink` where
//! gdb and libdw look for it.

use std::path::{Path, PathBuf};

use object::Object;

const DEBUG_ROOT: &str = "/usr/lib/debug";

/// Paths that may hold `path`'s DWARF, best first; those that do not exist are left out, except
/// `path` itself.
pub fn debug_candidates(binary: &Path, file: &object::File) -> Vec<PathBuf> {
    let path = binary.canonicalize().unwrap_or_else(|_| binary.to_path_buf());
    let dir = path.parent().unwrap_or(Path::new("/"));
    let name = path.file_name().map(PathBuf::from).unwrap_or_default();
    let under_root = |p: &Path| Path::new(DEBUG_ROOT).join(p.strip_prefix("/").unwrap_or(p));
    let mut c = vec![
        // Fedora, Ubuntu, OpenEmbedded.
        PathBuf::from(format!("{}.debug", under_root(&path).display())),
        under_root(&path),
        dir.join(".debug").join(&name),
    ];
    if let Ok(Some(id)) = file.build_id() {
        let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
        if hex.len() > 2 {
            c.push(PathBuf::from(format!(
                "{DEBUG_ROOT}/.build-id/{}/{}.debug",
                &hex[..2],
                &hex[2..]
            )));
        }
    }
    let mut found: Vec<PathBuf> = c.into_iter().filter(|p| p.is_file() && *p != path).collect();
    found.push(binary.to_path_buf());
    if let Ok(Some((link, _crc))) = file.gnu_debuglink() {
        let link = PathBuf::from(String::from_utf8_lossy(link).as_ref());
        for p in [dir.join(&link), dir.join(".debug").join(&link), under_root(dir).join(&link)] {
            if p.is_file() && p != path && p != binary && !found.contains(&p) {
                found.push(p);
            }
        }
    }
    found
}
