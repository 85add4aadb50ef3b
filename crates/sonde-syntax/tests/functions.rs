//! bpftrace's `fn NAME($p: TYPE, ...) [: TYPE] { body }`: parsed at the top level, `return
//! value;` returning its value inside one (in a probe the value is dropped).

mod common;

use common::{errors, parse_ok};
use sonde_syntax::ast::StmtKind;

#[test]
fn functions_parse_with_typed_parameters_and_an_optional_type() {
    let p = parse_ok(
        "fn add($a: int64, $b: unsigned int): int64 { return $a + $b; }\n\
         fn note($p: struct task_struct *) { print(1); return; }\n\
         fn none(): void { }\n\
         BEGIN { @ = add(1, 2); }",
    );
    assert_eq!(p.funcs.len(), 3);
    let add = &p.funcs[0];
    assert_eq!(add.name, "add");
    let params: Vec<String> = add.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
    assert_eq!(params, ["a: int64", "b: unsigned int"]);
    assert_eq!(add.ret.as_ref().map(|t| t.to_string()), Some("int64".into()));
    assert!(matches!(add.body.stmts[0].kind, StmtKind::ReturnValue(_)));
    assert_eq!(p.funcs[1].params[0].ty.pointers, 1);
    assert!(p.funcs[1].ret.is_none());
    assert!(p.funcs[2].ret.is_none(), "`: void` is no type");
    // In a probe, `return value;` still evaluates the value and returns.
    let p = parse_ok("BEGIN { return 1; }");
    assert!(matches!(p.probes[0].body.stmts[0].kind, StmtKind::Seq(_)));
}

#[test]
fn malformed_functions_are_located() {
    let e = errors("fn f($a) { }\nBEGIN { }");
    assert!(e.iter().any(|m| m.contains("`:` and the parameter's type")), "{e:?}");
    let e = errors("fn f(a: int64) { }\nBEGIN { }");
    assert!(e.iter().any(|m| m.contains("a parameter, like `$x: int64`")), "{e:?}");
    let e = errors("fn f($a: int64) return 1;\nBEGIN { }");
    assert!(e.iter().any(|m| m.contains("`{` to start the function's body")), "{e:?}");
    // The probe after a bad function still parses: one mistake, one message.
    assert_eq!(errors("fn f($a) { }\nBEGIN { @ = 1; }").len(), 1);
}
