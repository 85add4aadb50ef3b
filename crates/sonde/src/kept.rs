//! What sonde keeps between runs in `/run/sonde` to start faster: files built from this kernel
//! by this sonde binary (`sonde trace`'s syscall table, its compiled programs). Each name carries
//! [`identity`], a hash of the kernel (its version string and this boot's id) and of the binary
//! (its inode, size and times, and sonde's version): any other kernel or build misses. Writing a
//! file removes the oldest of its kind beyond a few ([`keep`]), whatever build wrote them, so two
//! sonde binaries used in turn do not remove each other's. Only root's directory of mode 0700 is
//! used, so nothing another user wrote is ever read.

use sonde_kernel::host::run_dir;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file `kind-IDENTITY[-key]`, in a directory only this user can write; None where there
/// is none (then nothing is kept).
pub fn path(kind: &str, key: Option<u64>) -> Option<PathBuf> {
    let dir = run_dir::private_dir(Path::new(run_dir::RUN_DIR))?;
    let id = identity()?;
    let name = match key {
        Some(k) => format!("{kind}-{id:016x}-{k:016x}"),
        None => format!("{kind}-{id:016x}"),
    };
    Some(dir.join(name))
}

/// The kernel and the sonde binary this run has, as one hash, read once a run.
fn identity() -> Option<u64> {
    static IDENTITY: OnceLock<Option<u64>> = OnceLock::new();
    *IDENTITY.get_or_init(read_identity)
}

fn read_identity() -> Option<u64> {
    let kernel = std::fs::read_to_string("/proc/version").ok()?;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let exe = std::fs::metadata("/proc/self/exe").ok()?;
    let binary = format!(
        "{} {} {} {} {} {} {}",
        exe.dev(),
        exe.ino(),
        exe.size(),
        exe.mtime(),
        exe.mtime_nsec(),
        exe.ctime_nsec(),
        env!("CARGO_PKG_VERSION")
    );
    Some(fnv(format!("{kernel}\n{boot}\n{binary}").as_bytes()))
}

/// Writes the file whole under another name, then renames it (a reader never sees half of
/// it); then removes the oldest files of its kind beyond `most` (by when they were written).
pub fn keep(path: &Path, bytes: &[u8], most: usize) {
    let tmp = path.with_extension(format!("{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(bytes));
    if written.is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    prune(path, most);
}

/// Removes what [`keep`] says it removes, for the kind of the file at `path`.
fn prune(path: &Path, most: usize) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return;
    };
    let Some(kind) = name.find('-').map(|k| &name[..=k]) else { return };
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut all = Vec::new();
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        // A name with a dot is a file being written.
        if n.starts_with(kind) && !n.contains('.') {
            if let Ok(m) = e.metadata() {
                all.push((m.mtime(), m.mtime_nsec(), e.path()));
            }
        }
    }
    all.sort();
    for (_, _, old) in all.iter().take(all.len().saturating_sub(most)) {
        let _ = std::fs::remove_file(old);
    }
}

/// FNV-1a: a stable hash, the same in every build.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn keeping_removes_the_oldest_of_its_kind_beyond_the_most() {
        let dir = std::env::temp_dir().join(format!("sonde-kept-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ours = "trace-00000000000000aa";
        let theirs = "trace-00000000000000bb";
        let names = [
            format!("{ours}-0000000000000001"),
            format!("{ours}-0000000000000002"),
            format!("{theirs}-0000000000000001"),
            "syscalls-00000000000000bb".to_string(),
            "graph-12".to_string(),
        ];
        for (i, n) in names.iter().enumerate() {
            let f = std::fs::File::create(dir.join(n)).unwrap();
            f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1000 + i as u64)).unwrap();
        }
        keep(&dir.join(format!("{ours}-0000000000000003")), b"x", 2);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        std::fs::remove_dir_all(&dir).unwrap();
        // Another build's newer file stays; files of other kinds are not counted.
        let want = [
            "graph-12".to_string(),
            "syscalls-00000000000000bb".to_string(),
            format!("{ours}-0000000000000003"),
            format!("{theirs}-0000000000000001"),
        ];
        assert_eq!(left, want);
    }
}
