//! C definitions of structs, unions and enums, laid out as libbpf's `btf_dump` prints them
//! (bpftrace's `-lv 'struct NAME'`): a member a line, a tab per level, anonymous members
//! inline, bitfields with their width.

use crate::model::{Kind, Member, TypeId};
use crate::Btf;
use std::fmt::Write;

/// Anonymous members nest a few levels in real kernels; this bounds corrupt BTF.
const MAX_NESTING: usize = 16;

impl Btf {
    /// `struct NAME {\n\tMEMBER;\n...};` for a struct, union or enum; `None` for other kinds.
    pub fn definition(&self, id: TypeId) -> Option<String> {
        let mut out = String::new();
        self.body(id, 0, &mut out)?;
        out.push(';');
        Some(out)
    }

    /// The type's keyword, name and braced body at nesting `level` (its members one deeper).
    fn body(&self, id: TypeId, level: usize, out: &mut String) -> Option<()> {
        let (word, name, members) = match self.kind(id) {
            Kind::Struct { name, members, .. } => ("struct", name, members),
            Kind::Union { name, members, .. } => ("union", name, members),
            Kind::Enum { name, signed, values, .. } => {
                out.push_str(&head("enum", &name));
                for (n, v) in values {
                    let v = if signed { v.to_string() } else { (v as u64).to_string() };
                    let _ = write!(out, "\n{}{} = {},", tabs(level + 1), n, v);
                }
                let _ = write!(out, "\n{}}}", tabs(level));
                return Some(());
            }
            _ => return None,
        };
        out.push_str(&head(word, &name));
        for m in &members {
            out.push('\n');
            out.push_str(&tabs(level + 1));
            self.member_line(m, level + 1, out);
            out.push(';');
        }
        let _ = write!(out, "\n{}}}", tabs(level));
        Some(())
    }

    fn member_line(&self, m: &Member, level: usize, out: &mut String) {
        let anonymous_body = m.name.is_empty()
            && level < MAX_NESTING
            && matches!(self.kind(m.ty), Kind::Struct { ref name, .. } | Kind::Union { ref name, .. } if name.is_empty());
        if anonymous_body {
            let _ = self.body(m.ty, level, out);
        } else {
            out.push_str(&self.declaration(m.ty, &m.name));
        }
        if m.bitfield_size > 0 {
            let _ = write!(out, ": {}", m.bitfield_size);
        }
    }
}

/// `struct NAME {`, or `struct {` for an anonymous one.
fn head(word: &str, name: &str) -> String {
    match name.is_empty() {
        true => format!("{word} {{"),
        false => format!("{word} {name} {{"),
    }
}

fn tabs(level: usize) -> String {
    "\t".repeat(level)
}
