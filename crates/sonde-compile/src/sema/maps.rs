//! Map types, inferred from every use: key types from the first use with keys, the value from
//! assignments. Later uses must agree; strings of different sizes widen to the largest.

use crate::model::tir::{MapInfo, MapValue};
use crate::model::types::Type;
use sonde_syntax::ast::Span;
use sonde_syntax::diag::Diagnostic;
use std::collections::HashMap;

#[derive(Debug)]
struct Entry {
    name: String,
    keys: Option<(Vec<Type>, Span)>,
    value: Option<(MapValue, Span)>,
    first: Span,
    /// An assignment to it was itself a mistake (already reported): not "never assigned".
    failed: bool,
    /// `let @m = KIND(N)`: its size and whether it is an LRU map.
    declared: Option<(u32, bool)>,
    /// `len(@m)` reads its element count, kept beside it (`lower/len.rs`).
    counted: bool,
}

#[derive(Default, Debug)]
pub struct MapTable {
    entries: Vec<Entry>,
    by_name: HashMap<String, usize>,
}

impl MapTable {
    pub fn lookup(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub fn get_or_create(&mut self, name: &str, span: Span) -> usize {
        if let Some(&i) = self.by_name.get(name) {
            return i;
        }
        self.entries.push(Entry {
            name: name.to_string(),
            keys: None,
            value: None,
            first: span,
            failed: false,
            declared: None,
            counted: false,
        });
        self.by_name.insert(name.to_string(), self.entries.len() - 1);
        self.entries.len() - 1
    }

    /// bpftrace's `let @m = hash(N)`, `lruhash(N)`, `percpuhash(N)`, `percpulruhash(N)`.
    pub fn declare(&mut self, d: &sonde_syntax::ast::MapDecl) -> Result<(), Diagnostic> {
        let lru = match d.kind.as_str() {
            "hash" | "percpuhash" => false,
            "lruhash" | "percpulruhash" => true,
            k => {
                return Err(Diagnostic::error(d.span, format!("unknown map kind `{}`", k))
                    .with_help("a map declaration is `let @m = hash(N);`, `lruhash(N)`, `percpuhash(N)` or `percpulruhash(N)`"))
            }
        };
        let size = match u32::try_from(d.size) {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(Diagnostic::error(
                    d.span,
                    format!("map `{}` needs a size from 1 to {}", d.name, u32::MAX),
                ))
            }
        };
        if self.lookup(&d.name).is_some() {
            return Err(Diagnostic::error(d.span, format!("map `{}` is declared twice", d.name)));
        }
        let m = self.get_or_create(&d.name, d.span);
        self.entries[m].declared = Some((size, lru));
        Ok(())
    }

    /// `len(@m)` is used: the map's elements are counted as they come and go.
    pub fn count(&mut self, map: usize) {
        self.entries[map].counted = true;
    }

    /// Declared `lruhash`/`percpulruhash`: the kernel evicts elements unseen.
    pub fn is_lru(&self, map: usize) -> bool {
        self.entries[map].declared.is_some_and(|(_, lru)| lru)
    }

    /// Whether the map has keys (`@m[k]`), when a use has said.
    pub fn has_keys(&self, map: usize) -> Option<bool> {
        self.entries[map].keys.as_ref().map(|(k, _)| !k.is_empty())
    }

    pub fn name(&self, map: usize) -> &str {
        &self.entries[map].name
    }

    /// The key types learnt so far.
    pub fn keys(&self, map: usize) -> Option<&[Type]> {
        self.entries[map].keys.as_ref().map(|(k, _)| k.as_slice())
    }

    pub fn value(&self, map: usize) -> Option<&MapValue> {
        self.entries[map].value.as_ref().map(|(v, _)| v)
    }

    /// Record a use with these key types; an error if it disagrees with earlier uses.
    pub fn use_keys(&mut self, map: usize, keys: &[Type], span: Span) -> Result<(), Diagnostic> {
        let e = &mut self.entries[map];
        match &mut e.keys {
            None => {
                e.keys = Some((keys.to_vec(), span));
                Ok(())
            }
            Some((known, first)) => {
                if known.len() != keys.len() {
                    return Err(Diagnostic::error(
                        span,
                        format!(
                            "map `{}` is used with {} key(s) here but {} elsewhere",
                            e.name,
                            keys.len(),
                            known.len()
                        ),
                    )
                    .with_label(*first, format!("used with {} key(s) here", known.len())));
                }
                for (k, new) in known.iter_mut().zip(keys) {
                    if !k.compatible(new) {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "map `{}` is used with a key of type `{}` here but `{}` elsewhere",
                                e.name, new, k
                            ),
                        )
                        .with_label(*first, format!("key of type `{}` here", k)));
                    }
                    widen(k, new);
                }
                Ok(())
            }
        }
    }

    /// Record an assignment of this kind of value.
    pub fn use_value(&mut self, map: usize, value: MapValue, span: Span) -> Result<(), Diagnostic> {
        let e = &mut self.entries[map];
        match &mut e.value {
            None => {
                e.value = Some((value, span));
                Ok(())
            }
            Some((known, first)) => {
                let ok = match (&mut *known, &value) {
                    (MapValue::Plain(a), MapValue::Plain(b)) if a.compatible(b) => {
                        widen(a, b);
                        true
                    }
                    (MapValue::Agg { func: a, signed: sa }, MapValue::Agg { func: b, .. })
                        if a == b =>
                    {
                        if let MapValue::Agg { signed, .. } = value {
                            *sa |= signed;
                        }
                        true
                    }
                    _ => false,
                };
                if ok {
                    Ok(())
                } else {
                    Err(Diagnostic::error(
                        span,
                        format!(
                            "map `{}` is assigned {} here but {} elsewhere",
                            e.name,
                            describe(&value),
                            describe(known)
                        ),
                    )
                    .with_label(*first, format!("assigned {} here", describe(known))))
                }
            }
        }
    }

    /// An assignment to `map` was reported as wrong: its value stays unknown without a second
    /// error saying so (one mistake, one error).
    pub fn assignment_failed(&mut self, map: usize) {
        self.entries[map].failed = true;
    }

    /// The final map list; maps that are read but never written are errors.
    pub fn finish(self, diags: &mut Vec<Diagnostic>) -> Vec<MapInfo> {
        let mut out = Vec::new();
        for e in self.entries {
            let value = match e.value {
                Some((v, _)) => v,
                None if e.failed => continue,
                None => {
                    diags.push(Diagnostic::error(
                        e.first,
                        format!("map `{}` is used but never assigned a value", e.name),
                    ));
                    continue;
                }
            };
            let keys = e.keys.map(|(k, _)| k).unwrap_or_default();
            let (max_entries, lru) = match e.declared {
                Some((n, lru)) => (Some(n), lru),
                None => (None, false),
            };
            let counted = e.counted;
            out.push(MapInfo {
                name: e.name,
                keys,
                value,
                span: e.first,
                max_entries,
                lru,
                counted,
            });
        }
        out
    }
}

fn widen(known: &mut Type, new: &Type) {
    match (known, new) {
        (k @ Type::Int { .. }, Type::Int { bytes: 8, signed: false }) => *k = Type::U64,
        (k, _) => k.widen_strings(new),
    }
}

fn describe(v: &MapValue) -> String {
    match v {
        MapValue::Plain(t) => format!("a value of type `{}`", t),
        MapValue::Agg { func, .. } => format!("the aggregation {}()", func.name()),
    }
}
