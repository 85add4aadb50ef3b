//! A value against a schema [`crate::known`] has checked: each keyword as draft 2020-12 defines
//! it (a keyword about objects ignores other values, and so on).

use crate::known::resolve;
use serde_json::{Map, Value};

pub struct Validator<'a> {
    pub root: &'a Value,
}

/// One rule broken; `other_kind` when a `const` or `enum` failed: the value is another kind of
/// thing than the schema describes (a record of another type), not a wrong one of that kind.
pub struct Fault {
    pub text: String,
    pub other_kind: bool,
}

type Faults = Vec<Fault>;

fn fault(errors: &mut Faults, text: String) {
    errors.push(Fault { text, other_kind: false });
}

impl Validator<'_> {
    /// Appends to `errors` each rule of `schema` that `v` (at pointer `at`) breaks.
    pub fn check(&self, schema: &Value, v: &Value, at: &str, errors: &mut Faults) {
        let members = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return fault(errors, format!("{}: not allowed here", shown(at))),
            Value::Object(m) => m,
            _ => return,
        };
        for (key, rule) in members {
            match key.as_str() {
                "$ref" => {
                    if let Some(s) = rule.as_str().and_then(|r| resolve(self.root, r)) {
                        self.check(s, v, at, errors);
                    }
                }
                "type" => type_of(rule, v, at, errors),
                "const" if v != rule => {
                    let text = format!("{}: {v} is not {rule}", shown(at));
                    errors.push(Fault { text, other_kind: true });
                }
                "enum" if !rule.as_array().is_some_and(|a| a.contains(v)) => {
                    let text = format!("{}: {v} is none of {rule}", shown(at));
                    errors.push(Fault { text, other_kind: true });
                }
                "oneOf" | "anyOf" => self.choices(key == "oneOf", rule, v, at, errors),
                "minimum" if v.as_f64().is_some_and(|n| rule.as_f64().is_some_and(|m| n < m)) => {
                    fault(errors, format!("{}: {v} is below {rule}", shown(at)));
                }
                "items" => {
                    for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                        self.check(rule, item, &format!("{at}/{i}"), errors);
                    }
                }
                "minItems" if v.as_array().is_some_and(|a| (a.len() as u64) < count(rule)) => {
                    fault(errors, format!("{}: fewer than {rule} items", shown(at)));
                }
                _ => {
                    if let Some(o) = v.as_object() {
                        self.object(members, key, rule, o, at, errors);
                    }
                }
            }
        }
    }

    /// The keywords about an object's members.
    fn object(
        &self,
        schema: &Map<String, Value>,
        key: &str,
        rule: &Value,
        o: &Map<String, Value>,
        at: &str,
        errors: &mut Faults,
    ) {
        match key {
            "properties" => {
                for (name, s) in rule.as_object().into_iter().flatten() {
                    if let Some(member) = o.get(name) {
                        self.check(s, member, &format!("{at}/{name}"), errors);
                    }
                }
            }
            "required" => {
                for name in rule.as_array().into_iter().flatten().filter_map(Value::as_str) {
                    if !o.contains_key(name) {
                        fault(errors, format!("{}: no member {name:?}", shown(at)));
                    }
                }
            }
            "additionalProperties" => {
                let named = schema.get("properties").and_then(Value::as_object);
                for (name, member) in o {
                    if !named.is_some_and(|p| p.contains_key(name)) {
                        self.check(rule, member, &format!("{at}/{name}"), errors);
                    }
                }
            }
            "minProperties" if (o.len() as u64) < count(rule) => {
                fault(errors, format!("{}: fewer than {rule} members", shown(at)));
            }
            "maxProperties" if (o.len() as u64) > count(rule) => {
                fault(errors, format!("{}: more than {rule} members", shown(at)));
            }
            _ => {}
        }
    }

    /// `oneOf` (exactly one choice holds) or `anyOf` (at least one). When none holds, the errors
    /// of the closest choice tell what is wrong: one of the value's kind, with the fewest.
    fn choices(&self, one: bool, rule: &Value, v: &Value, at: &str, errors: &mut Faults) {
        let results: Vec<Faults> = rule
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                let mut e = Vec::new();
                self.check(s, v, at, &mut e);
                e
            })
            .collect();
        let held = results.iter().filter(|e| e.is_empty()).count();
        if held == 0 {
            let rank = |e: &Faults| (e.iter().any(|f| f.other_kind), e.len());
            let closest = results.into_iter().min_by_key(rank).unwrap_or_default();
            fault(errors, format!("{}: matches none of the choices; closest:", shown(at)));
            for f in closest {
                errors.push(Fault { text: format!("  {}", f.text), other_kind: f.other_kind });
            }
        } else if one && held > 1 {
            fault(errors, format!("{}: matches {held} choices where one is allowed", shown(at)));
        }
    }
}

fn type_of(rule: &Value, v: &Value, at: &str, errors: &mut Faults) {
    let names: Vec<&str> = match rule {
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        r => r.as_str().into_iter().collect(),
    };
    if !names.iter().any(|n| is(n, v)) {
        fault(errors, format!("{}: {v} is not of type {rule}", shown(at)));
    }
}

/// Draft 2020-12's types; an integer is any number with no fraction (1.0 is one).
fn is(name: &str, v: &Value) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "string" => v.is_string(),
        _ => false,
    }
}

fn count(rule: &Value) -> u64 {
    rule.as_u64().unwrap_or(0)
}

/// The pointer, or `/` for the whole value.
fn shown(at: &str) -> &str {
    if at.is_empty() {
        "/"
    } else {
        at
    }
}
