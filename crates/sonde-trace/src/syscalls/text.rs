//! The table as text, to be kept between runs (the binary keeps it once per boot: reading some
//! 370 format files costs a short run most of its time). One syscall a line:
//! `NR NAME TRACEPOINT ARG...`, each argument `NAME:BYTES:FLAGS`, the flags `s` (a string), `p`
//! (a pointer), `i` (signed), `d` (a pid).

use super::{Arg, Syscall, SyscallTable};
use std::fmt::Write;

/// The first line: a table in another layout is not read.
const HEADER: &str = "sonde syscall table 1";

impl SyscallTable {
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for sc in self.iter() {
            let _ = write!(out, "{} {} {}", sc.nr, sc.name, sc.tracepoint);
            for a in &sc.args {
                let flags: String =
                    [(a.is_string, 's'), (a.is_pointer, 'p'), (a.signed, 'i'), (a.pid, 'd')]
                        .iter()
                        .filter(|(on, _)| *on)
                        .map(|(_, c)| *c)
                        .collect();
                let _ = write!(out, " {}:{}:{flags}", a.name, a.bytes);
            }
            out.push('\n');
        }
        out
    }

    /// The table [`to_text`](Self::to_text) wrote; None for anything else (a damaged file is
    /// built again).
    pub fn from_text(text: &str) -> Option<SyscallTable> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let list: Option<Vec<Syscall>> = lines.map(syscall).collect();
        let list = list?;
        (!list.is_empty()).then(|| SyscallTable::from_syscalls(list))
    }
}

fn syscall(line: &str) -> Option<Syscall> {
    let mut words = line.split(' ');
    let nr = words.next()?.parse().ok()?;
    let name = words.next()?.to_string();
    let tracepoint = words.next()?.to_string();
    let args: Option<Vec<Arg>> = words.map(arg).collect();
    Some(Syscall { nr, name, tracepoint, args: args? })
}

fn arg(word: &str) -> Option<Arg> {
    let mut parts = word.split(':');
    let name = parts.next()?.to_string();
    let bytes = parts.next()?.parse().ok()?;
    let flags = parts.next()?;
    if parts.next().is_some() || name.is_empty() {
        return None;
    }
    Some(Arg {
        name,
        is_string: flags.contains('s'),
        is_pointer: flags.contains('p'),
        signed: flags.contains('i'),
        bytes,
        pid: flags.contains('d'),
    })
}
