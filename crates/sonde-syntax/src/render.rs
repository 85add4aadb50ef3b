//! Diagnostics as text, rustc-style:
//!
//! ```text
//! error: unknown function `prnitf`
//!  --> prog.ply:3:5
//!   |
//! 3 |     prnitf("x");
//!   |     ^^^^^^
//!   = help: did you mean `printf`?
//! ```
//!
//! Labels get their own underline of `-` followed by their note. Each diagnostic ends with a
//! blank line so several in a row stay apart.

use crate::ast::Span;
use crate::diag::{Diagnostic, Severity, SourceFile};
use std::fmt::Write;

const TAB: &str = "    ";

/// 1-based line and column of a byte offset; columns count characters. Offsets past the end or
/// inside a character are clamped.
pub fn line_col(text: &str, offset: u32) -> (usize, usize) {
    let off = floor_boundary(text, offset as usize);
    let before = &text[..off];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// The diagnostic as text ending in a blank line, with ANSI colours when `color` is set.
pub fn render(d: &Diagnostic, file: &SourceFile, color: bool) -> String {
    let st = Style { color };
    let text = file.text.as_str();
    let (sev, sev_color) = match d.severity {
        Severity::Error => ("error", RED),
        Severity::Warning => ("warning", YELLOW),
    };
    let mut marks = vec![Mark::new(text, d.span, '^', "", sev_color)];
    marks.extend(d.labels.iter().map(|(span, note)| Mark::new(text, *span, '-', note, BLUE)));
    let mut lines: Vec<usize> = marks.iter().map(|m| m.line).collect();
    lines.sort_unstable();
    lines.dedup();
    let w = lines.last().copied().unwrap_or(1).to_string().len();
    let pad = " ".repeat(w);
    let pipe = st.paint(BLUE, "|");

    let mut out = String::new();
    let (line, col) = line_col(text, d.span.lo);
    let _ = writeln!(
        out,
        "{}{}",
        st.paint(sev_color, sev),
        st.paint(BOLD, &format!(": {}", escape_controls(&d.message)))
    );
    let _ = writeln!(out, "{}{} {}:{}:{}", pad, st.paint(BLUE, "-->"), file.name, line, col);
    let _ = writeln!(out, "{} {}", pad, pipe);
    let mut prev: Option<usize> = None;
    for &n in &lines {
        if prev.is_some_and(|p| n > p + 1) {
            let _ = writeln!(out, "{}", st.paint(BLUE, "..."));
        }
        prev = Some(n);
        let on_line: Vec<&Mark> = marks.iter().filter(|m| m.line == n).collect();
        let window = Window::around(&shown(line_text(text, n)), &on_line);
        let num = st.paint(BLUE, &format!("{:>w$}", n));
        let _ = writeln!(out, "{}", format!("{} {} {}", num, pipe, window.text).trim_end());
        for m in on_line {
            let mut body = m.mark.to_string().repeat(m.width.min(MAX_MARK));
            if m.width > MAX_MARK {
                // A marker as long as a huge span helps nobody: cap it and say how long it is.
                let _ = write!(body, "... ({} characters)", m.chars);
            }
            if !m.note.is_empty() {
                body = format!("{} {}", body, m.note);
            }
            let _ = writeln!(
                out,
                "{} {} {}{}",
                pad,
                pipe,
                " ".repeat(window.column(m.start)),
                st.paint(m.color, &escape_controls(&body))
            );
        }
    }
    if let Some(help) = &d.help {
        let _ = writeln!(
            out,
            "{} {} {}: {}",
            pad,
            st.paint(BLUE, "="),
            st.paint(BOLD, "help"),
            escape_controls(help)
        );
    }
    out.push('\n');
    out
}

/// Longest underline drawn; a longer span gets this many marks and its length in characters.
const MAX_MARK: usize = 60;
/// Longest source line shown; a longer one is cut to a window around the marks.
const MAX_LINE: usize = 160;
/// Columns shown before the first mark when a line is cut.
const CONTEXT: usize = 40;

/// One underline: where it goes on screen (display columns, tabs expanded, control characters
/// escaped).
struct Mark<'a> {
    line: usize,
    start: usize,
    width: usize,
    /// The span's length in characters on its line.
    chars: usize,
    mark: char,
    note: &'a str,
    color: &'static str,
}

impl<'a> Mark<'a> {
    fn new(text: &str, span: Span, mark: char, note: &'a str, color: &'static str) -> Mark<'a> {
        let lo = floor_boundary(text, span.lo as usize);
        let hi = floor_boundary(text, (span.hi as usize).max(lo));
        let line_start = text[..lo].rfind('\n').map_or(0, |i| i + 1);
        // A span running over several lines is underlined to the end of its first line.
        let line_end = text[lo..].find('\n').map_or(text.len(), |i| lo + i);
        let start = display_width(&text[line_start..lo]);
        let width = display_width(&text[lo..hi.min(line_end)]).max(1);
        let chars = text[lo..hi.min(line_end)].chars().count();
        let (line, _) = line_col(text, lo as u32);
        Mark { line, start, width, chars, mark, note, color }
    }
}

/// The part of a shown source line that fits, and where its columns start.
struct Window {
    text: String,
    /// Display column of the window's first character in the full line.
    from: usize,
    /// Columns taken by the `...` put before a cut line.
    lead: usize,
}

impl Window {
    fn around(line: &str, marks: &[&Mark]) -> Window {
        let chars: Vec<char> = line.chars().collect();
        if chars.len() <= MAX_LINE {
            return Window { text: line.to_string(), from: 0, lead: 0 };
        }
        let first = marks.iter().map(|m| m.start).min().unwrap_or(0);
        let from = first.saturating_sub(CONTEXT).min(chars.len());
        let to = (from + MAX_LINE).min(chars.len());
        let lead = if from > 0 { "...".len() } else { 0 };
        let mut text: String = if from > 0 { "...".into() } else { String::new() };
        text.extend(&chars[from..to]);
        if to < chars.len() {
            text.push_str("...");
        }
        Window { text, from, lead }
    }

    /// Where display column `col` of the full line is in the window.
    fn column(&self, col: usize) -> usize {
        col.saturating_sub(self.from) + self.lead
    }
}

/// How a character of program text is shown: tabs expanded, control characters (a NUL byte, an
/// escape) written as escapes so they neither vanish nor act on the terminal.
fn shown_char(c: char, out: &mut String) {
    match c {
        '\t' => out.push_str(TAB),
        '\0' => out.push_str("\\0"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    s.chars().for_each(|c| shown_char(c, &mut out));
    out
}

/// Control characters in a message escaped (its line breaks kept).
fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c => shown_char(c, &mut out),
        }
    }
    out
}

fn display_width(s: &str) -> usize {
    let mut buf = String::new();
    s.chars()
        .map(|c| {
            buf.clear();
            shown_char(c, &mut buf);
            buf.chars().count()
        })
        .sum()
}

/// The text of 1-based line `n`, without its line ending.
fn line_text(text: &str, n: usize) -> &str {
    let line = text.split('\n').nth(n - 1).unwrap_or("");
    line.strip_suffix('\r').unwrap_or(line)
}

fn floor_boundary(text: &str, off: usize) -> usize {
    let mut off = off.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    off
}

const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const BLUE: &str = "\x1b[1;34m";
const BOLD: &str = "\x1b[1m";

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("{}{}\x1b[0m", code, s)
        } else {
            s.to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile { name: "prog.ply".into(), text: text.into() }
    }

    #[test]
    fn line_and_column() {
        let t = "ab\ncdé\tf\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 2), (1, 3));
        assert_eq!(line_col(t, 3), (2, 1));
        assert_eq!(line_col(t, 8), (2, 5)); // after `é` (2 bytes) and the tab
        assert_eq!(line_col(t, 6), (2, 3)); // inside `é`: clamped to its start
        assert_eq!(line_col(t, 999), (3, 1));
        assert_eq!(line_col("", 0), (1, 1));
    }

    #[test]
    fn the_example_from_the_brief() {
        let text = "BEGIN\n{\n    prnitf(\"x\");\n}\n";
        let lo = text.find("prnitf").unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 6), "unknown function `prnitf`")
            .with_help("did you mean `printf`?");
        assert_eq!(
            render(&d, &file(text), false),
            "error: unknown function `prnitf`\n --> prog.ply:3:5\n  |\n3 |     prnitf(\"x\");\n  |     ^^^^^^\n  = help: did you mean `printf`?\n\n"
        );
    }

    #[test]
    fn labels_on_the_same_and_other_lines() {
        let text = "a\nbb = cc;\nd\ne\n@x = 1;\n";
        let cc = text.find("cc").unwrap();
        let x = text.find("@x").unwrap();
        let d = Diagnostic::error(Span::new(cc, cc + 2), "bad")
            .with_label(Span::new(cc - 5, cc - 3), "this")
            .with_label(Span::new(x, x + 2), "and that");
        assert_eq!(
            render(&d, &file(text), false),
            "\
error: bad
 --> prog.ply:2:6
  |
2 | bb = cc;
  |      ^^
  | -- this
...
5 | @x = 1;
  | -- and that

"
        );
    }

    #[test]
    fn gutter_grows_with_line_numbers_and_tabs_are_expanded() {
        let text = format!("{}\tx y\n", "\n".repeat(11));
        let lo = text.find('y').unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 1), "m");
        assert_eq!(
            render(&d, &file(&text), false),
            "error: m\n  --> prog.ply:12:4\n   |\n12 |     x y\n   |       ^\n\n"
        );
    }

    #[test]
    fn empty_and_multiline_spans() {
        let text = "ab\ncd";
        // Zero width: one caret. At the very end: after the last character.
        let d = Diagnostic::error(Span::new(4, 4), "m");
        assert_eq!(
            render(&d, &file(text), false),
            "error: m\n --> prog.ply:2:2\n  |\n2 | cd\n  |  ^\n\n"
        );
        // Over a line break: underlined to the end of the first line.
        let d = Diagnostic::error(Span::new(1, 5), "m");
        assert_eq!(
            render(&d, &file(text), false),
            "error: m\n --> prog.ply:1:2\n  |\n1 | ab\n  |  ^\n\n"
        );
        // Empty program.
        let d = Diagnostic::error(Span::new(0, 0), "m");
        assert_eq!(
            render(&d, &file(""), false),
            "error: m\n --> prog.ply:1:1\n  |\n1 |\n  | ^\n\n"
        );
    }

    #[test]
    fn warnings_and_color() {
        let mut d = Diagnostic::error(Span::new(0, 1), "m").with_help("h");
        d.severity = Severity::Warning;
        let plain = render(&d, &file("x"), false);
        assert!(plain.starts_with("warning: m\n"));
        let colored = render(&d, &file("x"), true);
        assert!(
            colored.starts_with("\x1b[1;33mwarning\x1b[0m\x1b[1m: m\x1b[0m\n"),
            "{:?}",
            colored
        );
        assert!(colored.contains("\x1b[1;33m^\x1b[0m"));
        let stripped = colored
            .replace("\x1b[1;33m", "")
            .replace("\x1b[1;34m", "")
            .replace("\x1b[1m", "")
            .replace("\x1b[0m", "");
        assert_eq!(stripped, plain);
    }

    #[test]
    fn control_characters_are_escaped_in_the_line_the_marker_and_the_message() {
        let text = "BEGIN { \0\x1b x }";
        let lo = text.find('x').unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 1), "unexpected `\0`");
        assert_eq!(
            render(&d, &file(text), false),
            "error: unexpected `\\0`\n --> prog.ply:1:12\n  |\n1 | BEGIN { \\0\\u{1b} x }\n  |                  ^\n\n"
        );
    }

    #[test]
    fn a_huge_span_on_a_huge_line_is_cut_to_size() {
        let text = format!("BEGIN {{ {} }}", "y".repeat(10_000));
        let lo = text.find('y').unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 10_000), "m");
        let r = render(&d, &file(&text), false);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[3], format!("1 | BEGIN {{ {}...", "y".repeat(MAX_LINE - 8)));
        assert_eq!(lines[4], format!("  |         {}... (10000 characters)", "^".repeat(MAX_MARK)));
        // A mark far into a long line: the window starts shortly before it.
        let text = format!("{} bad", "z".repeat(5_000));
        let lo = text.find("bad").unwrap();
        let d = Diagnostic::error(Span::new(lo, lo + 3), "m");
        let r = render(&d, &file(&text), false);
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[3], format!("1 | ...{} bad", "z".repeat(CONTEXT - 1)));
        assert_eq!(lines[4], format!("  | {}^^^", " ".repeat(3 + CONTEXT)));
    }
}
