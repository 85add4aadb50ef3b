//! Golden tests: each `tests/golden/NAME.sonde` compiles (against fixture tracepoints) to the typed
//! program and annotated disassembly in `NAME.out`, or to the diagnostics there. `BLESS=1` rewrites
//! the `.out` files. The verifier lane loads every program that compiles into the running kernel.

mod common;

use common::FixtureEnv;
use sonde_compile::{Compiled, Options};
use sonde_syntax::diag::SourceFile;
use std::path::{Path, PathBuf};

fn goldens() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sonde"))
        .collect();
    v.sort();
    v
}

fn opts() -> Options {
    let mut o = Options::new();
    o.start_ns = 1_000_000;
    o
}

/// Compile one golden: the text to compare, and the programs when it compiled.
fn compile(path: &Path) -> (String, Option<Compiled>) {
    let text = std::fs::read_to_string(path).unwrap();
    let file =
        SourceFile { name: path.file_name().unwrap().to_string_lossy().into(), text: text.clone() };
    let mut env = FixtureEnv::new();
    // `// kernel: 5.10` models a kernel without bpf_get_func_ip.
    env.no_func_ip = text.lines().next().is_some_and(|l| l.trim() == "// kernel: 5.10");
    let render = |diags: Vec<sonde_syntax::diag::Diagnostic>| {
        diags.iter().map(|d| sonde_syntax::render(d, &file, false)).collect::<String>()
    };
    let ast = match sonde_syntax::parse(&text) {
        Ok(a) => a,
        Err(d) => return (render(d), None),
    };
    // `// --unsafe` allows what bpftrace's --unsafe does (system, override, signal).
    let mut opts = opts();
    opts.allow_unsafe = text.lines().any(|l| l.trim() == "// --unsafe");
    // `// in a pid namespace` models sonde run in a pid namespace of its own.
    if text.lines().any(|l| l.trim() == "// in a pid namespace") {
        opts.pid_namespace = Some((4, 0xF000_0001));
    }
    let typed = match sonde_compile::check(&ast, &env, &opts) {
        Ok(t) => t,
        Err(d) => return (render(d), None),
    };
    match sonde_compile::lower(&typed, &opts) {
        Ok(c) => {
            let out = format!(
                "{}\n{}",
                sonde_compile::dump::typed(&typed),
                sonde_compile::dump::compiled(&c, &text)
            );
            (out, Some(c))
        }
        Err(d) => (render(d), None),
    }
}

#[test]
fn goldens_match() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failed = Vec::new();
    for path in goldens() {
        let (got, _) = compile(&path);
        let out = path.with_extension("out");
        if bless {
            std::fs::write(&out, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&out).unwrap_or_default();
        if got != want {
            eprintln!("--- {} differs; got:\n{}", path.display(), got);
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "goldens differ (BLESS=1 to accept): {:?}", failed);
}

#[test]
fn goldens_pass_the_verifier() {
    if unsafe { libc_geteuid() } != 0 {
        eprintln!("skipped: not root, cannot load BPF programs");
        return;
    }
    let mut loaded = 0;
    for path in goldens() {
        let (_, compiled) = compile(&path);
        let Some(c) = compiled else { continue };
        if let Err(e) = sonde_kernel_load(&c) {
            // bpf_override_return exists only in kernels built with CONFIG_BPF_KPROBE_OVERRIDE
            // (not this host's, maybe): that refusal, and only it, skips such a golden.
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.contains("// kconfig: BPF_KPROBE_OVERRIDE")
                && e.contains("cannot use helper bpf_override_return")
            {
                eprintln!(
                    "{}: skipped: this kernel has no CONFIG_BPF_KPROBE_OVERRIDE",
                    path.display()
                );
                continue;
            }
            panic!("{}: {}", path.display(), e);
        }
        loaded += c.programs.len();
    }
    assert!(loaded > 10, "only {} programs loaded", loaded);
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}

/// Create the maps and load every program through the loader the binary uses.
fn sonde_kernel_load(c: &Compiled) -> Result<(), String> {
    use sonde_compile::provider::ProgKind;
    let maps = sonde_load::create_maps(c).map_err(|e| e.to_string())?;
    for p in &c.programs {
        // Trampoline programs are verified against a kernel function's BTF, and the fixture's
        // ids are not the host's: the VM lane (tests/vm) loads them on kernels with trampolines.
        if matches!(p.kind, ProgKind::Fentry | ProgKind::Fexit) {
            continue;
        }
        sonde_load::load_program(p, &maps).map_err(|e| format!("program {}: {}", p.name, e))?;
    }
    Ok(())
}
