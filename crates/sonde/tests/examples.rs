//! End-to-end: the examples in README.md and docs/*.md run as written, and the ply manual's
//! tracepoint/interval examples compile and pass the kernel's verifier (`-e`), a few for real.

mod common;

use common::{sonde, sonde_bin, wl, workload};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// README.md and every docs/*.md.
fn doc_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files.insert(0, Path::new(ROOT).join("README.md"));
    files
}

/// A `sonde ...` command in a code block, shown bare or after a `# ` prompt.
#[derive(Debug)]
struct Example {
    file: String,
    /// The command from `sonde` on, continuation lines joined with newlines.
    cmd: String,
}

impl Example {
    /// `Some("trace")` for `sonde trace ...`: a first word that is a bare name (a program is quoted
    /// or a file name, a flag starts with `-`). None for the language.
    fn face(&self) -> Option<&str> {
        let word = self.args().split(' ').next().unwrap_or("");
        (!word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase())).then_some(word)
    }

    /// The command after `sonde `.
    fn args(&self) -> &str {
        self.cmd.strip_prefix("sonde ").unwrap_or(&self.cmd)
    }

    /// The face's arguments, after `sonde FACE `.
    fn face_args(&self) -> &str {
        let face = self.face().unwrap_or("");
        self.args()[face.len()..].trim_start()
    }
}

/// The commands in one file's code blocks: every one after a `# ` prompt, and bare ones with a
/// quoted program (the usage synopses `sonde [OPTIONS] ...` have none). A command continues on the
/// next lines while a quote is open.
fn examples_in(path: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = path.strip_prefix(ROOT).unwrap_or(path).display().to_string();
    let mut found = Vec::new();
    let mut in_block = false;
    let mut open: Option<String> = None;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            assert!(open.is_none(), "{file}: a command's quote is still open at: {line}");
            continue;
        }
        if !in_block {
            continue;
        }
        let cmd = match open.take() {
            Some(cmd) => format!("{cmd}\n{line}"),
            None => match command_on(line) {
                Some(cmd) => cmd.to_string(),
                None => continue,
            },
        };
        if cmd.matches('\'').count() % 2 == 1 {
            open = Some(cmd);
        } else {
            found.push(Example { file: file.clone(), cmd });
        }
    }
    found
}

/// The command a code block's line starts: one after a `# ` prompt, or a bare one with a quote.
fn command_on(line: &str) -> Option<&str> {
    match line.strip_prefix("# ") {
        Some(prompted) => prompted.starts_with("sonde ").then_some(prompted),
        None => (line.starts_with("sonde ") && line.contains('\'')).then_some(line),
    }
}

fn doc_examples() -> Vec<Example> {
    doc_files().iter().flat_map(|f| examples_in(f)).collect()
}

/// The language's examples.
fn programs() -> Vec<Example> {
    doc_examples().into_iter().filter(|e| e.face().is_none()).collect()
}

/// Examples that need kprobes, trampolines or the traceable-function list, which this host lacks:
/// tests/vm/cases/doc_examples.sh loads them on the VM kernels.
fn needs_vm(cmd: &str) -> bool {
    ["'kprobe:", "'kretprobe:", "'fentry:", "'fexit:"].iter().any(|p| cmd.contains(p))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Runner {
    /// This host runs it: `sonde trace` (tracepoints), `sonde probe` printing without enabling.
    Host,
    /// It needs kprobes or the function tracer: a VM case runs it.
    Vm,
    /// A face this test does not know how to run yet.
    Unknown,
}

fn runner(e: &Example) -> Runner {
    let printing_only =
        ["--show ", "-S ", "--to-language "].iter().any(|f| e.face_args().contains(f));
    match e.face() {
        Some("trace") => Runner::Host,
        Some("probe") if printing_only => Runner::Host,
        Some("probe" | "graph") => Runner::Vm,
        _ => Runner::Unknown,
    }
}

fn face_examples(run: Runner) -> Vec<Example> {
    doc_examples().into_iter().filter(|e| e.face().is_some() && runner(e) == run).collect()
}

/// Runs `sonde ARGS` through the shell, which does the docs' quoting, with sonde-workload on PATH.
fn run_shell(args: &str) -> Output {
    let dir = workload().parent().expect("the workload's directory").to_owned();
    let path = std::env::var("PATH").unwrap_or_default();
    let line = format!("exec timeout 60 {} {}", sonde_bin(), args);
    Command::new("/bin/sh")
        .arg("-c")
        .arg(&line)
        .env("PATH", format!("{}:{path}", dir.display()))
        .output()
        .unwrap()
}

#[track_caller]
fn assert_ran(e: &Example, out: &Output) {
    assert!(
        out.status.success(),
        "{} example failed ({}): {}\n--- stderr:\n{}",
        e.file,
        out.status,
        e.cmd,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The text of every tests/vm/cases/*.sh.
fn vm_cases() -> String {
    let dir = Path::new(ROOT).join("tests/vm/cases");
    let mut text = String::new();
    for entry in std::fs::read_dir(&dir).expect("tests/vm/cases") {
        let p = entry.expect("a case").path();
        if p.extension().is_some_and(|x| x == "sh") {
            text.push_str(&std::fs::read_to_string(&p).expect("a case's text"));
        }
    }
    text
}

#[test]
fn every_doc_file_is_read() {
    let files = doc_files();
    for name in ["README.md", "language.md", "trace.md", "probe.md", "graph.md"] {
        let file = files.iter().find(|f| f.file_name().is_some_and(|n| n == name));
        let file = file.unwrap_or_else(|| panic!("{name} is not among {files:?}"));
        assert!(!examples_in(file).is_empty(), "no examples found in {}", file.display());
    }
    let examples = doc_examples();
    for face in ["probe", "trace", "graph"] {
        assert!(
            examples.iter().any(|e| e.face() == Some(face)),
            "no `sonde {face}` example found in the docs"
        );
    }
    if let Some(e) = face_examples(Runner::Unknown).first() {
        panic!(
            "{}: no rule here runs this face's examples yet (add one to runner()): {}",
            e.file, e.cmd
        );
    }
}

#[test]
fn doc_programs_load_into_the_verifier() {
    require_tracepoints!();
    let programs = programs();
    assert!(programs.len() >= 15, "found only {} programs: {:?}", programs.len(), programs);
    for e in programs.iter().filter(|e| !needs_vm(&e.cmd)) {
        // `-e` compiles and loads without attaching.
        assert_ran(e, &run_shell(&format!("-e {}", e.args())));
    }
}

#[test]
fn doc_kernel_programs_are_in_the_vm_lane() {
    let case = std::fs::read_to_string(Path::new(ROOT).join("tests/vm/cases/doc_examples.sh"))
        .expect("tests/vm/cases/doc_examples.sh");
    let programs = programs();
    assert!(programs.iter().any(|e| needs_vm(&e.cmd)), "the docs have no kernel-function examples");
    for e in programs.iter().filter(|e| needs_vm(&e.cmd)) {
        assert!(
            case.contains(e.args()),
            "{} example missing from tests/vm/cases/doc_examples.sh: {}",
            e.file,
            e.cmd
        );
    }
}

#[test]
fn doc_face_examples_run() {
    require_tracepoints!();
    let faces = face_examples(Runner::Host);
    assert!(faces.len() >= 4, "found only {} face examples to run: {:?}", faces.len(), faces);
    for e in &faces {
        let out = run_shell(e.args());
        assert_ran(e, &out);
        // `sonde trace` writes its lines to stderr, as strace does, apart from the command's.
        let printed = match e.face() {
            Some("trace") => &out.stderr,
            _ => &out.stdout,
        };
        assert!(!printed.is_empty(), "{} example printed nothing: {}", e.file, e.cmd);
    }
}

#[test]
fn doc_face_examples_for_the_vm_are_in_the_vm_lane() {
    let cases = vm_cases();
    let faces = face_examples(Runner::Vm);
    assert!(!faces.is_empty(), "the docs have no probe or graph examples for the VM lane");
    for e in &faces {
        assert!(
            cases.contains(e.face_args()),
            "{} example whose arguments no tests/vm/cases/*.sh runs: {}",
            e.file,
            e.cmd
        );
    }
}

/// The ply manual's examples that need only tracepoints and intervals (its kprobe examples run in
/// the VM lane), spelled as the manual spells them.
const PLY_MANUAL: &[&str] = &[
    "tracepoint:sched/sched_wakeup { @[data->comm] = count(); }",
    "tracepoint:irq/irq_handler_entry { @[data->irq] = count(); }",
    // The record changed since the manual: today it has `state` and `saddr` (a sockaddr).
    "tracepoint:tcp/tcp_send_reset { @[data->state, data->saddr[0]] = count(); }",
    "interval:1 { printf(\"tick\\n\"); }",
    "interval:500ms { @ = count(); }",
];

#[test]
fn ply_manual_examples_load_into_the_verifier() {
    require_tracepoints!();
    for prog in PLY_MANUAL {
        let o = sonde(&["-e", prog]);
        assert!(o.status.success(), "ply manual example failed: {}\n{}", prog, o.describe());
    }
}

#[test]
fn ply_manual_interval_runs() {
    require_tracepoints!();
    // interval:500ms fires twice in ~1.1 s; the -c command bounds the run.
    let o = sonde(&["-c", &wl(&["sleep", "1100"]), "interval:500ms { @ = count(); }"]);
    o.assert_ok();
    assert_eq!(o.int("@"), 2, "{}", o.describe());
}
