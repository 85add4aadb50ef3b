//! Kernel symbols from /proc/kallsyms.
//!
//! The kernel formats the ~120k lines itself, which costs ~35 ms of kernel
//! time on every read, whatever the buffer size. So callers load it only when
//! a program needs kernel symbols, and can start it on a thread early
//! ([`KernelSymbols::spawn_load`]). Our side is kept to a few ms: lines are
//! only split and their addresses parsed; names and modules are read from the
//! text when asked for.

use std::io::Read;

use crate::error::{Error, Result};

const KALLSYMS: &str = "/proc/kallsyms";

/// All kernel symbols, sorted by address.
#[derive(Debug)]
pub struct KernelSymbols {
    text: Vec<u8>,
    syms: Vec<Entry>,
    hidden: bool,
}

/// One line: 16 bytes, so 120k of them cost few page faults.
#[derive(Debug, Clone, Copy)]
struct Entry {
    addr: u64,
    line_start: u32,
    line_len: u16,
    /// Where the name starts within the line.
    name_off: u8,
    kind: u8,
}

/// The symbol an address falls in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelSymbol<'a> {
    pub name: &'a str,
    /// Start address of the symbol.
    pub address: u64,
    /// `addr - address`.
    pub offset: u64,
    /// `None` for the core kernel image.
    pub module: Option<&'a str>,
    /// The nm-style type letter (`T`, `t`, `D`, ...).
    pub kind: char,
}

/// A load of /proc/kallsyms running on its own thread.
pub struct PendingKernelSymbols(std::thread::JoinHandle<Result<KernelSymbols>>);

impl PendingKernelSymbols {
    pub fn wait(self) -> Result<KernelSymbols> {
        self.0.join().unwrap_or_else(|_| {
            Err(Error::io(KALLSYMS, std::io::Error::other("the loading thread panicked")))
        })
    }
}

impl KernelSymbols {
    /// Reads and indexes /proc/kallsyms. Fails with
    /// [`Error::KernelAddressesHidden`] when the kernel hides addresses.
    pub fn load() -> Result<Self> {
        let syms = Self::parse(read_proc_file(KALLSYMS)?);
        if syms.addresses_hidden() {
            return Err(Error::KernelAddressesHidden);
        }
        Ok(syms)
    }

    /// Starts [`load`](Self::load) on a thread, so its ~40 ms overlap other start-up work.
    pub fn spawn_load() -> PendingKernelSymbols {
        PendingKernelSymbols(std::thread::spawn(Self::load))
    }

    /// Reads /proc/kallsyms for its names only, accepting hidden (zero) addresses.
    pub fn load_names() -> Result<Self> {
        read_proc_file(KALLSYMS).map(Self::parse)
    }

    /// Indexes kallsyms-format text. Lines without `ADDR KIND NAME` are skipped.
    pub fn parse(text: impl Into<Vec<u8>>) -> Self {
        let text = text.into();
        let mut syms = Vec::with_capacity(text.len() / 40);
        let mut start = 0usize;
        for end in memchr::memchr_iter(b'\n', &text).chain([text.len()]) {
            if let Some(e) = index_line(&text, start, end) {
                syms.push(e);
            }
            start = end + 1;
        }
        // Already sorted for the core kernel; modules may follow out of order.
        if !syms.windows(2).all(|w| w[0].addr <= w[1].addr) {
            syms.sort_by_key(|e| e.addr); // stable: keeps file order among aliases
        }
        let hidden = !syms.is_empty() && syms.iter().all(|e| e.addr == 0);
        KernelSymbols { text, syms, hidden }
    }

    /// True when every address is zero (not root, or kptr_restrict).
    pub fn addresses_hidden(&self) -> bool {
        self.hidden
    }

    pub fn len(&self) -> usize {
        self.syms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.syms.is_empty()
    }

    /// The symbol containing `addr` (the closest one at or below it).
    pub fn resolve(&self, addr: u64) -> Option<KernelSymbol<'_>> {
        if addr == 0 || self.hidden {
            return None;
        }
        let end = self.syms.partition_point(|e| e.addr <= addr);
        let last = self.syms[..end].last()?;
        // Several names can share one address (`_text`, `_stext`, ...): pick the best.
        let first = self.syms[..end].partition_point(|e| e.addr < last.addr);
        let best = self.syms[first..end]
            .iter()
            .enumerate()
            .max_by_key(|(i, e)| (alias_rank(self.name_of(e), e.kind), usize::MAX - i))
            .map(|(_, e)| e)?;
        Some(self.symbol(best, addr - best.addr))
    }

    /// Address of the symbol `name` (the first one listed if it is ambiguous).
    /// Accepts `name` alone or `module:name`.
    pub fn address(&self, name: &str) -> Option<u64> {
        self.lookup(name).map(|s| s.address)
    }

    /// Every symbol named `name` or `module:name` (static functions may repeat).
    /// A linear scan (~0.3 ms): cheaper than building a name index for a few lookups.
    pub fn lookup_all(&self, name: &str) -> Vec<KernelSymbol<'_>> {
        let (module, name) = match name.split_once(':') {
            Some((m, n)) => (Some(m), n),
            None => (None, name),
        };
        self.syms
            .iter()
            .filter(|e| self.has_name(e, name.as_bytes()))
            .map(|e| self.symbol(e, 0))
            .filter(|s| module.is_none() || s.module == module)
            .collect()
    }

    /// The first symbol named `name`.
    pub fn lookup(&self, name: &str) -> Option<KernelSymbol<'_>> {
        self.lookup_all(name).into_iter().next()
    }

    /// All symbol names, in address order (with repeats for duplicated names).
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.syms.iter().map(|e| self.name_of(e))
    }

    /// Names of code symbols only (types `t`, `T`, `w`, `W`).
    pub fn function_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.syms.iter().filter(|e| is_code(e.kind)).map(|e| self.name_of(e))
    }

    /// Code symbols sharing one address, in address order: one slice of names per address.
    pub fn code_groups(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        self.syms
            .chunk_by(|a, b| a.addr == b.addr)
            .filter(|g| g[0].addr != 0)
            .map(|g| g.iter().filter(|e| is_code(e.kind)).map(|e| self.name_of(e)).collect())
    }

    /// All symbols in address order.
    pub fn iter(&self) -> impl Iterator<Item = KernelSymbol<'_>> + '_ {
        self.syms.iter().map(|e| self.symbol(e, 0))
    }

    fn line(&self, e: &Entry) -> &[u8] {
        let start = e.line_start as usize;
        self.text.get(start..start + e.line_len as usize).unwrap_or(b"")
    }

    /// The name runs to a tab (before `[module]`) or the end of the line.
    fn name_bytes(&self, e: &Entry) -> &[u8] {
        let rest = self.line(e).get(e.name_off as usize..).unwrap_or(b"");
        let end = rest.iter().position(|&b| b == b'\t').unwrap_or(rest.len());
        rest[..end].trim_ascii_end()
    }

    /// `name_bytes(e) == name` without searching the line for its end.
    fn has_name(&self, e: &Entry, name: &[u8]) -> bool {
        let rest = self.line(e).get(e.name_off as usize..).unwrap_or(b"");
        rest.starts_with(name)
            && matches!(rest.get(name.len()), None | Some(b'\t' | b' ' | b'\r'))
            && !name.is_empty()
    }

    fn name_of(&self, e: &Entry) -> &str {
        std::str::from_utf8(self.name_bytes(e)).unwrap_or("")
    }

    fn module_of(&self, e: &Entry) -> Option<&str> {
        let line = self.line(e);
        let tab = line.iter().position(|&b| b == b'\t')?;
        let m = std::str::from_utf8(&line[tab + 1..]).ok()?.trim();
        m.strip_prefix('[')?.strip_suffix(']')
    }

    fn symbol(&self, e: &Entry, offset: u64) -> KernelSymbol<'_> {
        KernelSymbol {
            name: self.name_of(e),
            address: e.addr,
            offset,
            module: self.module_of(e),
            kind: e.kind as char,
        }
    }
}

fn is_code(kind: u8) -> bool {
    matches!(kind, b't' | b'T' | b'w' | b'W')
}

/// Prefer functions, then global symbols, then names not starting with `_`.
fn alias_rank(name: &str, kind: u8) -> (bool, bool, bool) {
    (is_code(kind), kind.is_ascii_uppercase(), !name.starts_with('_'))
}

/// Checks the shape `ADDR K NAME...` and parses the address; the rest waits.
fn index_line(text: &[u8], start: usize, end: usize) -> Option<Entry> {
    let line = text.get(start..end)?;
    // 64-bit kernels print 16 digits: test that spot before searching.
    let sp = if line.get(16) == Some(&b' ') { 16 } else { line.iter().position(|&b| b == b' ')? };
    let addr = parse_hex(&line[..sp])?;
    let kind = match line.get(sp + 1..sp + 4)? {
        [k, b' ', n] if k.is_ascii_alphabetic() && !n.is_ascii_whitespace() => *k,
        _ => return None,
    };
    Some(Entry {
        addr,
        line_start: u32::try_from(start).ok()?,
        line_len: u16::try_from(line.len()).ok()?,
        name_off: u8::try_from(sp + 3).ok()?,
        kind,
    })
}

/// Hex without allocation or UTF-8 checks: this runs 120k times per load.
fn parse_hex(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        Some(acc << 4 | d as u64)
    })
}

/// Reads a procfs file in one go (procfs reports size 0, so std's size hint does not help).
fn read_proc_file(path: &str) -> Result<Vec<u8>> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut buf = Vec::with_capacity(8 << 20);
    f.read_to_end(&mut buf).map_err(|e| Error::io(path, e))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = "\
ffffffff81000000 T srso_alias_untrain_ret
ffffffff81000000 T _stext
ffffffff81000000 T _text
ffffffff81001000 t __pfx_do_one
ffffffff81001010 t do_one
ffffffff81001100 T schedule
ffffffff81001200 t do_one
ffffffff82000000 D jiffies
garbage line
ffffffffzz T bad_hex
ffffffff81002000 TT bad_kind
ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]
ffffffffc0100000 t ext4_fill_super\t[ext4]
ffffffffc0100100 T ext4_init\t[ext4]
ffffffffc0300000 t broken_module\t[nobracket
";

    fn fixture() -> KernelSymbols {
        KernelSymbols::parse(FIXTURE)
    }

    #[test]
    fn parses_and_skips_garbage() {
        let k = fixture();
        assert_eq!(k.len(), 12);
        assert!(!k.addresses_hidden());
        assert!(k.names().any(|n| n == "ftrace_trampoline"));
        assert!(!k.names().any(|n| n == "bad_hex" || n == "bad_kind"));
        // A malformed module suffix is read as no module, not as part of the name.
        assert_eq!(k.lookup("broken_module").unwrap().module, None);
    }

    #[test]
    fn resolve_by_binary_search() {
        let k = fixture();
        let s = k.resolve(0xffffffff81001105).unwrap();
        assert_eq!((s.name, s.offset, s.module), ("schedule", 5, None));
        assert_eq!(s.address, 0xffffffff81001100);
        // Aliases: prefer a global function without a leading underscore.
        assert_eq!(k.resolve(0xffffffff81000004).unwrap().name, "srso_alias_untrain_ret");
        let m = k.resolve(0xffffffffc0100104).unwrap();
        assert_eq!((m.name, m.offset, m.module), ("ext4_init", 4, Some("ext4")));
        assert!(k.resolve(0x1000).is_none());
        assert!(k.resolve(0).is_none());
    }

    #[test]
    fn names_to_addresses() {
        let k = fixture();
        assert_eq!(k.address("schedule"), Some(0xffffffff81001100));
        assert_eq!(k.address("ext4:ext4_fill_super"), Some(0xffffffffc0100000));
        assert_eq!(k.address("xfs:ext4_fill_super"), None);
        assert_eq!(k.address("nope"), None);
        assert_eq!(k.lookup_all("do_one").len(), 2);
        assert_eq!(k.lookup("jiffies").unwrap().kind, 'D');
        assert!(!k.function_names().any(|n| n == "jiffies"));
    }

    #[test]
    fn hidden_addresses() {
        let k = KernelSymbols::parse("0000000000000000 T _text\n0000000000000000 T schedule\n");
        assert!(k.addresses_hidden());
        assert!(k.resolve(5).is_none());
        assert_eq!(k.names().count(), 2);
    }

    #[test]
    fn empty_and_binary_garbage() {
        assert!(KernelSymbols::parse(String::new()).is_empty());
        let junk: Vec<u8> =
            (0..50_000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let k = KernelSymbols::parse(junk);
        let _ = (k.resolve(u64::MAX), k.address("x"), k.names().count());
        let k = KernelSymbols::parse(&b"ffffffff81000000 T \xff\xfe\nffffffff81000010 T ok\n"[..]);
        assert_eq!(
            k.resolve(0xffffffff81000004).unwrap().name,
            "",
            "non-UTF-8 names read as empty"
        );
        assert_eq!(k.resolve(0xffffffff81000014).unwrap().name, "ok");
    }
}
