//! Why a run failed, and its exit status: 2 for usage and compile errors, 1 for the kernel's refusals.

use sonde_compile::ProgramDef;
use sonde_kernel::error::KernelError;
use sonde_syntax::diag::{Diagnostic, SourceFile};

pub enum Failure {
    Usage(String),
    Compile(Vec<Diagnostic>, SourceFile),
    /// A kernel or system refusal, already a sentence.
    Setup(String),
    Attach(String, String),
    /// The verifier refused a program: which probe, its last words, the source line.
    Verifier {
        probe: String,
        log_tail: String,
        at: Option<String>,
    },
    /// A stop signal came while programs were loaded or attached: what was loaded or attached
    /// goes with sonde, and BEGIN never ran.
    Interrupted,
}

/// Its sentence (tests unwrap results that carry one).
impl std::fmt::Debug for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.sentence())
    }
}

impl Failure {
    pub fn kernel(e: KernelError) -> Failure {
        match e {
            KernelError::Interrupted { .. } => Failure::Interrupted,
            e => Failure::Setup(e.to_string()),
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) | Failure::Compile(..) => 2,
            _ => 1,
        }
    }

    /// The failure as one line (the first diagnostic of a compile error, the verifier's last
    /// words), for reports that list many things.
    pub fn sentence(&self) -> String {
        match self {
            Failure::Usage(m) | Failure::Setup(m) => m.clone(),
            Failure::Compile(diags, _) => {
                diags.first().map_or_else(|| "does not compile".into(), |d| d.message.clone())
            }
            Failure::Attach(probe, m) => format!("cannot attach {}: {}", probe, m),
            Failure::Verifier { probe, log_tail, .. } => format!(
                "the verifier rejected {}: {}",
                probe,
                log_tail.lines().last().unwrap_or("").trim()
            ),
            Failure::Interrupted => crate::signals::INTERRUPTED_MESSAGE.into(),
        }
    }

    pub fn report(&self) {
        let color = stderr_is_terminal();
        match self {
            Failure::Compile(diags, file) => {
                for d in diags {
                    eprint!("{}", sonde_syntax::render(d, file, color));
                }
                let n = diags.len();
                eprintln!(
                    "sonde: {} error{} in the program; nothing was attached",
                    n,
                    if n == 1 { "" } else { "s" }
                );
            }
            Failure::Usage(_) | Failure::Setup(_) | Failure::Attach(..) | Failure::Interrupted => {
                eprintln!("sonde: {}", self.sentence())
            }
            Failure::Verifier { probe, log_tail, at } => {
                eprintln!("sonde: the kernel's verifier rejected the program for {}:", probe);
                for l in log_tail.lines() {
                    eprintln!("    {}", l);
                }
                if let Some(at) = at {
                    eprint!("{}", at);
                }
            }
        }
    }
}

/// Colour diagnostics only for a person at a terminal.
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

/// Turn a load failure into a report naming the probe and pointing at the source line of the
/// instruction the verifier stopped at.
pub fn verifier_failure(e: KernelError, p: &ProgramDef, source: &SourceFile) -> Failure {
    if matches!(e, KernelError::Interrupted { .. }) {
        return Failure::Interrupted;
    }
    let KernelError::Verifier { log, .. } = &e else {
        return Failure::Setup(format!("cannot load the program for {}: {}", p.name, e));
    };
    // bpftrace's override(): the kernel has the helper only with CONFIG_BPF_KPROBE_OVERRIDE.
    // The verifier says "program of this type cannot use helper bpf_override_return#58" (older
    // kernels "unknown func bpf_override_return#58").
    if log.contains("cannot use helper bpf_override_return")
        || log.contains("unknown func bpf_override_return")
    {
        return Failure::Setup(format!(
            "{}: override() needs a kernel built with CONFIG_BPF_KPROBE_OVERRIDE (its helper, bpf_override_return, is missing from this one)",
            p.name
        ));
    }
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(8)..].join("\n");
    // The last "N: (op) ..." line is the instruction being checked when the verifier gave up.
    let insn = lines.iter().rev().find_map(|l| {
        let (n, rest) = l.split_once(':')?;
        rest.trim_start().starts_with('(').then(|| n.trim().parse::<usize>().ok()).flatten()
    });
    let at = insn.and_then(|i| p.spans.get(i)).map(|span| {
        let d =
            Diagnostic::error(*span, format!("instruction {} came from here", insn.unwrap_or(0)));
        sonde_syntax::render(&d, source, false)
    });
    Failure::Verifier { probe: p.name.clone(), log_tail: tail, at }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_override_helper_names_the_kernel_option() {
        let p = ProgramDef {
            name: "kprobe:vfs_read".into(),
            kind: sonde_compile::provider::ProgKind::Kprobe,
            sites: vec![],
            insns: vec![],
            relocs: vec![],
            spans: vec![],
            run_slot: None,
            callbacks: vec![],
            functions: vec![],
        };
        let source = SourceFile { name: "t.bt".into(), text: String::new() };
        let log = "0: R1=ctx() R10=fp0\n5: (85) call bpf_override_return#58\nprogram of this type cannot use helper bpf_override_return#58\n";
        let e = KernelError::Verifier { prog: "p".into(), errno: 22, log: log.into() };
        let f = verifier_failure(e, &p, &source);
        assert_eq!(f.sentence(), "kprobe:vfs_read: override() needs a kernel built with CONFIG_BPF_KPROBE_OVERRIDE (its helper, bpf_override_return, is missing from this one)");
        assert_eq!(f.exit_code(), 1);
    }
}
