//! bpftrace's typed declarations, `let $v: TYPE [= value];`: values convert to TYPE, and an
//! integer literal TYPE cannot hold is an error at the literal.

mod common;

use common::errors;

#[test]
fn literals_that_fit_or_are_cast_are_accepted() {
    for body in [
        "let $a: uint16 = (uint16)-1;",
        "let $a: uint8 = (uint8)10000;",
        "let $a: int16 = 1;",
        "let $a: int8 = 1; $a = -100;",
        "let $a: int8 = 1; $a = (int32)1000;",
        "let $a: uint8; $a = pid;",
        "let $a: int16; print($a);",
        "let $a: uint64 = 18446744073709551615;",
    ] {
        assert_eq!(errors(&format!("BEGIN {{ {} }}", body)), "", "{}", body);
    }
}

#[test]
fn a_literal_the_declared_type_cannot_hold_is_located() {
    let e = errors("BEGIN {\n  let $a: uint8 = 300;\n}");
    assert!(e.contains("error: 300 does not fit in the declared type `uint8` (0 to 255)"), "{e}");
    assert!(e.contains("--> stdin:2:19"), "{e}");
    assert!(e.contains("^^^"), "{e}");
    let e = errors("BEGIN { let $a: uint16; $a = -1; }");
    assert!(e.contains("-1 does not fit in the declared type `u16` (0 to 65535)"), "{e}");
    assert!(e.contains("--> stdin:1:30"), "{e}");
    let e = errors("BEGIN { let $a: int8 = 1; $a = -10000; }");
    assert!(e.contains("-10000 does not fit in the declared type `s8` (-128 to 127)"), "{e}");
}
