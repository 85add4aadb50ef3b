//! `sonde trace`'s compiled program, kept in `/run/sonde/trace-IDENTITY-KEY` (see `kept`): a
//! run whose program text and options an earlier run of this sonde on this kernel compiled
//! reads it back instead of reading the kernel's BTF and compiling (~10-30 ms of a short run).
//! The key is the text itself, checked whole on reading; the pids that change every run (the
//! command's, sonde's own) are written as stand-ins and put in the instructions afterwards.

use crate::kept;
use sonde_compile::{Compiled, Options};
use sonde_trace::program::{Plan, Targets};

/// Programs kept (one per kernel, sonde binary and set of flags that changes the program).
const MOST: usize = 32;

/// Stand-ins for the pids of the command and of sonde: beyond any pid (pid_max is at most
/// 2^22), within an instruction's 32-bit immediate like a real pid.
const COMMAND_STAND_IN: u32 = 2_000_000_011;
const SONDE_STAND_IN: u32 = 2_000_000_017;

/// The plan's targets with stand-ins, and each stand-in with the pid it stands for; none where
/// the program's own text (`real`: a uid, a filter) has a stand-in's number.
pub fn stand_ins(plan: &Plan, command: Option<u32>, real: &str) -> (Targets, Vec<(u32, u32)>) {
    let taken = [COMMAND_STAND_IN, SONDE_STAND_IN].iter().any(|s| real.contains(&s.to_string()));
    match &plan.targets {
        _ if taken => (plan.targets.clone(), Vec::new()),
        Targets::Pids(p) if command.is_some_and(|c| p[..] == [c]) => {
            (Targets::Pids(vec![COMMAND_STAND_IN]), vec![(COMMAND_STAND_IN, p[0])])
        }
        Targets::AllBut(me) => (Targets::AllBut(SONDE_STAND_IN), vec![(SONDE_STAND_IN, *me)]),
        other => (other.clone(), Vec::new()),
    }
}

/// What a kept program is found by: its text and the compiler's options.
pub fn key(text: &str, opts: &Options) -> String {
    format!("{opts:?}\n{text}")
}

#[derive(serde::Serialize, serde::Deserialize)]
struct KeptProgram {
    key: String,
    compiled: Compiled,
}

/// The program compiled from `key`, if a run kept it.
pub fn find(key: &str) -> Option<Compiled> {
    let path = kept::path("trace", Some(kept::fnv(key.as_bytes())))?;
    let bytes = std::fs::read(path).ok()?;
    let kept: KeptProgram = serde_json::from_slice(&bytes).ok()?;
    (kept.key == key).then_some(kept.compiled)
}

/// Keeps the program compiled from `key` for the next runs.
pub fn keep(key: &str, compiled: &Compiled) {
    let Some(path) = kept::path("trace", Some(kept::fnv(key.as_bytes()))) else { return };
    let kept = KeptProgram { key: key.to_string(), compiled: compiled.clone() };
    if let Ok(bytes) = serde_json::to_vec(&kept) {
        kept::keep(&path, &bytes, MOST);
    }
}

/// Puts the real pids where the stand-ins are: every immediate equal to one (the second half
/// of a 64-bit load is a constant's upper bits, never a pid).
pub fn put_pids(compiled: &mut Compiled, swaps: &[(u32, u32)]) {
    for p in &mut compiled.programs {
        let mut upper = false;
        for insn in &mut p.insns {
            if !upper {
                if let Some(&(_, real)) = swaps.iter().find(|(s, _)| insn.imm == *s as i32) {
                    insn.imm = real as i32;
                }
            }
            upper = !upper && insn.is_ld_imm64();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face_trace::{compile_text, plan, select, table};
    use crate::host_env::HostEnv;
    use crate::run::Target;
    use sonde_syntax::diag::SourceFile;

    /// The host and its syscall table: None unless root on a kernel with BTF (the table needs
    /// tracefs, the raw tracepoints BTF).
    fn host() -> Option<(HostEnv, sonde_trace::syscalls::SyscallTable)> {
        let btf = std::path::Path::new(sonde_btf::Btf::VMLINUX_PATH).exists();
        if unsafe { libc::geteuid() } != 0 || !btf {
            return None;
        }
        let env = HostEnv::new();
        let table = table::load(&env).unwrap();
        Some((env, table))
    }

    fn compiled(text: String, plan: &Plan, env: &HostEnv) -> Compiled {
        let source = SourceFile { name: "<test>".into(), text };
        compile_text(&source, plan, env, &Options::new()).unwrap_or_else(|f| panic!("{f:?}"))
    }

    // Compiled with a stand-in, then given the pid, a program is the one compiled with the pid.
    #[test]
    fn stand_ins_become_the_pids_they_stand_for() {
        let Some((env, table)) = host() else { return };
        for (flags, targets, command) in [
            (&["-f", "--", "true"][..], Targets::Pids(vec![4321]), Some(4321)),
            (&["--", "true"][..], Targets::Pids(vec![65]), Some(65)),
            (&["--all", "-e", "openat"][..], Targets::AllBut(9876), None),
            (&["--all", "-c"][..], Targets::AllBut(77), None),
        ] {
            let a = crate::cli::tests::trace(flags);
            let (selection, events) = select(&a, &table, &env).unwrap();
            let target = Target::new(None, &[]).unwrap();
            let real =
                Plan { targets, ..plan(&a, &table, &selection, &target, &events, (true, &env)) };
            let (targets, pids) = stand_ins(&real, command, &real.program());
            assert_eq!(pids.len(), 1, "{flags:?}");
            let kept = Plan { targets, ..real.clone() };
            let mut patched = compiled(kept.program(), &kept, &env);
            put_pids(&mut patched, &pids);
            let want = compiled(real.program(), &real, &env);
            assert_eq!(patched.programs.len(), want.programs.len());
            for (p, w) in patched.programs.iter().zip(&want.programs) {
                assert_eq!(p.insns, w.insns, "{flags:?}: {}", p.name);
            }
        }
        // A uid that is a stand-in's number: no stand-in, the pid stays in the text.
        let a = crate::cli::tests::trace(&["--uid", "2000000011", "--", "true"]);
        let (selection, events) = select(&a, &table, &env).unwrap();
        let target = Target::new(None, &[]).unwrap();
        let real = Plan {
            targets: Targets::Pids(vec![65]),
            ..plan(&a, &table, &selection, &target, &events, (true, &env))
        };
        let (targets, pids) = stand_ins(&real, Some(65), &real.program());
        assert_eq!((targets, pids), (Targets::Pids(vec![65]), vec![]));
    }

    // The registers in `struct pt_regs` (BTF-typed on a raw tracepoint) are read with loads:
    // no bpf_probe_read call, each one a helper call more for the verifier to check at start.
    #[test]
    fn the_programs_read_the_registers_without_a_helper() {
        let Some((env, table)) = host() else { return };
        let a = crate::cli::tests::trace(&["--", "true"]);
        let (selection, events) = select(&a, &table, &env).unwrap();
        let target = Target::new(None, &[]).unwrap();
        let plan = Plan {
            targets: Targets::Pids(vec![65]),
            ..plan(&a, &table, &selection, &target, &events, (true, &env))
        };
        let c = compiled(plan.program(), &plan, &env);
        let probe_read = sonde_bpf::insn::Insn::call(4);
        for p in c.programs.iter().filter(|p| p.name.contains("sys_e")) {
            assert!(!p.insns.contains(&probe_read), "{}: a bpf_probe_read", p.name);
        }
    }
}
