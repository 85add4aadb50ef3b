//! The compiler's modules form layers (lib.rs, docs/architecture.md): each uses only those of
//! lower layers, so no two import each other. Read from the sources: a `crate::NAME` in a file
//! of module M names module NAME.

use std::path::{Path, PathBuf};

/// Each top-level module's layer.
const LAYERS: &[(&str, u8)] = &[
    ("model", 0),
    ("abi", 1),
    ("env", 1),
    ("btf_types", 1),
    ("arch", 1),
    ("provider", 2),
    ("sema", 3),
    ("lower", 3),
    ("dump", 4),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
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

/// The modules a file names through `crate::` (and, at a module's root, through `super::`).
fn named(text: &str, root: bool) -> Vec<String> {
    let mut out = Vec::new();
    let prefixes: &[&str] = if root { &["crate::", "super::"] } else { &["crate::"] };
    for prefix in prefixes {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &text[at + prefix.len()..];
            let name: String =
                rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn each_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut wrong = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.iter().next().unwrap().to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(own) = layer(&top) else { continue };
        let root = rel.components().count() == 1
            || rel.ends_with("mod.rs") && rel.components().count() == 2;
        let text = std::fs::read_to_string(&f).unwrap();
        for name in named(&text, root) {
            let ok = name == top || layer(&name).is_some_and(|l| l < own);
            if !ok {
                wrong.push(format!("{} (layer {}) uses `{}`", rel.display(), own, name));
            }
        }
    }
    assert!(wrong.is_empty(), "layers broken:\n{}", wrong.join("\n"));
}
