//! Flame graphs from the language: a [`Writer`] that turns every stack-keyed map
//! (`@[kstack] = count();`, `@[ustack, comm] = sum(x)`) into folded stacks, printed as text
//! (`-f folded`) or drawn as one SVG (`-o cpu.svg`). Other keys become frames at the root
//! (`comm;frame;...`), as stackcollapse tools do. Everything else (printf, print, maps without
//! a stack) goes to stderr as text, through the TextWriter.

use crate::folded::Folded;
use sonde_output::value::Value;
use sonde_output::writer::{MapEntries, Writer};
use sonde_output::TextWriter;
use std::io::{Stderr, Write};

pub struct FoldedWriter<W: Write> {
    out: W,
    text: TextWriter<Stderr, Stderr>,
    /// Some(path, title): draw an SVG there at flush instead of printing lines.
    svg: Option<(std::path::PathBuf, String)>,
    folded: Folded,
}

impl<W: Write> FoldedWriter<W> {
    pub fn new(out: W) -> Self {
        FoldedWriter { out, text: text(), svg: None, folded: Folded::new() }
    }

    pub fn svg(out: W, path: std::path::PathBuf, title: String) -> Self {
        FoldedWriter { out, text: text(), svg: Some((path, title)), folded: Folded::new() }
    }
}

fn text() -> TextWriter<Stderr, Stderr> {
    TextWriter::new(std::io::stderr(), std::io::stderr())
}

/// A stack key's frames, outermost first (printed innermost first, one a line).
fn frames(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::Sym { name: Some(n), .. } if n.starts_with('\n') => {
            let mut f: Vec<String> =
                n.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
            f.reverse();
            Some(f)
        }
        _ => None,
    }
}

impl<W: Write> Writer for FoldedWriter<W> {
    fn attached(&mut self, probes: usize) {
        self.text.attached(probes);
    }
    fn printf(&mut self, text: &[u8]) {
        self.text.printf(text);
    }
    fn print(&mut self, values: Vec<Value>) {
        self.text.print(values);
    }
    fn map(&mut self, name: &str, entries: &MapEntries) {
        let stacks = match entries {
            MapEntries::Values(v)
                if v.iter().any(|(k, _)| k.iter().any(|k| frames(k).is_some())) =>
            {
                v
            }
            _ => return self.text.map(name, entries),
        };
        let v = stacks;
        for (keys, value) in v {
            let mut path = Vec::new();
            let mut stack = false;
            for k in keys {
                match frames(k) {
                    Some(f) => {
                        path.extend(f);
                        stack = true;
                    }
                    None => path.insert(0, k.to_string()),
                }
            }
            if let (true, Some(n)) = (stack, value.as_i128()) {
                self.folded.add_stack(&path, n.max(0) as u64);
            }
        }
    }
    fn lost(&mut self, n: u64) {
        self.text.lost(n);
    }
    fn flush(&mut self) {
        self.text.flush();
        if self.folded.is_empty() {
            return;
        }
        match &self.svg {
            None => {
                let _ = self.out.write_all(self.folded.text().as_bytes());
            }
            Some((p, title)) => match std::fs::File::create(p) {
                Ok(f) => {
                    if let Err(e) = crate::svg::write(&self.folded, title, "samples", f) {
                        eprintln!("sonde: {e}");
                    }
                }
                Err(e) => eprintln!("sonde: cannot write {}: {e}", p.display()),
            },
        }
        let _ = self.out.flush();
        self.folded = Folded::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_keys_fold_outermost_first_with_other_keys_at_the_root() {
        let stack = |s: &str| Value::Sym { addr: 1, name: Some(s.into()) };
        let e = MapEntries::Values(vec![
            (
                vec![stack("\n        leaf+0x1\n        mid\n        root\n"), Value::str("cat")],
                Value::uint(3),
            ),
            (
                vec![stack("\n        leaf+0x1\n        mid\n        root\n"), Value::str("cat")],
                Value::uint(2),
            ),
        ]);
        let mut out = Vec::new();
        let mut w = FoldedWriter::new(&mut out);
        w.map("@", &e);
        w.flush();
        assert_eq!(String::from_utf8(out).unwrap(), "cat;root;mid;leaf+0x1 5\n");
    }
}
