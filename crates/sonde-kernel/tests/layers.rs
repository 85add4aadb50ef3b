//! The crate's layer rule (docs/architecture.md, "sonde-kernel's layers"), checked on its source:
//! each module uses only modules before it in `ORDER` (the chart read from the bottom up, each
//! line left to right). `sys/` is one unit; comments may name anything.

use std::path::{Path, PathBuf};

/// Every module, lowest first.
const ORDER: &[&str] = &[
    "sys",
    "error",
    "host/clock",
    "host/cpus",
    "host/process",
    "host/pid_namespace",
    "host/run_dir",
    "tracefs",
    "tracefs/events",
    "object/name",
    "object/btf",
    "object/verifier_stats",
    "object/func_info",
    "object/map",
    "object/map_batch",
    "object/prog",
    "object/ringbuf",
    "tracefs/instance",
    "tracefs/probe_event",
    "tracefs/run_record",
    "tracefs/graph_tracer",
    "tracefs/leftovers",
    "attach/link",
    "attach/perf_attach",
    "attach/pmu",
    "attach/tracepoint",
    "attach/perf_event",
    "attach/breakpoint",
    "attach/kprobe",
    "attach/uprobe",
    "attach/kprobe_multi",
    "attach/fentry",
    "attach/iter",
    "features/kconfig",
    "features",
];

const FOLDERS: &[&str] = &["host", "tracefs", "object", "attach", "features"];

/// The module a source file is: `src/attach/kprobe.rs` is `attach/kprobe`, `src/tracefs/mod.rs`
/// is `tracefs`, everything under `src/sys/` is `sys`. None for `lib.rs` and folders' `mod.rs`
/// that only declare their modules.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let parts: Vec<String> =
        rel.iter().map(|p| p.to_string_lossy().into_owned()).filter(|p| p != "mod").collect();
    if parts[0] == "sys" {
        return "sys".into();
    }
    parts.join("/")
}

/// The module a `crate::a::b...` path names.
fn named(path: &str) -> Option<String> {
    let mut parts = path.split("::");
    let first = parts.next()?;
    match first {
        "sys" => Some("sys".into()),
        "error" | "KernelError" | "Result" => Some("error".into()),
        f if FOLDERS.contains(&f) => {
            let second = parts.next().unwrap_or("");
            let sub = format!("{f}/{second}");
            Some(if ORDER.contains(&sub.as_str()) { sub } else { f.to_string() })
        }
        _ => None,
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_module_uses_only_lower_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let rank = |m: &str| ORDER.iter().position(|o| *o == m);
    let mut broken = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(own) = rank(&module) else {
            assert!(
                module == "lib" || FOLDERS.contains(&module.as_str()),
                "{module} is not in ORDER"
            );
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (i, _) in line.match_indices("crate::") {
                let path: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let Some(used) = named(&path) else { continue };
                if used != module && rank(&used).is_none_or(|r| r >= own) {
                    broken.push(format!("{module} uses {used}: {}", line.trim()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "layer rule broken:\n{}", broken.join("\n"));
}

#[test]
fn every_module_is_in_the_order() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut modules: Vec<String> = files.iter().map(|f| module_of(&src, f)).collect();
    modules.sort();
    modules.dedup();
    for m in ORDER {
        assert!(modules.iter().any(|x| x == m), "{m} is in ORDER but not in src/");
    }
}
