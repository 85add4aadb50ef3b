//! What is written from the flags' definitions and committed: the man pages in docs/man/ (one per
//! face) and each face's option list in its docs/*.md. Generated here and compared with what is
//! committed, so a flag is written once (in its doc comment); `SONDE_BLESS=1 cargo test -p sonde
//! cli::docs` rewrites them.

use std::path::{Path, PathBuf};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The marker line before a generated option list: `sonde FACE --help` follows, in a fenced block.
fn marker(face: &str) -> String {
    let cmd = if face.is_empty() { "sonde".to_string() } else { format!("sonde {face}") };
    format!("<!-- `{cmd} --help`, generated from its flags' definitions (SONDE_BLESS=1 cargo test -p sonde cli::docs) -->")
}

fn blessing() -> bool {
    std::env::var_os("SONDE_BLESS").is_some_and(|v| v == "1")
}

/// `sonde [FACE] --help`, as clap prints it.
fn help(face: &str) -> String {
    let mut cmd = super::command();
    cmd.build();
    let cmd = match face {
        "" => &mut cmd,
        f => cmd.find_subcommand_mut(f).expect("a face"),
    };
    cmd.render_help().to_string()
}

/// Compares `file` with `want`, or rewrites it when blessing; the differing files' names.
fn check(file: &Path, want: &str, stale: &mut Vec<String>) {
    let have = std::fs::read_to_string(file).unwrap_or_default();
    if have == want {
        return;
    }
    if blessing() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, want).unwrap();
    } else {
        stale.push(file.strip_prefix(ROOT).unwrap_or(file).display().to_string());
    }
}

fn stale_message(stale: &[String]) -> String {
    format!(
        "{} differ from the flags' definitions: run `SONDE_BLESS=1 cargo test -p sonde cli::docs` and commit them",
        stale.join(", ")
    )
}

#[test]
fn the_man_pages_are_generated_from_the_definitions() {
    let dir = std::env::temp_dir().join(format!("sonde-man-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Each face's page carries sonde's version, as the top one does.
    let version = env!("CARGO_PKG_VERSION");
    let cmd =
        super::command().mut_subcommands(|face| face.version(version).disable_version_flag(true));
    clap_mangen::generate_to(cmd, &dir).unwrap();
    let mut pages: Vec<PathBuf> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    pages.sort();
    let names: Vec<String> =
        pages.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert!(names.contains(&"sonde-trace.1".to_string()), "{names:?}");
    let committed = Path::new(ROOT).join("docs/man");
    let mut stale = Vec::new();
    for (page, name) in pages.iter().zip(&names) {
        check(&committed.join(name), &std::fs::read_to_string(page).unwrap(), &mut stale);
    }
    // A page of a face that is gone is stale too.
    for e in std::fs::read_dir(&committed).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".1") && !names.contains(&name) {
            match blessing() {
                true => std::fs::remove_file(e.path()).unwrap(),
                false => stale.push(format!("docs/man/{name}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(stale.is_empty(), "{}", stale_message(&stale));
}

/// Each face's docs/*.md holds its `--help` after the marker.
#[test]
fn the_docs_option_lists_are_the_help() {
    let mut stale = Vec::new();
    for (doc, face) in
        [("language.md", ""), ("trace.md", "trace"), ("probe.md", "probe"), ("graph.md", "graph")]
    {
        let path = Path::new(ROOT).join("docs").join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        let marker = marker(face);
        let at = text.find(&marker).unwrap_or_else(|| panic!("docs/{doc} has no line `{marker}`"));
        let block = at + marker.len() + 1;
        let end = text[block..]
            .match_indices("```")
            .nth(1)
            .map(|(i, _)| block + i + 3)
            .unwrap_or_else(|| panic!("docs/{doc}: no fenced block after the marker"));
        let want = format!("{}```text\n{}```{}", &text[..block], help(face), &text[end..]);
        check(&path, &want, &mut stale);
    }
    assert!(stale.is_empty(), "{}", stale_message(&stale));
}
