//! bpftrace's program structure and control flow: `macro`, `let`, map declarations, loops,
//! `break`/`continue`, positional parameters.

mod common;

use common::{errors, parse_ok, stmts};

fn dump(text: &str) -> String {
    sonde_syntax::dump(&parse_ok(text))
}

/// The dump of a `BEGIN` probe's body, without the probe's own lines.
fn body(text: &str) -> String {
    let d = dump(&format!("BEGIN {{ {} }}", text));
    d.lines().skip(2).map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l))).collect()
}

#[test]
fn loops_parse() {
    let d = body("while ($i < 10) { $i++; if ($i == 3) { continue; } break; }");
    assert!(d.starts_with("while\n  binary <\n    var $i\n    int 10\n"), "{}", d);
    assert!(d.contains("continue\n") && d.contains("break\n"), "{}", d);
    let d = body("for ($i : 0..5) { @x = $i; }");
    assert!(d.starts_with("for $i\n  range\n    int 0\n    int 5\n  do\n"), "{}", d);
    // Without parentheses, and with casts around the bounds (bpftrace's opensnoop).
    let d = body("for $j : ((uint64)0)..((uint64)35) { }");
    assert!(d.contains("range\n    cast (uint64)\n      int 0\n"), "{}", d);
    let d = body("for ($kv : @m) { }");
    assert!(d.starts_with("for $kv\n  map @m\n"), "{}", d);
    let d = body("unroll(3) { @x++; }");
    assert!(d.starts_with("unroll\n  int 3\n"), "{}", d);
}

#[test]
fn let_declarations_parse() {
    assert_eq!(body("let $a;"), "let $a\n");
    assert_eq!(body("let $a = 1;"), "let $a\n  int 1\n");
    assert_eq!(body("let $a: uint16 = 1;"), "let $a: uint16\n  int 1\n");
    // `let` is still a plain name elsewhere.
    assert_eq!(stmts("$let = 1;").len(), 1);
}

#[test]
fn map_declarations_parse() {
    let p = parse_ok("let @rqtp = lruhash(4096);\nlet @h = hash(8)\nBEGIN { @rqtp[1] = 2; }");
    let d: Vec<_> =
        p.map_decls.iter().map(|d| (d.name.as_str(), d.kind.as_str(), d.size)).collect();
    assert_eq!(d, [("@rqtp", "lruhash", 4096), ("@h", "hash", 8)]);
    assert_eq!(
        errors("let @m = lruhash(x); BEGIN { }"),
        ["expected the map's size, a number, found `x`"]
    );
}

#[test]
fn macros_expand_at_the_call() {
    let text = "macro one() { 1 }\nmacro add(x, y) { x + y }\n\
                macro bump($v, @m) { $v += 1; @m = $v; }\n\
                BEGIN { $a = add(one, one()); bump($a, @z); }";
    let d = dump(text);
    // Plain parameters are the argument expressions; `$v` and `@m` the caller's names.
    assert!(
        d.contains(
            "body\n    assign\n      var $a\n      binary +\n        int 1\n        int 1\n"
        ),
        "{}",
        d
    );
    assert!(d.contains("seq\n      assign +=\n        var $a\n"), "{}", d);
    assert!(d.contains("map @z\n        var $a"), "{}", d);
}

#[test]
fn a_macro_body_has_its_own_variables() {
    let text = "macro f(x) { $t = x * 2; $t + 1 }\nBEGIN { $t = 5; $r = f($t); }";
    let d = dump(text);
    // The body's statements run where the call is evaluated; its `$t` is not the caller's.
    assert!(
        d.contains("var $r\n      block\n        assign\n          var $t.f1\n          binary *\n            var $t\n"),
        "{}",
        d
    );
    assert!(d.contains("        binary +\n          var $t.f1\n          int 1\n"), "{}", d);
}

#[test]
fn macro_mistakes() {
    assert_eq!(
        errors("macro f($v) { $v++; }\nBEGIN { f(1); }"),
        ["macro `f`'s parameter `$v` takes a variable, like `$x`"]
    );
    assert_eq!(
        errors("macro f(@m) { @m++; }\nBEGIN { f(1); }"),
        ["macro `f`'s parameter `@m` takes a map, like `@m`"]
    );
    assert_eq!(
        errors("macro f(a) { a }\nBEGIN { f(1, 2); }"),
        ["macro `f` takes 1 argument(s), 2 given"]
    );
    assert_eq!(
        errors("macro f() { printf(\"x\"); @x = 1; }\nBEGIN { $a = f(); }"),
        ["this macro or block has no value: it ends in a statement"]
    );
}

#[test]
fn macros_in_predicates_and_loop_conditions() {
    let p = parse_ok("macro big(x) { x > 10 }\nBEGIN /big(pid)/ { }");
    assert!(p.probes[0].predicate.is_some());
    // A macro's statements run where its value is taken: on each test of a loop's condition.
    let p = parse_ok("macro f() { $t = 1; $t }\nBEGIN /f()/ { }");
    assert!(p.probes[0].predicate.is_some());
    let d = dump("macro f() { @n++; @n < 3 }\nBEGIN { while (f()) { } }");
    assert!(d.contains("while\n      block\n        assign +=\n"), "{}", d);
    assert_eq!(
        errors("macro f() { @x = 1; }\nBEGIN /f()/ { }"),
        ["a `macro` that ends in a statement has no value to test in a predicate"]
    );
}

#[test]
fn loop_syntax_errors() {
    assert_eq!(
        errors("BEGIN { for ($i 0..5) { } }"),
        ["expected `:` after the loop variable, found `0`"]
    );
    assert_eq!(
        errors("BEGIN { while (1) @x = 1; }"),
        ["expected `{` after the `while` condition, found `@x`"]
    );
    assert_eq!(errors("BEGIN { for ($i : 0..) { } }"), ["expected an expression, found `)`"]);
}

#[test]
fn a_macro_may_be_called_before_its_definition() {
    let d = dump("BEGIN { @x = later(2); }\nmacro later(x) { x * 3 }");
    assert!(d.contains("binary *\n        int 2\n        int 3\n"), "{}", d);
    // Macros naming themselves or each other ahead of their definitions end.
    // (the innermost `a()` stays a call, which the checker refuses as an unknown function).
    let d = dump("BEGIN { @x = a(); }\nmacro a() { b() }\nmacro b() { a() + 1 }");
    assert!(d.contains("binary +\n        call a\n        int 1\n"), "{}", d);
    let d = dump("BEGIN { @x = a(); }\nmacro a() { a() }");
    assert!(d.contains("call a"), "{}", d);
    // A broken header whose body (parsed to recover) names the macro (found by the fuzz lane).
    assert_eq!(errors("macro bump\"\n{bump").len(), 3);
    // Its mistakes are reported once, where it is defined.
    assert_eq!(
        errors("BEGIN { @x = later(2); }\nmacro later(x) { x * }"),
        ["expected an expression, found `}`"]
    );
}

#[test]
fn block_expressions() {
    let d = body("let $a = { let $b = 1; $b + 1 };");
    assert_eq!(
        d,
        "let $a\n  block\n    let $b\n      int 1\n    binary +\n      var $b\n      int 1\n"
    );
    assert_eq!(
        errors("BEGIN { $a = { @x = 1; }; }"),
        ["this macro or block has no value: it ends in a statement"]
    );
}

#[test]
fn positional_parameters_lex_as_variables() {
    let d = body("@a = $1; @b = $#;");
    assert!(d.contains("var $1") && d.contains("var $#"), "{}", d);
}

#[test]
fn lowercase_begin_and_end() {
    let p = parse_ok("begin { } end { }");
    assert_eq!(p.probes[0].specs[0].provider, "begin");
    assert_eq!(p.probes[1].specs[0].provider, "end");
}

#[test]
fn steps_inside_expressions_parse() {
    assert_eq!(common::predicate("$i++ < 3"), "(($i++) < 3)");
    assert_eq!(common::predicate("--@m[1] == *++$p"), "((--@m[1]) == (*(++$p)))");
    assert_eq!(
        errors("BEGIN { $x = ++1; }"),
        ["`++` needs a map or variable after it, like `++$i`"]
    );
    // Alone, a step is `+= 1` (on an aggregation, a count).
    assert_eq!(body("$i++;"), body("$i += 1;"));
}

#[test]
fn bitfields_parse() {
    let p = parse_ok("struct S { unsigned int a:4, b:8; int c[2]; int d:3 }\nBEGIN { }");
    let sonde_syntax::ast::TypeDecl::Struct { fields, .. } = &p.types[0] else { panic!() };
    let got: Vec<(&str, Option<u32>)> = fields.iter().map(|f| (f.name.as_str(), f.bits)).collect();
    assert_eq!(got, [("a", Some(4)), ("b", Some(8)), ("c", None), ("d", Some(3))]);
    assert_eq!(
        errors("struct S { int a:65; }\nBEGIN { }"),
        ["expected a bitfield width from 0 to 64, found `65`"]
    );
}
