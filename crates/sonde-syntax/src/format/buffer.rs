//! Output under construction: lines of text and comment segments, measured as they grow so the
//! printer can choose between one line and several.

#[derive(Debug)]
enum Seg {
    Text(String),
    Comment(String),
}

#[derive(Debug, Default)]
struct Line {
    segs: Vec<Seg>,
}

impl Line {
    fn columns(&self) -> usize {
        self.reify().len()
    }

    /// A comment ending its line prints as `// text`; one followed by more as `/* text */`.
    fn reify(&self) -> String {
        let mut out = String::new();
        let mut all_space = true;
        for (i, seg) in self.segs.iter().enumerate() {
            match seg {
                Seg::Text(s) => {
                    out.push_str(s);
                    all_space &= s.chars().all(|c| c.is_ascii_whitespace());
                }
                Seg::Comment(c) => {
                    if !all_space {
                        out.push(' ');
                    }
                    if i + 1 < self.segs.len() {
                        out.push_str(&format!("/* {} */", c));
                    } else if c.is_empty() {
                        out.push_str("//");
                    } else {
                        out.push_str("// ");
                        out.push_str(c);
                    }
                }
            }
        }
        out
    }
}

use super::layout::{Meta, Metas};

/// Always at least one (possibly empty) line; the last line is where text goes next.
#[derive(Debug)]
pub struct Buf {
    lines: Vec<Line>,
}

impl Default for Buf {
    fn default() -> Buf {
        Buf::new()
    }
}

impl Buf {
    pub fn new() -> Buf {
        Buf { lines: vec![Line::default()] }
    }

    fn last(&mut self) -> &mut Line {
        self.lines.last_mut().expect("a buffer has a line")
    }

    pub fn text(mut self, s: impl Into<String>) -> Buf {
        self.last().segs.push(Seg::Text(s.into()));
        self
    }

    pub fn line_break(mut self) -> Buf {
        self.lines.push(Line::default());
        self
    }

    /// Continues the last line with `other`. With `indent`, `other` starts on a new line at that
    /// column and a new line follows it; without, its later lines align with the current column
    /// (unless `align` is false: they keep their own indentation).
    pub fn append_with(mut self, other: Buf, indent: usize, align: bool) -> Buf {
        if other.lines() == 0 {
            return self;
        }
        let mut col = self.lines.last().map_or(0, Line::columns);
        if indent > 0 {
            self.lines.push(Line::default());
            col = indent;
        }
        let n = other.lines.len();
        for (i, line) in other.lines.into_iter().enumerate() {
            if align && col != 0 && self.last().segs.is_empty() {
                self.last().segs.push(Seg::Text(" ".repeat(col)));
            }
            self.last().segs.extend(line.segs);
            if indent > 0 || i + 1 < n {
                self.lines.push(Line::default());
            }
        }
        self
    }

    pub fn append(self, other: Buf) -> Buf {
        self.append_with(other, 0, true)
    }

    pub fn indented(self, other: Buf) -> Buf {
        self.append_with(other, super::INDENT, true)
    }

    /// Layout on lines of its own: comments each on a line, blank lines kept, and at least
    /// `min_vspace` line breaks first.
    pub fn meta_block(mut self, metas: &Metas, min_vspace: usize) -> Buf {
        for _ in 0..min_vspace {
            self.lines.push(Line::default());
        }
        let mut total = 0;
        for meta in metas.all() {
            match meta {
                Meta::Vspace(n) => {
                    for _ in 0..*n {
                        if total >= min_vspace {
                            self.lines.push(Line::default());
                        }
                        total += 1;
                    }
                }
                Meta::Comment(c) => {
                    self.last().segs.push(Seg::Comment(c.clone()));
                    self.lines.push(Line::default());
                }
            }
        }
        self
    }

    /// Layout inside a line: comments kept where the text is, blank lines dropped.
    pub fn meta_inline(mut self, metas: &Metas) -> Buf {
        for meta in metas.all() {
            if let Meta::Comment(c) = meta {
                self.last().segs.push(Seg::Comment(c.clone()));
            }
        }
        self
    }

    pub fn width(&self) -> usize {
        self.lines.iter().map(Line::columns).max().unwrap_or(0)
    }

    /// Lines holding something (an empty last line is where text would go, not a line yet).
    pub fn lines(&self) -> usize {
        match self.lines.last() {
            Some(l) if l.segs.is_empty() => self.lines.len() - 1,
            _ => self.lines.len(),
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for line in &self.lines[..self.lines()] {
            out.push_str(line.reify().trim_end());
            out.push('\n');
        }
        out
    }
}
