//! `-P PATH`: the paths compared in the kernel, and the fds already open on them.

use sonde_trace::program::PathSet;

/// The paths as given and, where it differs, each one resolved (as strace adds it); the fds of
/// `pids` that are open on one of them now.
pub fn chosen(given: &[String], pids: &[u32]) -> PathSet {
    let mut paths: Vec<String> = Vec::new();
    for p in given {
        // A resolved path too long to compare whole is left out (the given one is checked).
        let resolved = std::fs::canonicalize(p)
            .ok()
            .and_then(|r| r.to_str().map(String::from))
            .filter(|r| r.len() < 256);
        for path in std::iter::once(p.clone()).chain(resolved) {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    let mut fds = Vec::new();
    for &pid in pids {
        let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { continue };
        for entry in dir.flatten() {
            let fd = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok());
            let target = std::fs::read_link(entry.path()).ok();
            if let (Some(fd), Some(t)) = (fd, target) {
                if t.to_str().is_some_and(|t| paths.iter().any(|p| p == t)) {
                    fds.push((pid, fd));
                }
            }
        }
    }
    PathSet { paths, fds }
}
