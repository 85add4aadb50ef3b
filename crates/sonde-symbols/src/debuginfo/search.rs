//! Where a binary's DWARF may be, best first, each with what proves a file is this build's:
//! the directories given with `--debuginfo` (bpftrace's), then where `perf probe`, gdb and libdw
//! look: the distributions' debug files (`/usr/lib/debug/.build-id/xx/rest.debug`, Debian's
//! -dbgsym packages; `/usr/lib/debug/PATH[.debug]`), the binary itself, its `.gnu_debuglink`
//! beside it, in `.debug/` beside it and under `/usr/lib/debug/DIR/`.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use object::Object;

const DEBUG_ROOT: &str = "/usr/lib/debug";

/// Extra directories to search first (`--debuginfo DIR`, repeatable).
static SEARCH_DIRS: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Sets the directories searched before the standard ones, for the whole process.
pub fn set_search_dirs(dirs: Vec<PathBuf>) {
    *SEARCH_DIRS.write().unwrap_or_else(|e| e.into_inner()) = dirs;
}

fn search_dirs() -> Vec<PathBuf> {
    SEARCH_DIRS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// What a candidate must show to be taken as this binary's debug file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The binary itself.
    Itself,
    /// The same GNU build-id note.
    BuildId(Vec<u8>),
    /// The CRC-32 of the whole file, as `.gnu_debuglink` records it.
    Crc(u32),
    /// Nothing to check (the binary has no build-id).
    Unchecked,
}

/// Paths that may hold `binary`'s DWARF, best first, with the proof each must give; those that
/// do not exist are left out, except `binary` itself.
pub fn candidates(binary: &Path, file: &object::File) -> Vec<(PathBuf, Proof)> {
    let path = binary.canonicalize().unwrap_or_else(|_| binary.to_path_buf());
    let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let name = path.file_name().map(PathBuf::from).unwrap_or_default();
    let build_id = file.build_id().ok().flatten().filter(|id| id.len() > 1).map(<[u8]>::to_vec);
    let by_id = match &build_id {
        Some(id) => Proof::BuildId(id.clone()),
        None => Proof::Unchecked,
    };
    let link = file.gnu_debuglink().ok().flatten().map(|(name, crc)| {
        (PathBuf::from(String::from_utf8_lossy(name).as_ref()), Proof::Crc(crc))
    });
    let mut c: Vec<(PathBuf, Proof)> = Vec::new();
    for root in search_dirs().iter().flat_map(|d| resolve_dir(d, &dir)) {
        if let Some(id) = &build_id {
            c.push((build_id_path(&root, id), by_id.clone()));
        }
        if let Some((link, crc)) = &link {
            c.push((root.join(link), crc.clone()));
        }
        // libdw's fallback when there is no debuglink: NAME.debug.
        c.push((root.join(format!("{}.debug", name.display())), by_id.clone()));
        c.push((under(&root, &dir).join(&name), by_id.clone()));
    }
    let root = Path::new(DEBUG_ROOT);
    if let Some(id) = &build_id {
        c.push((build_id_path(root, id), by_id.clone()));
    }
    // Fedora, Ubuntu, OpenEmbedded.
    c.push((PathBuf::from(format!("{}.debug", under(root, &path).display())), by_id.clone()));
    c.push((under(root, &path), by_id.clone()));
    c.push((dir.join(".debug").join(&name), by_id.clone()));
    c.push((binary.to_path_buf(), Proof::Itself));
    if let Some((link, crc)) = &link {
        for d in [dir.clone(), dir.join(".debug"), under(root, &dir)] {
            c.push((d.join(link), crc.clone()));
        }
    }
    let mut found: Vec<(PathBuf, Proof)> = Vec::new();
    for (p, proof) in c {
        let usable = proof == Proof::Itself || (p.is_file() && p != path && p != binary);
        if usable && !found.iter().any(|(q, _)| *q == p) {
            found.push((p, proof));
        }
    }
    found
}

/// Whether `data`, the bytes of a candidate, gives `proof`.
pub fn proves(proof: &Proof, data: &[u8], file: &object::File) -> bool {
    match proof {
        Proof::Itself | Proof::Unchecked => true,
        Proof::BuildId(id) => file.build_id().ok().flatten().is_none_or(|own| own == &id[..]),
        Proof::Crc(crc) => super::crc32::crc32(data) == *crc,
    }
}

/// `ROOT/.build-id/xx/rest.debug`.
fn build_id_path(root: &Path, id: &[u8]) -> PathBuf {
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    root.join(".build-id").join(&hex[..2]).join(format!("{}.debug", &hex[2..]))
}

/// `ROOT/PATH` for an absolute PATH.
fn under(root: &Path, path: &Path) -> PathBuf {
    root.join(path.strip_prefix("/").unwrap_or(path))
}

/// A `--debuginfo` directory: an absolute one as given; a relative one as libdw reads it, from
/// the binary's directory, and from the working directory.
fn resolve_dir(dir: &Path, binary_dir: &Path) -> Vec<PathBuf> {
    match dir.is_absolute() {
        true => vec![dir.to_path_buf()],
        false => vec![binary_dir.join(dir), dir.to_path_buf()],
    }
}
