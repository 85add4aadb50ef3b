//! Cgroup ids -> paths, for bpftrace's `cgroup_path(id)`: a cgroup (v2) id is the inode number
//! of its directory, so the path is found by walking the cgroup2 mount once per id.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static CACHE: Mutex<Option<HashMap<u64, String>>> = Mutex::new(None);

/// `cgroup_path(id)` as bpftrace prints it: the hierarchy's name and the path in it,
/// `unified:/user.slice/...` (cgroup2 is `unified`), or an empty string when no cgroup has that
/// id (it was removed, or cgroup2 is not mounted).
pub fn printed(id: u64) -> String {
    match path(id) {
        p if p.is_empty() => p,
        p => format!("unified:{p}"),
    }
}

/// The path of cgroup `id` below the cgroup2 root (`/` for the root, `/user.slice/...`), or an
/// empty string when no cgroup has that id (it was removed, or cgroup2 is not mounted).
pub fn path(id: u64) -> String {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    cache
        .entry(id)
        .or_insert_with(|| {
            cgroup2_mounts().iter().find_map(|root| find(root, root, id, 0)).unwrap_or_default()
        })
        .clone()
}

/// Where cgroup2 is mounted (/proc/self/mounts: `cgroup2 /sys/fs/cgroup cgroup2 ...`).
fn cgroup2_mounts() -> Vec<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.get(2) == Some(&"cgroup2")).then(|| PathBuf::from(f[1]))
        })
        .collect()
}

/// The directory under `dir` whose inode is `id`, as a path relative to `root`.
fn find(root: &Path, dir: &Path, id: u64, depth: usize) -> Option<String> {
    let meta = std::fs::metadata(dir).ok()?;
    if meta.ino() == id {
        let rel = dir.strip_prefix(root).ok()?;
        return Some(format!("/{}", rel.display()));
    }
    if depth > 64 {
        return None;
    }
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .find_map(|e| find(root, &e.path(), id, depth + 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unknown_id_is_empty() {
        assert_eq!(super::path(u64::MAX), "");
        assert_eq!(super::printed(u64::MAX), "");
    }

    #[test]
    fn the_root_is_unified_slash() {
        use std::os::unix::fs::MetadataExt;
        let Some(root) = super::cgroup2_mounts().into_iter().next() else { return };
        let id = std::fs::metadata(&root).unwrap().ino();
        assert_eq!(super::printed(id), "unified:/");
    }
}
