//! The schema's own check, before any value is validated: every keyword is one the validator
//! applies, every `$ref` points at a definition, every `type` names a JSON type.

use serde_json::Value;

/// Keywords that only annotate: they never fail a value.
const ANNOTATIONS: [&str; 6] = ["$schema", "$id", "$comment", "title", "description", "examples"];

const TYPES: [&str; 7] = ["null", "boolean", "object", "array", "number", "integer", "string"];

/// `schema` (found at `at`) and every schema inside it.
pub fn check(root: &Value, schema: &Value, at: &str) -> Result<(), String> {
    let members = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(m) => m,
        _ => return Err(format!("{at}: a schema is an object or a boolean")),
    };
    for (key, value) in members {
        let here = format!("{at}/{key}");
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$defs" | "properties" => {
                let defs = value.as_object().ok_or(format!("{here}: not an object"))?;
                for (name, s) in defs {
                    check(root, s, &format!("{here}/{name}"))?;
                }
            }
            "oneOf" | "anyOf" => {
                let all = value.as_array().filter(|a| !a.is_empty());
                for (i, s) in
                    all.ok_or(format!("{here}: not a list of schemas"))?.iter().enumerate()
                {
                    check(root, s, &format!("{here}/{i}"))?;
                }
            }
            "additionalProperties" | "items" => check(root, value, &here)?,
            "$ref" => {
                let r = value.as_str().ok_or(format!("{here}: not a string"))?;
                resolve(root, r).ok_or(format!("{here}: {r} points at no definition"))?;
            }
            "type" => {
                let names: Vec<&Value> = match value {
                    Value::Array(a) => a.iter().collect(),
                    v => vec![v],
                };
                if !names.iter().all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n))) {
                    return Err(format!("{here}: {value} is not a JSON type"));
                }
            }
            "required" => {
                let names = value.as_array().filter(|a| a.iter().all(Value::is_string));
                names.ok_or(format!("{here}: not a list of names"))?;
            }
            "enum" => {
                value.as_array().ok_or(format!("{here}: not a list"))?;
            }
            "minProperties" | "maxProperties" | "minItems" => {
                value.as_u64().ok_or(format!("{here}: not a count"))?;
            }
            "minimum" => {
                value.as_f64().ok_or(format!("{here}: not a number"))?;
            }
            "const" => {}
            _ => return Err(format!("{here}: this validator does not apply `{key}`")),
        }
    }
    Ok(())
}

/// `#/$defs/NAME`'s schema; other references are not used by sonde's schema.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let name = reference.strip_prefix("#/$defs/")?;
    root.get("$defs")?.get(name)
}
