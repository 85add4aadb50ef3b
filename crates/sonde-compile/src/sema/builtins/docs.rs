//! docs/builtins.md, written from the registry: a table of each kind of builtin.

use super::spec::{Form, Returns, Spec};
use super::table::TABLES;

/// The whole file.
pub fn markdown() -> String {
    let mut out = String::from(HEADER);
    for (title, specs) in TABLES {
        out.push_str(&format!("\n## {}\n\n", title));
        out.push_str("| use | gives | what it is | example |\n|---|---|---|---|\n");
        for s in specs {
            out.push_str(&row(s));
        }
    }
    out
}

const HEADER: &str = "# Builtins

The variables, functions, statements and aggregations of sonde's language. This file is written
from the registry the compiler checks programs with (`crates/sonde-compile/src/sema/builtins/`):
`cargo test -p sonde-compile --test builtins` fails when the two differ, and
`SONDE_BLESS=1 cargo test -p sonde-compile --test builtins` writes it again. Every example is a
whole program, compiled by that test against a fixture kernel (which has no BTF: the examples
that need BTF stop there, with that sentence).
";

fn row(s: &Spec) -> String {
    let mut uses: Vec<String> = vec![code(&s.signature())];
    uses.extend(s.also.iter().map(|a| code(&s.signature().replacen(s.name, a, 1))));
    if let Form::Variable { call: true, .. } = s.form {
        uses.push(code(&format!("{}()", s.name)));
    }
    let gives = match &s.returns {
        Returns::Type(t) => code(&t.to_string()),
        Returns::Computed(words) => words.to_string(),
        Returns::Nothing => "nothing".into(),
    };
    let cells = [uses.join(", "), gives, s.doc.to_string(), code(s.example)];
    let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// `text` as inline code.
fn code(text: &str) -> String {
    format!("`{}`", text)
}
