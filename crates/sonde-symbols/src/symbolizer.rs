//! Addresses to names for printing: kernel addresses through /proc/kallsyms (read once, on the
//! first one), user addresses through each process's mappings and ELF symbols (one cache per
//! process). A value owned by whoever prints, so nothing about it is global.

use crate::elf::ElfSymbols;
use crate::kallsyms::KernelSymbols;
use crate::process::{ProcessSymbols, UserSymbol};
use std::collections::HashMap;
use std::path::Path;

pub struct Symbolizer {
    /// Loaded on the first kernel address; `Some(None)` when kallsyms could not be read.
    kernel: Option<Option<KernelSymbols>>,
    processes: HashMap<u32, ProcessSymbols>,
    /// The process `usym()` resolves in: the `-p` process or the `-c` command.
    target_pid: Option<u32>,
    /// User frames as perf trace prints them (`name+0x1d (file)`), for the faces that print
    /// perf's layout; otherwise as bpftrace does (`name+29`).
    perf_frames: bool,
    /// Executables loaded at the addresses their ELF says (not position-independent), by path:
    /// their functions are named even where no live process maps them any more.
    fixed: Vec<(String, ElfSymbols)>,
}

impl Symbolizer {
    pub fn new(target_pid: Option<u32>) -> Symbolizer {
        Symbolizer {
            kernel: None,
            processes: HashMap::new(),
            target_pid,
            perf_frames: false,
            fixed: Vec::new(),
        }
    }

    /// Names addresses in these executables (a program's uprobe binaries) from their own
    /// symbols when the process is gone or unknown; only those loaded at fixed addresses (not
    /// position-independent) count, since only their addresses say where they are.
    pub fn with_executables<'p>(mut self, paths: impl IntoIterator<Item = &'p Path>) -> Symbolizer {
        for path in paths {
            let known = self.fixed.iter().any(|(p, _)| Path::new(p) == path);
            if known || !is_fixed_executable(path) {
                continue;
            }
            if let Ok(elf) = ElfSymbols::load_with_debug(path) {
                self.fixed.push((path.to_string_lossy().into_owned(), elf));
            }
        }
        self
    }

    /// User stack frames as perf trace names them, `name+0x1d (/usr/lib/libc.so.6)` (sonde
    /// trace's and sonde graph's layout).
    pub fn perf_frames(mut self) -> Symbolizer {
        self.perf_frames = true;
        self
    }

    /// A symbolizer over a given kallsyms (for tests: no file is read).
    pub fn with_kernel(kernel: KernelSymbols, target_pid: Option<u32>) -> Symbolizer {
        Symbolizer { kernel: Some(Some(kernel)), ..Symbolizer::new(target_pid) }
    }

    /// The kernel symbol an address falls in: `vfs_read`, `vfs_read+0x1a`.
    pub fn ksym(&mut self, addr: u64) -> Option<String> {
        let syms = self.kernel.get_or_insert_with(|| KernelSymbols::load().ok()).as_ref()?;
        let s = syms.resolve(addr)?;
        Some(match s.offset {
            0 => s.name.to_string(),
            off => format!("{}+0x{:x}", s.name, off),
        })
    }

    /// `usym(addr)`: the symbol of the traced process's address, if there is one and it is
    /// alive, or else of a fixed-address executable's.
    pub fn usym(&mut self, addr: u64) -> Option<String> {
        let live = match self.target_pid {
            Some(pid) => self.process(pid).resolve(addr),
            None => None,
        };
        let (name, off) = match live {
            Some(s) => (s.symbol?, s.offset),
            None => self.fixed_symbol(addr).map(|(_, name, off)| (name.to_string(), off))?,
        };
        Some(match off {
            0 => name,
            off => format!("{}+0x{:x}", name, off),
        })
    }

    /// The function of a fixed-address executable that holds `addr`: (its file, name, offset).
    fn fixed_symbol(&self, addr: u64) -> Option<(&str, &str, u64)> {
        self.fixed.iter().find_map(|(path, elf)| {
            elf.vaddr_to_file_offset(addr)?;
            elf.symbol_at(addr).map(|(name, off)| (path.as_str(), name, off))
        })
    }

    /// One frame per address: kernel frames as [`Symbolizer::ksym`] (or the bare address),
    /// user frames of process `pid` as [`ProcessSymbols::frame`] (`name+37`, with `file` its
    /// file after it), or as [`ProcessSymbols::format`] with [`Symbolizer::perf_frames`].
    pub fn frames(&mut self, addrs: &[u64], user: Option<u32>, file: bool) -> Vec<String> {
        match user {
            None => {
                let mut name = |a: u64| self.ksym(a).unwrap_or_else(|| format!("0x{:x}", a));
                addrs.iter().map(|&a| name(a)).collect()
            }
            Some(pid) => {
                let perf = self.perf_frames;
                let mut frame = |a: u64| {
                    let syms = self.process(pid);
                    if syms.resolve(a).is_some() {
                        return if perf { syms.format(a) } else { syms.frame(a, file) };
                    }
                    match self.fixed_symbol(a) {
                        Some((path, s, off)) if perf => format!("{s}+{off:#x} ({path})"),
                        Some((path, s, off)) if file => format!("{s}+{off} ({path})"),
                        Some((_, s, off)) => format!("{s}+{off}"),
                        None => self.process(pid).format(a),
                    }
                };
                addrs.iter().map(|&a| frame(a)).collect()
            }
        }
    }

    /// User address `addr` of process `pid`, resolved in its mappings (None: in none of them,
    /// or the process is gone).
    pub fn user_symbol(&mut self, pid: u32, addr: u64) -> Option<UserSymbol> {
        self.process(pid).resolve(addr)
    }

    /// Process `pid` replaced its image (execve): its mappings are read again when next needed.
    pub fn forget(&mut self, pid: u32) {
        self.processes.remove(&pid);
    }

    fn process(&mut self, pid: u32) -> &mut ProcessSymbols {
        self.processes.entry(pid).or_insert_with(|| ProcessSymbols::for_pid(pid))
    }
}

/// An ELF executable of type ET_EXEC: loaded at the addresses its headers give.
fn is_fixed_executable(path: &Path) -> bool {
    use std::io::Read;
    const ET_EXEC: u16 = 2;
    let mut head = [0u8; 18];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && head[..4] == *b"\x7fELF" && u16::from_le_bytes([head[16], head[17]]) == ET_EXEC
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> KernelSymbols {
        KernelSymbols::parse("ffffffff81000000 T vfs_read\nffffffff81000100 T vfs_write\n")
    }

    #[test]
    fn kernel_addresses_print_as_symbol_and_offset() {
        let mut s = Symbolizer::with_kernel(kernel(), None);
        assert_eq!(s.ksym(0xffffffff81000000).as_deref(), Some("vfs_read"));
        assert_eq!(s.ksym(0xffffffff8100001a).as_deref(), Some("vfs_read+0x1a"));
        let frames = s.frames(&[0xffffffff81000104, 0x10], None, false);
        assert_eq!(frames, ["vfs_write+0x4", "0x10"]);
    }

    #[test]
    fn usym_needs_a_target_process() {
        assert_eq!(Symbolizer::with_kernel(kernel(), None).usym(0x1000), None);
    }
}
