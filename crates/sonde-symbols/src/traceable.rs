//! Which kernel functions can be traced: tracefs `available_filter_functions`
//! minus the kprobe blacklist, and glob expansion over them.

use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::kallsyms::KernelSymbols;
use sonde_glob::Glob;

const TRACEFS_DIRS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];
const BLACKLIST: &str = "/sys/kernel/debug/kprobes/blacklist";

/// The directory where tracefs is mounted.
pub fn tracefs_dir() -> Result<PathBuf> {
    // An unmounted /sys/kernel/tracing is an empty directory; `trace` is always in a mounted one.
    TRACEFS_DIRS
        .iter()
        .map(PathBuf::from)
        .find(|d| d.join("trace").exists())
        .ok_or_else(|| Error::TracefsMissing { tried: TRACEFS_DIRS.join(" and ") })
}

/// Names listed in `available_filter_functions`, sorted and without repeats.
#[derive(Debug, Default, Clone)]
pub struct TraceableFunctions {
    /// (name, module) sorted by name.
    funcs: Vec<(Box<str>, Option<Box<str>>)>,
}

impl TraceableFunctions {
    /// Reads `available_filter_functions` from the mounted tracefs.
    pub fn load() -> Result<Self> {
        Self::load_from(&tracefs_dir()?.join("available_filter_functions"))
    }

    pub fn load_from(path: &Path) -> Result<Self> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(Self::parse(&String::from_utf8_lossy(&bytes))),
            // Missing: no CONFIG_FUNCTION_TRACER. EPERM: lockdown or a sandbox.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::PermissionDenied) => {
                Err(Error::TraceableUnreadable { path: path.into(), source: e })
            }
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Parses lines `name` or `name [module]`; some kernels list a name twice.
    pub fn parse(text: &str) -> Self {
        let mut funcs: Vec<(Box<str>, Option<Box<str>>)> = text
            .lines()
            .filter_map(|line| {
                let mut words = line.split_whitespace();
                let name = words.next()?;
                let module = words
                    .next()
                    .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'))
                    .map(Into::into);
                Some((name.into(), module))
            })
            .collect();
        funcs.sort_by(|a, b| a.0.cmp(&b.0));
        funcs.dedup_by(|a, b| a.0 == b.0);
        TraceableFunctions { funcs }
    }

    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// The module a traceable function lives in (`None` for the core kernel or unknown names).
    pub fn module_of(&self, name: &str) -> Option<&str> {
        self.find(name).and_then(|i| self.funcs[i].1.as_deref())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.funcs.iter().map(|f| &*f.0)
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.funcs.binary_search_by(|f| (*f.0).cmp(name)).ok()
    }

    /// Expands `glob` into the functions we can attach to, and those we must skip.
    /// `kernel_names` (e.g. `KernelSymbols::function_names()`) lets us report names
    /// that exist but are not traceable; pass an empty iterator when unknown.
    pub fn matches<'a>(
        &self,
        glob: &str,
        blacklist: &Blacklist,
        kernel_names: impl IntoIterator<Item = &'a str>,
    ) -> GlobMatches {
        let glob = Glob::new(glob);
        let mut out = GlobMatches::default();
        for name in self.names().filter(|n| glob.matches(n)) {
            if blacklist.contains(name) {
                out.skipped.push(Skipped::new(name, SkipReason::Blacklisted));
            } else {
                out.traceable.push(name.to_string());
            }
        }
        let mut seen = HashSet::new();
        for name in kernel_names {
            if glob.matches(name) && !self.contains(name) && seen.insert(name) {
                let reason = if blacklist.contains(name) {
                    SkipReason::Blacklisted
                } else {
                    SkipReason::NotTraceable
                };
                out.skipped.push(Skipped::new(name, reason));
            }
        }
        out.skipped.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }
}

/// The names kallsyms gives a listed function's address that the list leaves out, as (alias,
/// listed twin), sorted by alias. `available_filter_functions` names each address once, so
/// `__x64_sys_getpid`, which shares `__do_sys_getpid`'s address, is not in it, yet kprobes
/// accept it (they go by address). Hidden kallsyms addresses give none.
pub fn address_aliases(
    syms: &KernelSymbols,
    listed: impl Fn(&str) -> bool,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for group in syms.code_groups().filter(|g| g.len() > 1) {
        let Some(twin) = group.iter().find(|n| listed(n)) else { continue };
        for alias in group.iter().filter(|n| !n.is_empty() && !listed(n)) {
            out.push((alias.to_string(), twin.to_string()));
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The result of expanding a glob over kernel functions; both lists are sorted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GlobMatches {
    pub traceable: Vec<String>,
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub name: String,
    pub reason: SkipReason,
}

impl Skipped {
    fn new(name: &str, reason: SkipReason) -> Self {
        Skipped { name: name.to_string(), reason }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// On the kprobe blacklist: probing it could crash the kernel.
    Blacklisted,
    /// In kallsyms but not in `available_filter_functions` (inlined, notrace, ...).
    NotTraceable,
}

/// The kprobe blacklist: functions (address ranges) kprobes refuse.
#[derive(Debug, Default, Clone)]
pub struct Blacklist {
    names: HashSet<Box<str>>,
    ranges: Vec<(u64, u64)>,
}

impl Blacklist {
    /// Reads /sys/kernel/debug/kprobes/blacklist (needs debugfs mounted).
    pub fn load() -> Result<Self> {
        std::fs::read(BLACKLIST)
            .map(|b| Self::parse(&String::from_utf8_lossy(&b)))
            .map_err(|e| Error::io(BLACKLIST, e))
    }

    /// Parses lines `0xstart-0xend\tname` (optionally followed by ` [module]`).
    pub fn parse(text: &str) -> Self {
        let mut out = Blacklist::default();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let (Some(range), Some(name)) = (words.next(), words.next()) else {
                continue;
            };
            if let Some((a, b)) = range.split_once('-') {
                if let (Some(a), Some(b)) = (parse_hex(a), parse_hex(b)) {
                    out.ranges.push((a, b));
                }
            }
            out.names.insert(name.into());
        }
        out
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// True when `addr` lies in a blacklisted range (for probes given as addresses).
    pub fn contains_address(&self, addr: u64) -> bool {
        // Ranges can nest (whole sections are listed too), so scan them all: a few thousand.
        self.ranges.iter().any(|r| r.0 <= addr && addr < r.1)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

fn parse_hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const AVAILABLE: &str = "\
vfs_read
vfs_write
vfs_open
do_vfs_ioctl
vfs_read
__x64_sys_read
ext4_file_read_iter [ext4]
vfs_fsync_range
   
";

    #[test]
    fn names_sharing_a_listed_address_are_aliases() {
        let syms = KernelSymbols::parse(
            "ffffffff81382730 t __do_sys_getpid
ffffffff81382730 T __ia32_sys_getpid
ffffffff81382730 T __x64_sys_getpid
ffffffff81382740 T vfs_read
ffffffff81382750 t notrace_a
ffffffff81382750 t notrace_b
ffffffff81382760 D data_at_listed
ffffffff81382760 T vfs_write
",
        );
        let listed = TraceableFunctions::parse("__do_sys_getpid\nvfs_read\nvfs_write\n");
        let got = address_aliases(&syms, |n| listed.contains(n));
        assert_eq!(
            got,
            [
                ("__ia32_sys_getpid".to_string(), "__do_sys_getpid".to_string()),
                ("__x64_sys_getpid".to_string(), "__do_sys_getpid".to_string()),
            ]
        );
        let hidden = KernelSymbols::parse("0000000000000000 t a\n0000000000000000 T b\n");
        assert!(address_aliases(&hidden, |n| n == "a").is_empty());
    }

    const BLACKLIST_TEXT: &str = "\
0xffffffff81100000-0xffffffff81100040\tvfs_fsync_range
0xffffffff81000000-0xffffffff81000010\tdo_int3
0xffffffffc0100000-0xffffffffc0100020\tmod_func [somemod]
junk
0xzz-0x10\tbad_range_but_named
";

    #[test]
    fn parses_available_filter_functions() {
        let t = TraceableFunctions::parse(AVAILABLE);
        assert_eq!(t.len(), 7, "duplicates collapsed, blank line ignored");
        assert!(t.contains("vfs_read"));
        assert!(!t.contains("vfs"));
        assert_eq!(t.module_of("ext4_file_read_iter"), Some("ext4"));
        assert_eq!(t.module_of("vfs_read"), None);
        assert!(t.names().collect::<Vec<_>>().windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn parses_blacklist() {
        let b = Blacklist::parse(BLACKLIST_TEXT);
        assert!(b.contains("vfs_fsync_range"));
        assert!(b.contains("do_int3"));
        assert!(b.contains("mod_func"));
        assert!(b.contains("bad_range_but_named"));
        assert!(!b.contains("junk"));
        assert!(b.contains_address(0xffffffff81000008));
        assert!(!b.contains_address(0xffffffff81000010));
        assert!(b.contains_address(0xffffffff8110003f));
        assert!(!b.contains_address(0));
    }

    #[test]
    fn glob_expansion() {
        let t = TraceableFunctions::parse(AVAILABLE);
        let b = Blacklist::parse(BLACKLIST_TEXT);
        let kallsyms =
            ["vfs_read", "vfs_read", "vfs_inlined", "vfs_read.cold", "vfs_fsync_range", "do_int3"];
        let m = t.matches("vfs_*", &b, kallsyms);
        assert_eq!(m.traceable, ["vfs_open", "vfs_read", "vfs_write"]);
        assert_eq!(
            m.skipped,
            [
                Skipped::new("vfs_fsync_range", SkipReason::Blacklisted),
                Skipped::new("vfs_inlined", SkipReason::NotTraceable),
                Skipped::new("vfs_read.cold", SkipReason::NotTraceable),
            ]
        );
        let m = t.matches("vfs_[rw]*", &b, []);
        assert_eq!(m.traceable, ["vfs_read", "vfs_write"]);
        assert!(m.skipped.is_empty());
        let m = t.matches("do_int3", &b, kallsyms);
        assert!(m.traceable.is_empty());
        assert_eq!(m.skipped, [Skipped::new("do_int3", SkipReason::Blacklisted)]);
        assert_eq!(t.matches("*read*", &b, []).traceable.len(), 3);
    }

    #[test]
    fn host_tracefs() {
        // Report what this host offers; both outcomes are valid, but errors must read well.
        match TraceableFunctions::load() {
            Ok(t) => eprintln!("available_filter_functions: {} functions", t.len()),
            Err(e) => eprintln!("note: {e}"),
        }
        match Blacklist::load() {
            Ok(b) => eprintln!("kprobe blacklist: {} entries", b.len()),
            Err(e) => eprintln!("note: {e}"),
        }
    }
}
