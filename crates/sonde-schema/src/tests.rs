use super::*;
use serde_json::json;

fn schema(s: Value) -> Schema {
    Schema::new(s).unwrap_or_else(|e| panic!("{e}"))
}

fn errors(s: &Schema, v: Value) -> Vec<String> {
    s.validate(&v).err().unwrap_or_default()
}

#[test]
fn each_keyword_holds_and_fails() {
    let s = schema(json!({
        "type": "object",
        "required": ["n", "kind"],
        "properties": {
            "n": {"type": "integer", "minimum": 0},
            "kind": {"enum": ["a", "b"]},
            "fixed": {"const": 7},
            "list": {"type": "array", "items": {"type": ["string", "null"]}, "minItems": 1},
            "map": {"type": "object", "additionalProperties": {"type": "number"},
                    "minProperties": 1, "maxProperties": 2}
        },
        "additionalProperties": false
    }));
    let good = json!({"n": 1.0, "kind": "a", "fixed": 7, "list": ["x", null],
                      "map": {"k": 1.5}});
    assert_eq!(errors(&s, good), Vec::<String>::new());
    let bad = json!({"n": -1.5, "kind": "c", "fixed": 8, "list": [1], "map": {}, "extra": 0});
    let e = errors(&s, bad);
    for want in [
        "/n: -1.5 is not of type \"integer\"",
        "/n: -1.5 is below 0",
        "/kind: \"c\" is none of [\"a\",\"b\"]",
        "/fixed: 8 is not 7",
        "/list/0: 1 is not of type [\"string\",\"null\"]",
        "/map: fewer than 1 members",
        "/extra: not allowed here",
    ] {
        assert!(e.contains(&want.to_string()), "{want:?} not in {e:#?}");
    }
    assert_eq!(errors(&s, json!({"kind": "a"})), ["/: no member \"n\""]);
    assert_eq!(errors(&s, json!({"n": 0, "kind": "a", "list": []})), ["/list: fewer than 1 items"]);
    let three = json!({"n": 0, "kind": "b", "map": {"a": 1, "b": 2, "c": 3}});
    assert_eq!(errors(&s, three), ["/map: more than 2 members"]);
    assert_eq!(errors(&s, json!([1])), ["/: [1] is not of type \"object\""]);
}

#[test]
fn choices_and_references() {
    let s = schema(json!({
        "oneOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/b"}],
        "$defs": {
            "a": {"type": "object", "properties": {"type": {"const": "a"}}, "required": ["type"]},
            "b": {"type": "object", "properties": {"type": {"const": "b"}, "x": {"type": "string"}},
                  "required": ["type", "x"]}
        }
    }));
    assert!(s.validate(&json!({"type": "a"})).is_ok());
    assert!(s.validate(&json!({"type": "b", "x": "y"})).is_ok());
    // The closest choice says what is wrong.
    assert_eq!(
        errors(&s, json!({"type": "b", "x": 1})),
        ["/: matches none of the choices; closest:", "  /x: 1 is not of type \"string\""]
    );
    let both = schema(json!({"oneOf": [{"type": "integer"}, {"type": "number"}]}));
    assert_eq!(errors(&both, json!(1)), ["/: matches 2 choices where one is allowed"]);
    let any = schema(json!({"anyOf": [{"type": "integer"}, {"type": "number"}]}));
    assert!(any.validate(&json!(1)).is_ok());
}

#[test]
fn a_schema_with_what_this_validator_does_not_apply_is_refused() {
    let refused = |s: Value| Schema::new(s).err().unwrap_or_else(|| panic!("accepted"));
    assert_eq!(
        refused(json!({"properties": {"a": {"pattern": "^x"}}})),
        "#/properties/a/pattern: this validator does not apply `pattern`"
    );
    assert_eq!(
        refused(json!({"$ref": "#/$defs/none"})),
        "#/$ref: #/$defs/none points at no definition"
    );
    assert_eq!(refused(json!({"type": "int"})), "#/type: \"int\" is not a JSON type");
    assert_eq!(refused(json!({"oneOf": []})), "#/oneOf: not a list of schemas");
}

#[test]
fn the_records_schema_loads_and_names_its_draft() {
    let s = Schema::records().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.root["$schema"], "https://json-schema.org/draft/2020-12/schema");
    // An envelope with an unknown type is no record.
    assert!(s.check_line(r#"{"type": "nope", "data": {}}"#).is_err());
    assert!(s.check_line("{").is_err());
}
