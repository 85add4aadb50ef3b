//! Flame graphs from the language: a [`Writer`] that turns every stack-keyed map
//! (`@[kstack] = count();`, `@[ustack, comm] = sum(x)`) into folded stacks, printed as text
//! (`-f folded`) or drawn as one SVG (`-o cpu.svg`). Other keys become frames at the root
//! (`comm;frame;...`), as stackcollapse tools do. Everything else (printf, print, maps without
//! a stack) goes to stderr as text, through the TextWriter.

use crate::folded::Folded;
use sonde_output::file::write_atomically;
use sonde_output::sink::Health;
use sonde_output::value::Value;
use sonde_output::writer::{MapEntries, Writer};
use sonde_output::TextWriter;
use std::io::{Stderr, Write};

pub struct FoldedWriter<W: Write> {
    out: W,
    text: TextWriter<Stderr, Stderr>,
    /// Some(path, program text): draw an SVG there at flush instead of printing lines.
    svg: Option<(std::path::PathBuf, String)>,
    /// Where a failed SVG is recorded, so the run ends with its sentence and status 1.
    health: Health,
    folded: Folded,
    /// The stack-keyed maps drawn, for the SVG's title.
    names: Vec<String>,
}

impl<W: Write> FoldedWriter<W> {
    pub fn new(out: W) -> Self {
        FoldedWriter {
            out,
            text: text(),
            svg: None,
            health: Health::default(),
            folded: Folded::new(),
            names: Vec::new(),
        }
    }

    /// `program`: the program's text, shown in the title after the maps' names. The SVG is
    /// written whole or not at all; a failure is recorded in `health`.
    pub fn svg(out: W, path: std::path::PathBuf, program: String, health: Health) -> Self {
        FoldedWriter {
            out,
            text: text(),
            svg: Some((path, program)),
            health,
            folded: Folded::new(),
            names: Vec::new(),
        }
    }
}

/// `@stacks: profile:hz:99 { @stacks[kstack] = count(); }`, the program on one line and cut
/// at 100 characters.
pub fn title(names: &[String], program: &str) -> String {
    let mut p = program.split_whitespace().collect::<Vec<_>>().join(" ");
    if p.chars().count() > 100 {
        p = p.chars().take(99).collect::<String>() + "…";
    }
    match names.is_empty() {
        true => p,
        false => format!("{}: {p}", names.join(", ")),
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
        if !self.names.iter().any(|n| n == name) {
            self.names.push(name.to_string());
        }
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
    fn missed(&mut self, probe: &str, runs: u64) {
        self.text.missed(probe, runs);
    }
    fn map_full(&mut self, map: &str, dropped: u64, max_entries: u32) {
        self.text.map_full(map, dropped, max_entries);
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
            Some((p, program)) => {
                let title = title(&self.names, program);
                let folded = &self.folded;
                let written =
                    write_atomically(p, |w| crate::svg::write(folded, &title, "samples", w));
                if let Err(e) = written {
                    self.health.record_file(&e);
                }
            }
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

    #[test]
    fn svg_titles_name_the_maps_and_the_program() {
        let names = vec!["@cpu".to_string()];
        assert_eq!(
            title(&names, "profile:hz:99\n{ @cpu[kstack] = count(); }"),
            "@cpu: profile:hz:99 { @cpu[kstack] = count(); }"
        );
        let long = "x".repeat(300);
        assert_eq!(title(&[], &long).chars().count(), 100);
    }

    #[test]
    fn the_svg_is_titled_with_the_program() {
        let dir = std::env::temp_dir().join(format!("sonde-maps-title-{}", std::process::id()));
        let stack = |s: &str| Value::Sym { addr: 1, name: Some(s.into()) };
        let e = MapEntries::Values(vec![(
            vec![stack("\n        leaf\n        root\n")],
            Value::uint(3),
        )]);
        let mut w = FoldedWriter::svg(
            Vec::new(),
            dir.clone(),
            "profile:hz:99 { @s[kstack] = count(); }".into(),
            Health::default(),
        );
        w.map("@s", &e);
        w.flush();
        let svg = std::fs::read_to_string(&dir).unwrap();
        let _ = std::fs::remove_file(&dir);
        assert!(svg.contains("@s: profile:hz:99 { @s[kstack] = count(); }"), "title missing");
        assert!(svg.contains("leaf") && svg.contains("root"));
    }
}
