//! `sonde --fmt` against programs in bpftrace's standard format: each is reproduced byte for
//! byte, and a copy with its spacing mangled (indentation dropped, spaces added and removed,
//! split lines joined, braces moved; comments and blank lines kept) comes back to it.
//!
//! The fixtures in `fixtures/fmt/` are sonde's own scripts (docs/licensing.md). bpftrace's own
//! `.bt` files are checked when a checkout is given: `BPFTRACE_SRC=/path/to/bpftrace cargo test
//! -p sonde-syntax --test fmt -- --nocapture` prints how many it reproduces.

use sonde_syntax::format::format;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fmt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bt"))
        .collect();
    files.sort();
    files
}

/// Spacing changed where it means nothing: `, `, ` = ` and `(` respaced outside strings and
/// comments.
fn respace(code: &str) -> String {
    let mut out = String::new();
    let mut in_str = false;
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if in_str {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '/' if chars.peek() == Some(&'/') => {
                out.push(c);
                out.extend(chars.by_ref());
            }
            '"' => {
                in_str = true;
                out.push(c);
            }
            ',' if chars.peek() == Some(&' ') => {
                chars.next();
                out.push_str(" ,\t ");
            }
            ' ' if code_rest_starts(&mut chars, "= ") => {
                chars.next();
                chars.next();
                out.push('=');
            }
            '(' => out.push_str("( "),
            _ => out.push(c),
        }
    }
    out
}

fn code_rest_starts(chars: &mut std::iter::Peekable<std::str::Chars>, s: &str) -> bool {
    let rest: String = chars.clone().take(s.len()).collect();
    rest == s
}

/// The program with its layout mangled but its comments, blank lines and meaning kept:
/// bodies unindented, statements run together, split lines joined, `{` after the probe.
fn mangle(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut in_body = false;
    for line in text.lines() {
        if !in_body {
            in_body = line == "{";
            let joinable = out
                .last()
                .is_some_and(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"));
            match out.last_mut() {
                Some(last) if in_body && joinable => last.push_str("   {"),
                _ => out.push(line.to_string()),
            }
            continue;
        }
        if line == "}" {
            in_body = false;
            out.push(line.to_string());
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("//") || t.is_empty() {
            out.push(t.to_string());
            continue;
        }
        let code = respace(t);
        match out.last_mut() {
            Some(last) if last.ends_with(',') && !last.starts_with("//") => {
                last.push_str("\n\t");
                last.push_str(&code);
            }
            // A newline after `;` is no blank line: statements may share one.
            Some(last) if last.ends_with(';') && !last.starts_with("//") => {
                last.push(' ');
                last.push_str(&code);
            }
            _ => out.push(code),
        }
    }
    out.join("\n") + "\n"
}

/// How `path` fares: `None` when reproduced and restored from its mangled copy.
fn check(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).unwrap();
    match format(&text) {
        Ok(out) if out == text => {}
        Ok(out) => {
            return Some(format!("{}: not reproduced:\n{}", path.display(), diff(&text, &out)))
        }
        Err(e) => return Some(format!("{}: {} at {:?}", path.display(), e.message, e.span)),
    }
    let mangled = mangle(&text);
    match format(&mangled) {
        Ok(out) if out == text => None,
        Ok(out) => {
            Some(format!("{}: mangled copy not restored:\n{}", path.display(), diff(&text, &out)))
        }
        Err(e) => Some(format!(
            "{}: mangled copy: {} at {:?}\n{}",
            path.display(),
            e.message,
            e.span,
            mangled
        )),
    }
}

/// The first differing line of each.
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<_>, Vec<_>) = (want.lines().collect(), got.lines().collect());
    let i = w.iter().zip(&g).take_while(|(a, b)| a == b).count();
    format!("  line {}:\n  want: {:?}\n  got:  {:?}", i + 1, w.get(i), g.get(i))
}

#[test]
fn fixtures_are_reproduced_and_restored_from_mangled_copies() {
    let files = fixtures();
    assert!(files.len() >= 5, "fixtures missing");
    let failures: Vec<String> = files.iter().filter_map(|p| check(p)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn messy_programs_format_to_the_fixtures() {
    for path in fixtures() {
        let messy = path.parent().unwrap().join("messy").join(path.file_name().unwrap());
        let input = std::fs::read_to_string(&messy).unwrap();
        let want = std::fs::read_to_string(&path).unwrap();
        let got = format(&input).unwrap_or_else(|e| panic!("{}: {}", messy.display(), e.message));
        assert!(got == want, "{}:\n{}", messy.display(), diff(&want, &got));
    }
}

#[test]
fn mangling_changes_every_fixture() {
    for path in fixtures() {
        let text = std::fs::read_to_string(&path).unwrap();
        assert_ne!(mangle(&text), text, "{} is not mangled", path.display());
    }
}

/// bpftrace's own `.bt` files (tools, stdlib, tests), when a checkout is given.
#[test]
fn bpftrace_checkout() {
    let Some(root) = std::env::var_os("BPFTRACE_SRC") else { return };
    let mut files = Vec::new();
    for dir in ["tools", "tools/old", "src/stdlib", "tests/self", "tests/runtime/scripts"] {
        let Ok(entries) = std::fs::read_dir(Path::new(&root).join(dir)) else { continue };
        files.extend(
            entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "bt")),
        );
    }
    files.sort();
    let failures: Vec<String> = files.iter().filter_map(|p| check(p)).collect();
    for f in &failures {
        println!("{}", f);
    }
    println!("{} of {} reproduced and restored", files.len() - failures.len(), files.len());
}

/// sonde's own scripts (the compat and golden programs) mean the same once formatted: the AST
/// of the output is the input's, but for what the format respells (`->` as `.`, `x = x op y` as
/// `x op= y`). Programs sonde's parser refuses, and the few the formatter refuses (calls of
/// `sizeof` without a type, text in a dropped `#if` branch), are counted apart.
#[test]
fn sonde_scripts_keep_their_meaning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dirs = ["tests/compat", "crates/sonde-compile/tests/golden"];
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bt" || e == "sonde"))
        .collect();
    files.sort();
    let (mut same, mut refused, mut failures) = (0, 0, Vec::new());
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(before) = sonde_syntax::parse(&text) else { continue };
        let Ok(out) = format(&text) else {
            refused += 1;
            continue;
        };
        match sonde_syntax::parse(&out) {
            Ok(after) if meaning(&before) == meaning(&after) => same += 1,
            Ok(_) => failures.push(format!("{}: the AST changed:\n{}", path.display(), out)),
            Err(d) => failures.push(format!("{}: {}\n{}", path.display(), d[0].message, out)),
        }
        assert_eq!(format(&out).ok().as_ref(), Some(&out), "{} is not stable", path.display());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= 100 && refused <= 5, "{} kept their meaning, {} refused", same, refused);
}

/// The AST as `sonde -S` dumps it, with `->` as `.` and `x = x op y` as `x op= y`.
fn meaning(p: &sonde_syntax::ast::Program) -> Vec<Node> {
    let dump = sonde_syntax::dump(p).replace("member ->", "member .");
    let lines: Vec<&str> = dump.lines().collect();
    let mut nodes = parse_tree(&lines, &mut 0, 0);
    nodes.iter_mut().for_each(compound);
    nodes
}

#[derive(Debug, PartialEq)]
struct Node {
    label: String,
    kids: Vec<Node>,
}

/// Lines indented two spaces a level, from `*i` on, at `depth`.
fn parse_tree(lines: &[&str], i: &mut usize, depth: usize) -> Vec<Node> {
    let mut out = Vec::new();
    while let Some(line) = lines.get(*i) {
        let d = (line.len() - line.trim_start().len()) / 2;
        if d < depth {
            break;
        }
        *i += 1;
        let kids = parse_tree(lines, i, depth + 1);
        out.push(Node { label: line.trim().to_string(), kids });
    }
    out
}

fn compound(n: &mut Node) {
    n.kids.iter_mut().for_each(compound);
    if n.label != "assign" || n.kids.len() != 2 {
        return;
    }
    let value = &n.kids[1];
    let Some(op) = value.label.strip_prefix("binary ") else { return };
    if value.kids.len() == 2 && value.kids[0] == n.kids[0] && !matches!(op, "&&" | "||") {
        n.label = format!("assign {}=", op);
        let rhs = n.kids.pop().unwrap().kids.pop().unwrap();
        n.kids.push(rhs);
    }
}
