//! Stack ids from the stack map -> symbolized frames: kernel addresses through /proc/kallsyms,
//! user addresses through the process's mappings and the ELF symbols of the mapped files.

use sonde_kernel::map::Map;
use sonde_symbols::process::ProcessSymbols;
use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    /// One symbolizer per process, reused for every stack of that process.
    static PROCESSES: RefCell<HashMap<u32, ProcessSymbols>> = RefCell::new(HashMap::new());
}

/// The frames of stack `raw` (a kstack id, or for a ustack pid << 32 | id); None when the
/// kernel could not take it.
pub fn frames(stacks: &Map, raw: u64, user: bool) -> Option<Vec<String>> {
    let id = raw as u32;
    if id >= 0x8000_0000 {
        return None;
    }
    let addrs = stacks.stack(id).ok()??;
    if !user {
        return Some(addrs.iter().map(|&a| crate::decode::ksym(a).unwrap_or_else(|| format!("0x{:x}", a))).collect());
    }
    let pid = (raw >> 32) as u32;
    PROCESSES.with(|p| {
        let mut p = p.borrow_mut();
        let syms = p.entry(pid).or_insert_with(|| ProcessSymbols::for_pid(pid));
        Some(addrs.iter().map(|&a| syms.format(a)).collect())
    })
}

/// The process `usym()` resolves in: the `-p` process or the `-c` command.
static TARGET_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

pub fn set_target_pid(pid: u32) {
    TARGET_PID.store(pid, std::sync::atomic::Ordering::Relaxed);
}

/// `usym(addr)`: the symbol of the traced process's address, if it is still alive.
pub fn usym(addr: u64) -> Option<String> {
    let pid = TARGET_PID.load(std::sync::atomic::Ordering::Relaxed);
    if pid == 0 {
        return None;
    }
    PROCESSES.with(|p| {
        let mut p = p.borrow_mut();
        let syms = p.entry(pid).or_insert_with(|| ProcessSymbols::for_pid(pid));
        let s = syms.resolve(addr)?;
        Some(match (s.symbol, s.offset) {
            (Some(name), 0) => name,
            (Some(name), off) => format!("{}+0x{:x}", name, off),
            (None, _) => return None,
        })
    })
}

/// bpftrace's layout: a newline, each frame indented on its own line, a newline; as a map key
/// this prints `@[\n        frame\n        frame\n]: 3`.
pub fn layout(frames: Option<Vec<String>>) -> String {
    match frames {
        Some(f) if !f.is_empty() => {
            let mut s = String::from("\n");
            for frame in f {
                s.push_str("        ");
                s.push_str(&frame);
                s.push('\n');
            }
            s
        }
        _ => "\n        [stack unavailable]\n".into(),
    }
}
