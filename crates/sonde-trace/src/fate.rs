//! The traced tasks' fate as strace prints it: `--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER,
//! si_pid=42, si_uid=0} ---` for a signal delivered, `+++ exited with 3 +++` or `+++ killed by
//! SIGSEGV (core dumped) +++` for a task's end. The program reads the siginfo and the exit code
//! from the kernel's structs (`program::fate`); this module turns them into strace's text.

use crate::beauty::SIGNALS;
use std::collections::HashMap;

/// SIGKILL is never shown as delivered (strace cannot see it either).
pub const SIGKILL: i32 = 9;
const SIGILL: i32 = 4;
const SIGTRAP: i32 = 5;
const SIGBUS: i32 = 7;
const SIGFPE: i32 = 8;
const SIGSEGV: i32 = 11;
const SIGCHLD: i32 = 17;
const SIGPOLL: i32 = 29;
const SIGSYS: i32 = 31;
/// The kernel's first real-time signal (strace names it SIGRTMIN, the next ones SIGRT_N).
const SIGRTMIN: i32 = 32;

/// `signal_generate`'s results: sent and queued, or dropped as ignored (strace, a tracer, would
/// have seen it delivered).
pub const GENERATE_DELIVERED: u64 = 0;
pub const GENERATE_IGNORED: u64 = 1;

/// The parts of a `kernel_siginfo` strace prints. `word` is the 8 bytes at the start of its
/// union (`si_pid` and `si_uid`, or `si_addr`, or `si_band`); `status` the int after them
/// (`si_status`, `si_fd`, `si_int`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SigInfo {
    pub signo: i32,
    pub errno: i32,
    pub code: i32,
    pub word: u64,
    pub status: i32,
    pub utime: u64,
    pub stime: u64,
}

impl SigInfo {
    /// What `kill()`'s own siginfo holds when the kernel sent the signal without one
    /// (`SEND_SIG_NOINFO`, pointer 0: SI_USER from the sender) or as itself (`SEND_SIG_PRIV`,
    /// pointer 1: SI_KERNEL).
    pub fn without_info(signo: i32, pointer: u64, sender_pid: u32, sender_uid: u32) -> SigInfo {
        match pointer {
            0 => SigInfo {
                signo,
                word: sender_pid as u64 | (sender_uid as u64) << 32,
                ..SigInfo::default()
            },
            _ => SigInfo { signo, code: SI_KERNEL, ..SigInfo::default() },
        }
    }

    fn pid(&self) -> u32 {
        self.word as u32
    }

    /// The SIGCONT by which `sonde` (its pid) releases the command it holds into its exec: a
    /// signal of sonde's, not of the traced program's.
    pub fn is_release_by(&self, sonde: u32) -> bool {
        self.signo == libc::SIGCONT && self.code == SI_USER && self.pid() == sonde
    }

    fn uid(&self) -> u32 {
        (self.word >> 32) as u32
    }

    /// strace's `--- SIGNAME {si_signo=..., ...} ---`.
    pub fn line(&self) -> String {
        let name = signal_name(self.signo);
        let mut f = vec![format!("si_signo={name}"), format!("si_code={}", self.code_name())];
        if self.errno != 0 {
            f.push(format!("si_errno={}", errno_name(self.errno)));
        }
        let kill = || vec![format!("si_pid={}", self.pid()), format!("si_uid={}", self.uid())];
        let value = || {
            vec![
                format!("si_int={}", self.status),
                format!("si_ptr={}", pointer(self.status as u32 as u64)),
            ]
        };
        match self.code {
            SI_USER | SI_TKILL => f.extend(kill()),
            SI_QUEUE | SI_MESGQ => {
                f.extend(kill());
                f.extend(value());
            }
            SI_TIMER => {
                f.push(format!("si_timerid={:#x}", self.pid()));
                f.push(format!("si_overrun={}", self.uid()));
                f.extend(value());
            }
            c if c > 0 || c == SI_KERNEL => match self.signo {
                SIGCHLD => {
                    f.extend(kill());
                    let status = match self.code {
                        CLD_EXITED => self.status.to_string(),
                        _ => signal_name(self.status),
                    };
                    f.push(format!("si_status={status}"));
                    f.push(format!("si_utime={}", self.utime));
                    f.push(format!("si_stime={}", self.stime));
                }
                SIGILL | SIGFPE | SIGSEGV | SIGBUS | SIGTRAP => {
                    f.push(format!("si_addr={}", pointer(self.word)));
                }
                SIGPOLL => {
                    f.push(format!("si_band={}", self.word as i64));
                    f.push(format!("si_fd={}", self.status));
                }
                _ => {}
            },
            _ => {}
        }
        format!("--- {name} {{{}}} ---", f.join(", "))
    }

    fn code_name(&self) -> String {
        let general = match self.code {
            SI_USER => Some("SI_USER"),
            SI_KERNEL => Some("SI_KERNEL"),
            SI_QUEUE => Some("SI_QUEUE"),
            SI_TIMER => Some("SI_TIMER"),
            SI_MESGQ => Some("SI_MESGQ"),
            -4 => Some("SI_ASYNCIO"),
            -5 => Some("SI_SIGIO"),
            SI_TKILL => Some("SI_TKILL"),
            -7 => Some("SI_DETHREAD"),
            -60 => Some("SI_ASYNCNL"),
            _ => None,
        };
        let own: &[&str] = match self.signo {
            SIGCHLD => &[
                "CLD_EXITED",
                "CLD_KILLED",
                "CLD_DUMPED",
                "CLD_TRAPPED",
                "CLD_STOPPED",
                "CLD_CONTINUED",
            ],
            SIGSEGV => &[
                "SEGV_MAPERR",
                "SEGV_ACCERR",
                "SEGV_BNDERR",
                "SEGV_PKUERR",
                "SEGV_ACCADI",
                "SEGV_ADIDERR",
                "SEGV_ADIPERR",
                "SEGV_MTEAERR",
                "SEGV_MTESERR",
                "SEGV_CPERR",
            ],
            SIGBUS => &["BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"],
            SIGILL => &[
                "ILL_ILLOPC",
                "ILL_ILLOPN",
                "ILL_ILLADR",
                "ILL_ILLTRP",
                "ILL_PRVOPC",
                "ILL_PRVREG",
                "ILL_COPROC",
                "ILL_BADSTK",
                "ILL_BADIADDR",
            ],
            SIGFPE => &[
                "FPE_INTDIV",
                "FPE_INTOVF",
                "FPE_FLTDIV",
                "FPE_FLTOVF",
                "FPE_FLTUND",
                "FPE_FLTRES",
                "FPE_FLTINV",
                "FPE_FLTSUB",
            ],
            SIGTRAP => &["TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK"],
            SIGPOLL => &["POLL_IN", "POLL_OUT", "POLL_MSG", "POLL_ERR", "POLL_PRI", "POLL_HUP"],
            SIGSYS => &["SYS_SECCOMP", "SYS_USER_DISPATCH"],
            _ => &[],
        };
        let own = usize::try_from(self.code).ok().and_then(|c| own.get(c.checked_sub(1)?));
        match (general, own) {
            (Some(g), _) => g.to_string(),
            (None, Some(o)) => o.to_string(),
            (None, None) => self.code.to_string(),
        }
    }
}

const SI_USER: i32 = 0;
const SI_KERNEL: i32 = 0x80;
const SI_QUEUE: i32 = -1;
const SI_TIMER: i32 = -2;
const SI_MESGQ: i32 = -3;
const SI_TKILL: i32 = -6;
const CLD_EXITED: i32 = 1;

/// strace's `-e signal=SET`: the signals whose `--- SIG... ---` lines print (all by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalSet(u128);

impl Default for SignalSet {
    fn default() -> Self {
        SignalSet(u128::MAX)
    }
}

impl SignalSet {
    /// `SET`: signals by name (`SIGUSR1`, `usr1`, `SIGRT_2`) or number, `all`, `none`; a
    /// leading `!` negates the whole list, as strace reads it.
    pub fn parse(set: &str) -> Result<Self, String> {
        let (negated, list) = match set.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, set),
        };
        let mut bits = 0u128;
        for word in list.split(',').map(str::trim) {
            bits |= match word.to_ascii_lowercase().as_str() {
                "all" => u128::MAX,
                "none" => 0,
                _ => {
                    let n = signal_number(word)
                        .ok_or_else(|| format!("-e signal={set}: `{word}` is not a signal"))?;
                    1u128 << n
                }
            };
        }
        Ok(SignalSet(if negated { !bits } else { bits }))
    }

    pub fn contains(self, signo: i32) -> bool {
        (0..128).contains(&signo) && self.0 & (1u128 << signo) != 0
    }
}

/// A signal by strace's name (with or without `SIG`, in any case) or by number.
fn signal_number(word: &str) -> Option<u32> {
    if let Ok(n) = word.parse::<u32>() {
        return (1..=64).contains(&n).then_some(n);
    }
    let up = word.to_ascii_uppercase();
    let name = if up.starts_with("SIG") { up } else { format!("SIG{up}") };
    (1..=64).find(|&n| signal_name(n as i32) == name)
}

/// A signal's name as strace prints it: `SIGUSR1`, `SIGRTMIN`, `SIGRT_2`, else the number.
pub fn signal_name(sig: i32) -> String {
    if let Some((_, n)) = SIGNALS.iter().find(|(v, _)| *v == sig as u64) {
        return n.to_string();
    }
    match sig - SIGRTMIN {
        0 => "SIGRTMIN".into(),
        n @ 1..=32 => format!("SIGRT_{n}"),
        _ => sig.to_string(),
    }
}

fn errno_name(e: i32) -> String {
    crate::errno::name(e).map_or_else(|| e.to_string(), str::to_string)
}

fn pointer(p: u64) -> String {
    match p {
        0 => "NULL".into(),
        p => format!("{p:#x}"),
    }
}

/// strace's last line for a task: `+++ exited with N +++`, `+++ killed by SIGNAME +++` (with
/// ` (core dumped)`), from the kernel's `task_struct.exit_code` (a wait status).
pub fn exit_line(exit_code: u32) -> String {
    let sig = (exit_code & 0x7f) as i32;
    match sig {
        0 => format!("+++ exited with {} +++", (exit_code >> 8) & 0xff),
        _ if exit_code & 0x80 != 0 => {
            format!("+++ killed by {} (core dumped) +++", signal_name(sig))
        }
        _ => format!("+++ killed by {} +++", signal_name(sig)),
    }
}

/// The signal that killed a task, from its exit code (None when it exited by itself).
pub fn killed_by(exit_code: u32) -> Option<i32> {
    Some((exit_code & 0x7f) as i32).filter(|&s| s != 0)
}

/// A wait status from a shell's status (128 + N when signal N killed the command): for the
/// command's last line where the kernel's exit code could not be read.
pub fn exit_code_of_status(status: i32) -> u32 {
    match status {
        129..=192 => (status - 128) as u32,
        s => ((s as u32) & 0xff) << 8,
    }
}

/// Signals sent to traced processes and not yet seen delivered. A fatal signal with no handler
/// and no core dump kills its process without ever being delivered (the kernel takes a short
/// cut a tracer prevents): its line is printed from here, just before the process's end.
#[derive(Debug, Default)]
pub struct Sent {
    by_process: HashMap<(u32, i32), SigInfo>,
}

impl Sent {
    pub fn sent(&mut self, pid: u32, info: SigInfo) {
        self.by_process.insert((pid, info.signo), info);
    }

    pub fn delivered(&mut self, pid: u32, signo: i32) {
        self.by_process.remove(&(pid, signo));
    }

    /// The line of the signal that killed `pid`, once (not for SIGKILL).
    pub fn killing(&mut self, pid: u32, exit_code: u32) -> Option<SigInfo> {
        let sig = killed_by(exit_code).filter(|&s| s != SIGKILL)?;
        self.by_process.remove(&(pid, sig))
    }

    /// Forgets a process that ended.
    pub fn ended(&mut self, pid: u32) {
        self.by_process.retain(|(p, _), _| *p != pid);
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod signal_set_tests {
    use super::SignalSet;

    #[test]
    fn sets_read_as_strace_reads_them() {
        let s = SignalSet::parse("SIGUSR1,int,15,SIGRT_2").unwrap();
        let shown: Vec<i32> = (1..=64).filter(|&n| s.contains(n)).collect();
        assert_eq!(shown, [2, 10, 15, 34]);
        let not = SignalSet::parse("!SIGCHLD").unwrap();
        assert!(!not.contains(17) && not.contains(10));
        assert!(!SignalSet::parse("none").unwrap().contains(10));
        assert!(SignalSet::parse("all").unwrap().contains(64));
        assert!(SignalSet::default().contains(17));
        assert_eq!(
            SignalSet::parse("SIGBOGUS").unwrap_err(),
            "-e signal=SIGBOGUS: `SIGBOGUS` is not a signal"
        );
    }
}
