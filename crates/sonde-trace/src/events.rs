//! Other events in the same time line (`-e 'nanosleep,sched:sched_switch/max-stack=8/'`):
//! tracepoints named `CATEGORY:NAME` (globs allowed) beside the syscalls in `-e`, each printed
//! with the fields of its format file as perf trace prints them:
//! `0.033 (         ): app/12 sched:sched_switch(prev_comm: "app", prev_pid: 12 (app), ...)`.

use crate::names::{pid_text, until_nul, Names};
use sonde_compile::provider::tracepoint_format::parse_format;
use sonde_compile::types::Type;
use sonde_compile::Env;

#[derive(Debug, PartialEq, thiserror::Error)]
pub enum EventError {
    #[error("-e {0}: no tracepoint of this kernel has that name")]
    Unknown(String),
    #[error("-e {0}: no tracepoint of this kernel matches that pattern")]
    NoMatch(String),
    #[error("-e {0}: cannot read its format: {1}")]
    Format(String, String),
    #[error("-e {0}: a per-event option must be /max-stack=N/")]
    Option(String),
    #[error("cannot list the tracepoints: {0}")]
    List(String),
}

/// One `-e` item that is an event: `CATEGORY:NAME[/max-stack=N/]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub pattern: String,
    pub max_stack: Option<usize>,
}

/// How a field prints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldKind {
    Int {
        signed: bool,
        bytes: u8,
    },
    /// A `pid_t`: with its comm.
    Pid,
    Str,
    Pointer,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub kind: FieldKind,
}

/// A tracepoint to trace and the fields its records carry, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub category: String,
    pub name: String,
    pub fields: Vec<Field>,
    pub max_stack: Option<usize>,
}

/// `-e`'s syscall items (joined again, or None when there are none) and its event items.
pub fn split(expr: &str) -> Result<(Option<String>, Vec<Spec>), EventError> {
    let mut syscalls = Vec::new();
    let mut events = Vec::new();
    for item in expr.split(',') {
        if !item.contains(':') || item.starts_with("trace=") {
            syscalls.push(item);
            continue;
        }
        let (pattern, max_stack) = match item.split_once('/') {
            None => (item, None),
            Some((p, opt)) => {
                let n = opt
                    .strip_suffix('/')
                    .and_then(|o| o.strip_prefix("max-stack="))
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| EventError::Option(item.to_string()))?;
                (p, Some(n))
            }
        };
        events.push(Spec { pattern: pattern.trim().to_string(), max_stack });
    }
    let syscalls = (!syscalls.is_empty()).then(|| syscalls.join(","));
    Ok((syscalls, events))
}

/// The tracepoints the specs name, with their fields from the format files.
pub fn resolve(specs: &[Spec], env: &dyn Env) -> Result<Vec<Event>, EventError> {
    let mut out = Vec::new();
    if specs.is_empty() {
        return Ok(out);
    }
    let list = env.tracepoints().map_err(|e| EventError::List(e.to_string()))?;
    for spec in specs {
        let glob = sonde_glob::Glob::new(&spec.pattern);
        let matched: Vec<&(String, String)> =
            list.iter().filter(|(c, n)| glob.matches(&format!("{c}:{n}"))).collect();
        if matched.is_empty() {
            return Err(match glob.is_literal() {
                true => EventError::Unknown(spec.pattern.clone()),
                false => EventError::NoMatch(spec.pattern.clone()),
            });
        }
        for (category, name) in matched {
            let text = env
                .tracepoint_format(category, name)
                .map_err(|e| EventError::Format(spec.pattern.clone(), e.to_string()))?;
            let def = parse_format(category, name, &text)
                .map_err(|e| EventError::Format(spec.pattern.clone(), e))?;
            let fields = def
                .fields
                .iter()
                .filter(|f| !f.name.starts_with("common_"))
                .filter_map(|f| {
                    let kind = match &f.ty {
                        _ if text.contains(&format!("field:pid_t {};", f.name)) => FieldKind::Pid,
                        Type::Int { bytes, signed } => {
                            FieldKind::Int { signed: *signed, bytes: *bytes }
                        }
                        Type::Str(_) => FieldKind::Str,
                        Type::Ptr { .. } => FieldKind::Pointer,
                        // Arrays and structs print nothing readable in a line.
                        _ => return None,
                    };
                    Some(Field { name: f.name.clone(), kind })
                })
                .collect();
            out.push(Event {
                category: category.clone(),
                name: name.clone(),
                fields,
                max_stack: spec.max_stack,
            });
        }
    }
    Ok(out)
}

/// One field's value as a record carries it.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Int(u64),
    Str(Vec<u8>),
}

impl Event {
    /// `sched:sched_switch`.
    pub fn title(&self) -> String {
        format!("{}:{}", self.category, self.name)
    }

    /// `sched:sched_switch(prev_comm: "app", prev_pid: 12 (app), ...)`.
    pub fn text(&self, values: &[FieldValue], names: &dyn Names) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .zip(values)
            .map(|(f, v)| format!("{}: {}", f.name, field_text(f.kind, v, names)))
            .collect();
        format!("{}({})", self.title(), fields.join(", "))
    }

    /// The `data` of its `trace_event` record (the caller adds `stack`).
    pub fn data(
        &self,
        time_ns: u64,
        pid: u32,
        tid: u32,
        comm: &str,
        values: &[FieldValue],
    ) -> serde_json::Value {
        serde_json::json!({
            "time_ns": time_ns, "pid": pid, "tid": tid, "comm": comm,
            "event": self.title(), "fields": self.json(values),
        })
    }

    /// The fields as JSON: name -> number or string.
    pub fn json(&self, values: &[FieldValue]) -> serde_json::Value {
        let fields: serde_json::Map<String, serde_json::Value> = self
            .fields
            .iter()
            .zip(values)
            .map(|(f, v)| {
                let value = match (f.kind, v) {
                    (FieldKind::Int { signed, bytes }, FieldValue::Int(raw)) => {
                        serde_json::json!(crate::beauty::as_int(*raw, signed, bytes))
                    }
                    (FieldKind::Pid, FieldValue::Int(raw)) => serde_json::json!(*raw as i32),
                    (_, FieldValue::Int(raw)) => serde_json::json!(raw),
                    (_, FieldValue::Str(b)) => {
                        serde_json::json!(String::from_utf8_lossy(until_nul(b)))
                    }
                };
                (f.name.clone(), value)
            })
            .collect();
        serde_json::Value::Object(fields)
    }
}

fn field_text(kind: FieldKind, v: &FieldValue, names: &dyn Names) -> String {
    match (kind, v) {
        (_, FieldValue::Str(b)) => format!("\"{}\"", String::from_utf8_lossy(until_nul(b))),
        (FieldKind::Int { signed, bytes }, FieldValue::Int(raw)) => {
            crate::beauty::as_int(*raw, signed, bytes).to_string()
        }
        (FieldKind::Pid, FieldValue::Int(raw)) => pid_text(names, *raw as i32 as i64),
        (FieldKind::Pointer, FieldValue::Int(0)) => "NULL".into(),
        (_, FieldValue::Int(raw)) => format!("{raw:#x}"),
    }
}

#[cfg(test)]
mod tests;
