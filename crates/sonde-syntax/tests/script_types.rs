//! bpftrace's script-level `struct` and `enum` definitions and map iteration, as parsed.

mod common;

use common::parse_ok;
use sonde_syntax::ast::{ForIter, StmtKind, TypeDecl};

#[test]
fn struct_and_enum_definitions() {
    let p = parse_ok(
        "struct a { int x; char name[16]; struct task_struct *t; int m[2][3] }; \
         enum { A = 3, B, C = -1 } enum named { Z } \
         struct b { unsigned long long v; } \
         BEGIN { @ = sizeof(struct a); }",
    );
    assert_eq!(p.probes.len(), 1);
    assert_eq!(p.types.len(), 4);
    let TypeDecl::Struct { name, fields, .. } = &p.types[0] else { panic!("{:?}", p.types[0]) };
    assert_eq!(name, "a");
    let f: Vec<(String, u8, &str, &[u64])> = fields
        .iter()
        .map(|f| (f.ty.base.clone(), f.ty.pointers, f.name.as_str(), f.array.as_slice()))
        .collect();
    assert_eq!(
        f,
        vec![
            ("int".into(), 0, "x", &[][..]),
            ("char".into(), 0, "name", &[16][..]),
            ("struct task_struct".into(), 1, "t", &[][..]),
            // The last field's `;` may be left out, as in C.
            ("int".into(), 0, "m", &[2, 3][..]),
        ]
    );
    let TypeDecl::Enum { name: None, values, .. } = &p.types[1] else { panic!("{:?}", p.types[1]) };
    let v: Vec<(&str, i64)> = values.iter().map(|(n, v, _)| (n.as_str(), *v)).collect();
    assert_eq!(v, vec![("A", 3), ("B", 4), ("C", -1)]);
    assert!(matches!(&p.types[2], TypeDecl::Enum { name: Some(n), .. } if n == "named"));
    let TypeDecl::Struct { fields, .. } = &p.types[3] else { panic!() };
    assert_eq!(fields[0].ty.base, "unsigned long long");
}

#[test]
fn bad_definitions_are_errors() {
    for bad in [
        "struct a { int x int y; } BEGIN {}",
        "struct a { int [4]; } BEGIN {}",
        "enum { A = B } BEGIN {}",
        "enum { A B } BEGIN {}",
    ] {
        assert!(sonde_syntax::parse(bad).is_err(), "{}", bad);
    }
}

#[test]
fn map_iteration_parses() {
    let p = parse_ok("BEGIN { for ($kv : @m) { print($kv.0); } }");
    let StmtKind::For { var, iter: ForIter::Map(_), .. } = &p.probes[0].body.stmts[0].kind else {
        panic!("{:?}", p.probes[0].body.stmts[0])
    };
    assert_eq!(var, "kv");
}

#[test]
fn two_loop_variables_say_what_to_write() {
    let text = "BEGIN { for ($k, $v : @m) { } }";
    let d = sonde_syntax::parse(text).unwrap_err();
    assert_eq!(d.len(), 1, "{}", common::render_all(text, &d));
    assert_eq!(d[0].message, "a `for` loop takes one variable");
    let help = common::render_all(text, &d);
    assert!(
        help.contains("write `for ($k : @map)`: `$k.0` is the key, `$k.1` the value"),
        "{}",
        help
    );
}

#[test]
fn anonymous_structs_are_structs_of_their_own_named_after_the_field() {
    let p =
        parse_ok("struct Foo { int m; struct { int x; } bar; struct { char c; } *p; } BEGIN {}");
    let names: Vec<&str> = p
        .types
        .iter()
        .map(|t| match t {
            TypeDecl::Struct { name, .. } => name.as_str(),
            TypeDecl::Enum { .. } => "enum",
        })
        .collect();
    assert_eq!(names, ["Foo.bar", "Foo.p", "Foo"]);
    let TypeDecl::Struct { fields, .. } = &p.types[2] else { panic!() };
    let f: Vec<(&str, u8, &str)> =
        fields.iter().map(|f| (f.ty.base.as_str(), f.ty.pointers, f.name.as_str())).collect();
    assert_eq!(f, [("int", 0, "m"), ("struct Foo.bar", 0, "bar"), ("struct Foo.p", 1, "p")]);
}

#[test]
fn struct_attributes_packed_and_aligned() {
    let p = parse_ok(
        "struct a { int x; } __attribute__((packed)) \
         struct b { int x; } /**/ __attribute__ /**/ ((packed, aligned(4))) __attribute__((aligned(8))) \
         struct c { int x; } BEGIN {}",
    );
    let attrs: Vec<(bool, Option<u64>)> = p
        .types
        .iter()
        .map(|t| match t {
            TypeDecl::Struct { attributes, .. } => (attributes.packed, attributes.aligned),
            TypeDecl::Enum { .. } => panic!(),
        })
        .collect();
    assert_eq!(attrs, [(true, None), (true, Some(8)), (false, None)]);
    for bad in [
        "struct a { int x; } __attribute__((pretty)) BEGIN {}",
        "struct a { int x; } __attribute__((aligned(3))) BEGIN {}",
        "struct a { int x; } __attribute__((aligned(8192))) BEGIN {}",
    ] {
        assert!(sonde_syntax::parse(bad).is_err(), "{}", bad);
    }
}
