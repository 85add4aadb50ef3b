//! The tests' check of sonde's JSON records against `docs/schema/records.schema.json`.
//!
//! A validator of the part of JSON Schema (draft 2020-12) that file uses, written here instead of
//! taken from crates.io: the validators there bring dozens of crates (regular expressions, URL
//! and IDNA tables, HTTP clients behind default features) for the dozen keywords sonde's schema
//! needs. A keyword outside that part is refused when the schema is loaded ([`known`]), so no
//! rule of the schema is ever skipped in silence.

mod known;
mod validate;

use serde_json::Value;
use std::path::PathBuf;

/// A loaded schema whose every keyword this crate checks.
pub struct Schema {
    root: Value,
}

impl Schema {
    /// The schema `root`, or what in it this validator does not know.
    pub fn new(root: Value) -> Result<Schema, String> {
        known::check(&root, &root, "#")?;
        Ok(Schema { root })
    }

    /// `docs/schema/records.schema.json`, the schema of every record sonde writes.
    pub fn records() -> Result<Schema, String> {
        let text = std::fs::read_to_string(records_path())
            .map_err(|e| format!("cannot read {}: {e}", records_path().display()))?;
        let root = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", records_path().display()))?;
        Schema::new(root)
    }

    /// The schema itself.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// Ok, or every rule `v` breaks, each as `/json/pointer: what is wrong`.
    pub fn validate(&self, v: &Value) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        validate::Validator { root: &self.root }.check(&self.root, v, "", &mut errors);
        match errors.is_empty() {
            true => Ok(()),
            false => Err(errors.into_iter().map(|f| f.text).collect()),
        }
    }

    /// One line of output: parsed, then validated.
    pub fn check_line(&self, line: &str) -> Result<Value, String> {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
        self.validate(&v).map_err(|e| format!("{}\n  in {line}", e.join("\n")))?;
        Ok(v)
    }
}

/// Where the records' schema is in the source tree.
pub fn records_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema/records.schema.json")
}

#[cfg(test)]
mod tests;
