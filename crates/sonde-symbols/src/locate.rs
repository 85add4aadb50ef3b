//! Short names to files, like surftrace: `bash` → /usr/bin/bash,
//! `libc` → the libc.so.6 the dynamic loader would pick.

use std::collections::HashSet;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::maps::read_maps;
use sonde_glob::{is_glob, Glob};

/// Searched after LD_LIBRARY_PATH and ld.so.conf, as the loader does.
const DEFAULT_LIB_DIRS: [&str; 6] = [
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// Finds a binary (in $PATH) or a library (in the loader's directories).
/// Names with a `/` are paths and are used as they are.
pub fn locate(name: &str) -> Result<PathBuf> {
    if name.contains('/') {
        return as_path(name);
    }
    if !name.contains(".so") {
        if let Some(p) = find_in_path(name) {
            return Ok(p);
        }
    }
    let dirs = library_dirs();
    find_library(name, &dirs).ok_or_else(|| Error::NotFound {
        name: name.into(),
        searched: format!(
            "$PATH and {}",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(":")
        ),
    })
}

/// Like [`locate`], but first looks at what process `pid` has mapped, which is
/// what its uprobes must target. Files in another mount namespace (containers)
/// come back as /proc/PID/root/..., and deleted files as /proc/PID/map_files/....
pub fn locate_for_pid(name: &str, pid: u32) -> Result<PathBuf> {
    if name.contains('/') {
        return as_path(name);
    }
    let maps = read_maps(pid)?;
    let best = maps
        .iter()
        .filter(|m| m.is_file())
        .filter_map(|m| {
            let base = m.path.trim_end_matches(" (deleted)").rsplit('/').next()?;
            let rank = if base == name { Some(0) } else { library_rank(name, base) };
            rank.map(|r| (r, base.len(), m))
        })
        .min_by_key(|&(r, len, _)| (r, len));
    let Some((_, _, m)) = best else {
        return locate(name);
    };
    Ok(openable(m, pid))
}

/// An absolute `path` as process `pid` sees it: through /proc/PID/root when that process is in
/// another mount namespace where the path is another file (or one this namespace lacks).
pub fn path_for_pid(path: &str, pid: u32) -> PathBuf {
    let ours = PathBuf::from(path);
    let theirs = PathBuf::from(format!("/proc/{pid}/root{path}"));
    match (std::fs::metadata(&ours), std::fs::metadata(&theirs)) {
        (_, Err(_)) => ours,
        (Err(_), Ok(_)) => theirs,
        (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino() => ours,
        (Ok(_), Ok(_)) => theirs,
    }
}

/// The executable files process `pid` has mapped (its binary and libraries), once each, in
/// the order of the mappings, as paths this process can open (see [`locate_for_pid`]).
pub fn mapped_files(pid: u32) -> Result<Vec<PathBuf>> {
    let mut seen = HashSet::new();
    let maps = read_maps(pid)?;
    let files = maps.iter().filter(|m| m.is_file() && m.is_exec());
    Ok(files.filter(|m| seen.insert(m.path.clone())).map(|m| openable(m, pid)).collect())
}

/// A mapping's file as this process can open it: its own path, or through /proc/PID/root
/// (another mount namespace) or /proc/PID/map_files (deleted).
fn openable(m: &crate::maps::MapEntry, pid: u32) -> PathBuf {
    if m.is_deleted() {
        return PathBuf::from(format!("/proc/{pid}/map_files/{:x}-{:x}", m.start, m.end));
    }
    let ours = PathBuf::from(&m.path);
    let theirs = PathBuf::from(format!("/proc/{pid}/root{}", m.path));
    if same_file(&ours, &theirs) {
        ours
    } else {
        theirs
    }
}

fn as_path(name: &str) -> Result<PathBuf> {
    let p = PathBuf::from(name);
    match std::fs::metadata(&p) {
        Ok(_) => Ok(p),
        Err(e) => Err(Error::io(p, e)),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        (Ok(_), Err(_)) => true, // cannot see its root (permissions): trust the path
        _ => false,
    }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p) && elf_header(p).is_some())
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
}

/// How well file name `file` matches library name `name` (lower is better):
/// `libN.so`, `libN.so.*`, `N.so`, `N.so.*`; or exactly `N` when N has `.so` in it.
fn library_rank(name: &str, file: &str) -> Option<u8> {
    if name.contains(".so") {
        return (file == name).then_some(0);
    }
    let forms = [format!("lib{name}.so"), format!("{name}.so")];
    forms.iter().enumerate().find_map(|(i, stem)| {
        let rest = file.strip_prefix(stem.as_str())?;
        match rest {
            "" => Some(2 * i as u8),
            r if r.starts_with('.') => Some(2 * i as u8 + 1),
            _ => None,
        }
    })
}

/// The best match for `name` in `dirs`: first directory wins, then the best form,
/// then the shortest name (libc.so.6 before libc.so.6.1). Linker scripts
/// (libc.so is one on Debian) and libraries for another machine are skipped.
pub fn find_library(name: &str, dirs: &[PathBuf]) -> Option<PathBuf> {
    let host = host_elf();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut hits: Vec<(u8, String)> = entries
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().into_string().ok()?;
                library_rank(name, &file).map(|r| (r, file))
            })
            .collect();
        hits.sort_by(|a, b| (a.0, a.1.len(), &a.1).cmp(&(b.0, b.1.len(), &b.1)));
        for (_, file) in hits {
            let p = dir.join(file);
            match (elf_header(&p), host) {
                (Some(h), Some(host)) if h == host => return Some(p),
                (Some(_), None) => return Some(p),
                _ => {}
            }
        }
    }
    None
}

/// ELF class and machine of a file, or None if it is not ELF.
fn elf_header(p: &Path) -> Option<(u8, [u8; 2])> {
    let mut h = [0u8; 20];
    std::fs::File::open(p).ok()?.read_exact(&mut h).ok()?;
    (h[..4] == *b"\x7fELF").then_some((h[4], [h[18], h[19]]))
}

/// Our own ELF class and machine: what the loader accepts for processes like us.
fn host_elf() -> Option<(u8, [u8; 2])> {
    elf_header(Path::new("/proc/self/exe"))
}

/// Library directories in the loader's order: LD_LIBRARY_PATH, ld.so.conf, defaults.
/// Directories reached twice (e.g. /lib → /usr/lib) are kept once.
pub fn library_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default();
    dirs.extend(ld_so_conf_dirs(Path::new("/etc/ld.so.conf")));
    dirs.extend(DEFAULT_LIB_DIRS.iter().map(PathBuf::from));
    let mut seen = HashSet::new();
    dirs.retain(|d| seen.insert(std::fs::canonicalize(d).unwrap_or_else(|_| d.clone())));
    dirs
}

/// One meaningful line of an ld.so.conf file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LdConfLine {
    Dir(PathBuf),
    /// A glob pattern of more configuration files.
    Include(String),
}

/// Parses ld.so.conf text: `#` comments, `include PATTERN...`, `hwcap` (ignored), directories.
pub fn parse_ld_so_conf(text: &str) -> Vec<LdConfLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut words = line.split_whitespace();
        match words.next() {
            None => {}
            Some("include") => out.extend(words.map(|w| LdConfLine::Include(w.into()))),
            Some("hwcap") => {}
            // Old libc5 syntax `dir=TYPE`: the type does not matter to us.
            Some(_) => {
                out.push(LdConfLine::Dir(line.split('=').next().unwrap_or(line).trim().into()))
            }
        }
    }
    out
}

/// Directories listed by an ld.so.conf file and the files it includes (depth-limited).
pub fn ld_so_conf_dirs(conf: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    read_conf(conf, 0, &mut out);
    out
}

fn read_conf(conf: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    if depth > 8 {
        return; // include loops
    }
    let Ok(text) = std::fs::read_to_string(conf) else {
        return;
    };
    let base = conf.parent().unwrap_or(Path::new("/"));
    for line in parse_ld_so_conf(&text) {
        match line {
            LdConfLine::Dir(d) => out.push(d),
            LdConfLine::Include(pattern) => {
                for file in expand_path_glob(&base.join(pattern)) {
                    read_conf(&file, depth + 1, out);
                }
            }
        }
    }
}

/// Expands a path whose components may be globs, sorted like glob(3).
fn expand_path_glob(pattern: &Path) -> Vec<PathBuf> {
    let mut found = vec![PathBuf::new()];
    for comp in pattern.components() {
        let comp = comp.as_os_str().to_string_lossy();
        if !is_glob(&comp) {
            found.iter_mut().for_each(|p| p.push(&*comp));
            continue;
        }
        let g = Glob::new(&comp);
        let mut next = Vec::new();
        for dir in &found {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| g.matches(n) && !n.starts_with('.'))
                .collect();
            names.sort();
            next.extend(names.into_iter().map(|n| dir.join(n)));
        }
        found = next;
    }
    found.retain(|p| p.exists());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ld_so_conf() {
        let text = "\
# libc default configuration
include /etc/ld.so.conf.d/*.conf
/usr/local/lib   # trailing comment

hwcap 1 nosegneg
/usr/lib/libc5=libc5
include a.conf b/*.conf
";
        assert_eq!(
            parse_ld_so_conf(text),
            [
                LdConfLine::Include("/etc/ld.so.conf.d/*.conf".into()),
                LdConfLine::Dir("/usr/local/lib".into()),
                LdConfLine::Dir("/usr/lib/libc5".into()),
                LdConfLine::Include("a.conf".into()),
                LdConfLine::Include("b/*.conf".into()),
            ]
        );
    }

    #[test]
    fn follows_includes() {
        let dir = std::env::temp_dir().join(format!("sonde-ldconf-{}", std::process::id()));
        let d = dir.join("ld.so.conf.d");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(dir.join("ld.so.conf"), "/first\ninclude ld.so.conf.d/*.conf\n/last\n")
            .unwrap();
        std::fs::write(d.join("b.conf"), "/from_b\n").unwrap();
        std::fs::write(d.join("a.conf"), "/from_a\ninclude ../ld.so.conf\n").unwrap(); // a loop
        std::fs::write(d.join("c.txt"), "/not_included\n").unwrap();
        let dirs = ld_so_conf_dirs(&dir.join("ld.so.conf"));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(dirs.first(), Some(&PathBuf::from("/first")));
        assert!(
            dirs.contains(&PathBuf::from("/from_a")) && dirs.contains(&PathBuf::from("/from_b"))
        );
        assert!(!dirs.contains(&PathBuf::from("/not_included")));
        let a = dirs.iter().position(|d| d == Path::new("/from_a")).unwrap();
        let b = dirs.iter().position(|d| d == Path::new("/from_b")).unwrap();
        assert!(a < b, "includes are read in sorted order");
    }

    #[test]
    fn library_name_forms() {
        assert_eq!(library_rank("c", "libc.so"), Some(0));
        assert_eq!(library_rank("c", "libc.so.6"), Some(1));
        assert_eq!(library_rank("libc", "libc.so"), Some(2));
        assert_eq!(library_rank("libc", "libc.so.6"), Some(3));
        assert_eq!(library_rank("libc", "liblibc.so"), Some(0));
        assert_eq!(library_rank("libc", "libcap.so.2"), None);
        assert_eq!(library_rank("libc", "libc.sox"), None);
        assert_eq!(library_rank("libc.so.6", "libc.so.6"), Some(0));
        assert_eq!(library_rank("libc.so.6", "libc.so.6.1"), None);
    }
}
