//! bpftrace's C preprocessor lines, handled before lexing.
//!
//! Types come from BTF, so `#include` lines define no types, only the integer constants of the
//! headers bpftrace's tools include (`headers`), and `BPFTRACE_HAVE_BTF` is always defined. `#ifdef`/`#ifndef`/`#else`/`#endif` keep or drop lines, and `#define` records a
//! macro the parser expands where its name appears. Dropped lines become spaces of the same
//! length, so every byte offset (and every diagnostic's line:col) stays that of the original text.

use crate::ast::Span;
use crate::diag::Diagnostic;
use std::collections::HashMap;

mod headers;

/// The names `#ifdef` finds defined before any `#define`.
const PREDEFINED: &[&str] = &["BPFTRACE_HAVE_BTF"];

/// A `#define`: `NAME body` or `NAME(params) body`; the body is program text.
#[derive(Clone, Debug, PartialEq)]
pub struct Macro {
    /// `None` for an object-like macro, the parameter names for a function-like one.
    pub params: Option<Vec<String>>,
    pub body: String,
    pub span: Span,
}

pub type Macros = HashMap<String, Macro>;

/// The text with directive and dropped lines blanked, the macros defined, and the mistakes found.
pub fn run(text: &str) -> (String, Macros, Vec<Diagnostic>) {
    let mut out = String::with_capacity(text.len());
    let mut macros = Macros::new();
    let mut diags = Vec::new();
    // One entry per open `#if...`: (is this branch kept, was any branch kept, span of the `#if`).
    let mut stack: Vec<(bool, bool, Span)> = Vec::new();
    let mut lo = 0;
    // Inside a `/* */` comment at the start of the line: a `#` there is comment text.
    let mut in_comment = false;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(first) = lines.next() {
        let mut line = first.to_string();
        // `#` and a word; anything else after `#` is left to the lexer to refuse.
        let directive = !in_comment
            && line
                .trim_start()
                .strip_prefix('#')
                .is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_alphabetic()));
        // A directive continues over lines ending in `\`.
        while directive && line.trim_end().ends_with('\\') {
            match lines.next() {
                Some(more) => line.push_str(more),
                None => break,
            }
        }
        in_comment = comment_open_after(&line, in_comment);
        let span = Span::new(lo, lo + line.trim_end().len());
        let kept = stack.iter().all(|s| s.0);
        if directive {
            let d = line.trim_start()[1..].replace("\\\n", " ");
            let d = strip_comments(&d);
            let (word, rest) = split_word(d.trim());
            let defined = |n: &str| PREDEFINED.contains(&n) || macros.contains_key(n);
            match word {
                "ifdef" | "ifndef" => {
                    let on = defined(rest.trim()) == (word == "ifdef");
                    stack.push((on, on, span));
                }
                // Pushed even when refused, so its `#endif` pairs up.
                "if" => {
                    if kept {
                        diags.push(unsupported(span, word));
                    }
                    stack.push((true, true, span));
                }
                "else" => match stack.last_mut() {
                    Some(top) => {
                        top.0 = !top.1;
                        top.1 = true;
                    }
                    None => diags.push(Diagnostic::error(span, "`#else` without `#ifdef`")),
                },
                "endif" => {
                    if stack.pop().is_none() {
                        diags.push(Diagnostic::error(span, "`#endif` without `#ifdef`"));
                    }
                }
                _ if !kept => {}
                "include" => {
                    let path = rest.trim().trim_matches(|c| matches!(c, '<' | '>' | '"'));
                    for (name, value) in headers::constants(path) {
                        macros.entry(name.to_string()).or_insert_with(|| Macro {
                            params: None,
                            body: value.to_string(),
                            span,
                        });
                    }
                }
                "define" => match define(rest.trim()) {
                    Some((name, params, body)) => {
                        macros.insert(name, Macro { params, body, span });
                    }
                    None => diags.push(Diagnostic::error(span, "expected a name after `#define`")),
                },
                "undef" => {
                    macros.remove(rest.trim());
                }
                "elif" => diags.push(unsupported(span, word)),
                _ => diags.push(Diagnostic::error(
                    span,
                    format!("unknown preprocessor directive `#{}`", word),
                )),
            }
        }
        if directive || !kept {
            for c in line.chars() {
                match c {
                    '\n' => out.push('\n'),
                    // A blanked character keeps its byte length, so later offsets do not move.
                    c => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
                }
            }
        } else {
            out.push_str(&line);
        }
        lo += line.len();
    }
    if let Some((_, _, span)) = stack.last() {
        diags.push(Diagnostic::error(*span, "this `#ifdef`/`#ifndef` has no `#endif`"));
    }
    (out, macros, diags)
}

fn unsupported(span: Span, word: &str) -> Diagnostic {
    Diagnostic::error(span, format!("`#{}` is not supported", word))
        .with_help("only `#ifdef NAME`/`#ifndef NAME`/`#else`/`#endif` are: test one name")
}

fn split_word(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(s.len());
    s.split_at(end)
}

/// `NAME body` or `NAME(a, b) body` (no space before `(`, as in C).
fn define(s: &str) -> Option<(String, Option<Vec<String>>, String)> {
    let (name, rest) = split_word(s);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Some(after) = rest.strip_prefix('(') {
        let close = after.find(')')?;
        let params = after[..close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        return Some((name.into(), Some(params), after[close + 1..].trim().into()));
    }
    Some((name.into(), None, rest.trim().into()))
}

/// Whether a `/* */` comment is still open after `line`, given whether one was open before it
/// (strings and `//` comments are skipped as C skips them).
fn comment_open_after(line: &str, mut open: bool) -> bool {
    let b = line.as_bytes();
    let mut i = 0;
    let mut in_str = false;
    while i < b.len() {
        let pair = (b[i], b.get(i + 1).copied().unwrap_or(0));
        if open {
            if pair == (b'*', b'/') {
                open = false;
                i += 1;
            }
        } else if in_str {
            match b[i] {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
        } else {
            match pair {
                (b'/', b'/') => return false,
                (b'/', b'*') => {
                    open = true;
                    i += 1;
                }
                (b'"', _) => in_str = true,
                _ => {}
            }
        }
        i += 1;
    }
    open
}

/// A directive's text without `/* */` and `//` comments (outside strings).
fn strip_comments(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    let mut in_str = false;
    while let Some(c) = rest.chars().next() {
        if !in_str && rest.starts_with("//") {
            break;
        }
        if !in_str && rest.starts_with("/*") {
            rest = rest.find("*/").map_or("", |i| &rest[i + 2..]);
            out.push(' ');
            continue;
        }
        if c == '"' {
            in_str = !in_str;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn btf_branch_is_kept_and_offsets_do_not_move() {
        let text = "#include <linux/sched.h>\n#ifndef BPFTRACE_HAVE_BTF\n#include <x.h>\nbad\n#else\n#define AF_INET   2 /* IPv4 */\n#endif\nBEGIN { }\n";
        let (out, macros, diags) = run(text);
        assert!(diags.is_empty(), "{:?}", diags);
        assert_eq!(out.len(), text.len());
        assert_eq!(out.find("BEGIN"), text.find("BEGIN"));
        assert!(!out.contains("bad") && !out.contains('#'));
        assert_eq!(macros["AF_INET"].body, "2");
        assert_eq!(macros["AF_INET"].params, None);
    }

    #[test]
    fn a_hash_inside_a_block_comment_is_comment_text() {
        // bpftrace's gethostlatency.bt, as Debian ships it: a `#` line in its header comment.
        let text = "/*\n * This uses dynamic tracing, and may\n # need modifications.\n */\n#define A 1 /* x\n#define B 2 */\n// /*\n#define C \"/*\"\n#define D 4\n";
        let (out, macros, diags) = run(text);
        assert!(diags.is_empty(), "{:?}", diags);
        assert!(out.contains("# need"));
        let mut names: Vec<_> = macros.keys().cloned().collect();
        names.sort();
        assert_eq!(names, ["A", "C", "D"]);
    }

    #[test]
    fn an_include_defines_its_headers_constants_unless_the_script_does() {
        let text = "#define AF_INET6 99\n#include <sys/socket.h>\n#ifndef BPFTRACE_HAVE_BTF\n#include <linux/sched.h>\n#endif\n#include \"linux/blkdev.h\"\n";
        let (_, macros, diags) = run(text);
        assert!(diags.is_empty(), "{:?}", diags);
        assert_eq!(macros["AF_INET"].body, "2");
        assert_eq!(macros["AF_INET6"].body, "99");
        // The dropped branch's include defines nothing.
        assert!(!macros.contains_key("TASK_RUNNING"));
    }

    #[test]
    fn function_like_macro_and_continuation() {
        let (_, macros, diags) = run("#define MAX(a, b) \\\n ((a) > (b) ? (a) : (b))\n");
        assert!(diags.is_empty());
        let m = &macros["MAX"];
        assert_eq!(m.params.as_deref(), Some(&["a".to_string(), "b".to_string()][..]));
        assert_eq!(m.body, "((a) > (b) ? (a) : (b))");
    }

    #[test]
    fn unsupported_directives_are_named_once() {
        let (_, _, diags) = run("#if X > 1\n#endif\n#pragma once\n#ifdef Y\n");
        let msgs: Vec<_> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "`#if` is not supported",
                "unknown preprocessor directive `#pragma`",
                "this `#ifdef`/`#ifndef` has no `#endif`"
            ]
        );
    }
}
