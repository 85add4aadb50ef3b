//! Programs that do not parse: the messages, their spans and how they render.

mod common;

use common::{errors, rendered};
use sonde_syntax::ast::Span;

fn one_error(text: &str) -> String {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{:?}: {:?}", text, e);
    e.into_iter().next().unwrap_or_default()
}

fn spans(text: &str) -> Vec<Span> {
    sonde_syntax::parse(text).expect_err("errors").iter().map(|d| d.span).collect()
}

#[test]
fn rendered_unclosed_call() {
    assert_eq!(
        rendered(r#"BEGIN { printf("x" }"#),
        "\
error: expected `,` or `)` after function argument, found `}`
 --> prog.ply:1:20
  |
1 | BEGIN { printf(\"x\" }
  |                    ^
  |               - this `(` is not closed

"
    );
}

#[test]
fn rendered_error_on_a_later_line() {
    assert_eq!(
        rendered("BEGIN {\n  @x = count();\n  @y = ;\n}"),
        "\
error: expected an expression, found `;`
 --> prog.ply:3:8
  |
3 |   @y = ;
  |        ^

"
    );
}

#[test]
fn rendered_missing_semicolon_across_lines() {
    assert_eq!(
        rendered("BEGIN {\n\t@x = 1\n\t@y = 2;\n}"),
        "\
error: expected `;` after statement, found `@y`
 --> prog.ply:3:2
  |
2 |     @x = 1
  |           - add `;` here
3 |     @y = 2;
  |     ^^

"
    );
}

#[test]
fn rendered_empty_program() {
    assert_eq!(
        rendered("  \n"),
        "\
error: no probes in program
 --> prog.ply:1:1
  |
1 |
  | ^
  = help: a program is one or more probes, like `BEGIN { printf(\"hello\\n\"); }`

"
    );
}

#[test]
fn rendered_several_errors() {
    assert_eq!(
        rendered("BEGIN { @a = ; @b = 1 @c; }\nEND { foo = 2 }"),
        "\
error: expected an expression, found `;`
 --> prog.ply:1:14
  |
1 | BEGIN { @a = ; @b = 1 @c; }
  |              ^

error: expected `;` after statement, found `@c`
 --> prog.ply:1:23
  |
1 | BEGIN { @a = ; @b = 1 @c; }
  |                       ^^

error: cannot assign to `foo`
 --> prog.ply:2:7
  |
2 | END { foo = 2 }
  |       ^^^
  = help: write `@foo` for a map or `$foo` for a variable

"
    );
}

#[test]
fn probe_errors() {
    assert_eq!(one_error(""), "no probes in program");
    assert_eq!(one_error("// only a comment\n"), "no probes in program");
    assert_eq!(one_error("#!/usr/bin/sonde\n"), "no probes in program");
    // A one-statement body (ply's grammar) leaves the stray `}` as the mistake.
    assert_eq!(
        one_error("BEGIN printf(\"x\"); }"),
        "expected a probe, like `BEGIN` or `kprobe:vfs_read`, found `}`"
    );
    assert_eq!(
        one_error("BEGIN printf(\"x\") END { }"),
        "expected `;` after the probe's statement, found `END`"
    );
    assert_eq!(one_error("BEGIN @x = ;"), "expected an expression, found `;`");
    assert_eq!(one_error("BEGIN ;"), "expected `{` after probe spec, found `;`");
    assert_eq!(one_error("BEGIN"), "expected `{` after probe spec, found end of input");
    assert_eq!(
        one_error("kprobe:a / pid / exit();"),
        "expected `{` after the predicate, found `exit`"
    );
    assert_eq!(one_error("BEGIN, { }"), "expected a probe spec after `,`, found `{`");
    assert_eq!(
        one_error("{ @x = 1; }"),
        "expected a probe, like `BEGIN` or `kprobe:vfs_read`, found `{`"
    );
    assert_eq!(
        one_error("BEGIN { } }"),
        "expected a probe, like `BEGIN` or `kprobe:vfs_read`, found `}`"
    );
    assert_eq!(
        one_error("BEGIN { } ; END { }"),
        "expected a probe, like `BEGIN` or `kprobe:vfs_read`, found `;`"
    );
    assert_eq!(one_error("kprobe:a / x + / { }"), "expected an expression, found `/`");
    assert_eq!(one_error("kprobe:a / x { }"), "expected `/` to end the predicate, found `{`");
    assert_eq!(one_error("kprobe:a / x = 1 / { }"), "expected `/` to end the predicate, found `=`");
    assert_eq!(errors("kprobe:a / x + "), vec!["expected an expression, found end of input"]);
    assert_eq!(
        errors("kprobe:a / x / @x = 1;"),
        vec!["expected `{` after the predicate, found `@x`"]
    );
    // The body of a probe with a broken header is still checked.
    assert_eq!(
        errors("BEGIN x { @a = ; }"),
        vec!["expected `{` after probe spec, found `x`", "expected an expression, found `;`"]
    );
}

#[test]
fn statement_errors() {
    assert_eq!(one_error("BEGIN { @x = 1 @y = 2; }"), "expected `;` after statement, found `@y`");
    assert_eq!(one_error("BEGIN { @x = 1;"), "expected `}` to close the block, found end of input");
    assert_eq!(
        one_error("BEGIN { if (x) { @x = 1; }"),
        "expected `}` to close the block, found end of input"
    );
    assert_eq!(one_error("BEGIN { else { } }"), "`else` without a matching `if`");
    // bpftrace's `if x { }` is accepted; without parentheses the body must be a block.
    assert_eq!(
        one_error("BEGIN { if x exit(); }"),
        "expected `{` after the `if` condition, found `exit`"
    );
    assert_eq!(
        one_error("BEGIN { if x = 1 { } }"),
        "expected `{` after the `if` condition, found `=`"
    );
    assert_eq!(
        one_error("BEGIN { if (x = 1) { } }"),
        "expected `)` after the `if` condition, found `=`"
    );
    assert_eq!(
        one_error("BEGIN { if (a { @x = 1; } }"),
        "expected `)` after the `if` condition, found `{`"
    );
    assert_eq!(
        one_error("BEGIN { delete pid; }"),
        "`delete` needs a map element, like `delete @m[key]`"
    );
    assert_eq!(
        one_error("BEGIN { delete(@m[1], 2); }"),
        "expected a map name before `,` in `delete(@map, key)`"
    );
    assert_eq!(one_error("BEGIN { delete(@m[1]; }"), "expected `)` to close `delete(`, found `;`");
    assert_eq!(one_error("BEGIN { foo = 1; }"), "cannot assign to `foo`");
    assert_eq!(one_error("BEGIN { 1 = 2; }"), "cannot assign to this expression");
    assert_eq!(one_error("BEGIN { f() += 2; }"), "cannot assign to this expression");
    assert_eq!(one_error("BEGIN { comm++; }"), "cannot assign to `comm`");
    assert_eq!(
        one_error("BEGIN { ++comm; }"),
        "`++` needs a map or variable after it, like `++$i`"
    );
    assert_eq!(
        one_error("BEGIN { @x = --$1; }"),
        "`--` needs a map or variable after it, like `--$i`"
    );
}

#[test]
fn expression_errors() {
    assert_eq!(one_error("BEGIN { @y = ; }"), "expected an expression, found `;`");
    assert_eq!(
        one_error("BEGIN { @x = a ? b; }"),
        "expected `:` in conditional expression `cond ? a : b`, found `;`"
    );
    assert_eq!(one_error("BEGIN { @x = a.; }"), "expected a field name after `.`, found `;`");
    assert_eq!(one_error("BEGIN { @x = a->1; }"), "expected a field name after `->`, found `1`");
    assert_eq!(
        one_error("BEGIN { @x = f(a b); }"),
        "expected `,` or `)` after function argument, found `b`"
    );
    assert_eq!(one_error("BEGIN { @x = f(a,); }"), "expected an expression, found `)`");
    assert_eq!(one_error("BEGIN { @x[1 2] = 1; }"), "expected `,` or `]` after map key, found `2`");
    assert_eq!(one_error("BEGIN { @x[] = 1; }"), "expected an expression, found `]`");
    assert_eq!(one_error("BEGIN { @x = (a)[1; }"), "expected `]` after index, found `;`");
    assert_eq!(one_error("BEGIN { @x = (1 + 2; }"), "expected `)`, found `;`");
    assert_eq!(one_error("BEGIN { @x = (struct)x; }"), "expected a name after `struct`, found `)`");
    assert_eq!(one_error("BEGIN { @x = (int x)y; }"), "expected `)` to end the cast, found `x`");
    assert_eq!(one_error("BEGIN { @x = (const)y; }"), "expected a type name, found `)`");
    assert_eq!(one_error("BEGIN { @x = +1; }"), "expected an expression, found `+`");
    assert_eq!(
        one_error(&format!("BEGIN {{ @x = (char {})p; }}", "*".repeat(300))),
        "too many `*` in a type"
    );
}

#[test]
fn lexical_errors() {
    assert_eq!(
        errors("BEGIN { @x = \"abc; }"),
        vec![
            "unterminated string: missing closing `\"`",
            "expected `}` to close the block, found end of input"
        ]
    );
    assert_eq!(
        errors("BEGIN { /* x }"),
        vec![
            "unterminated block comment: `/*` without `*/`",
            "expected `}` to close the block, found end of input"
        ]
    );
    assert_eq!(one_error("BEGIN { @x = 1 #; }"), "unknown character `#`");
    assert_eq!(
        one_error("BEGIN { @x = 99999999999999999999; }"),
        "number too large: integers are at most 64 bits"
    );
    assert_eq!(one_error("BEGIN { @x = 1.5; }"), "floating-point numbers are not supported");
    assert_eq!(one_error("BEGIN { @x = 08; }"), "invalid digit `8` in octal number");
    assert_eq!(one_error("BEGIN { @x = 10sec; }"), "invalid suffix `sec` on number");
    assert_eq!(one_error("BEGIN { @x = \"\\q\"; }"), "unknown escape `\\q`");
    assert_eq!(
        one_error("BEGIN { @x = 'ab'; }"),
        "character literal may only contain one character; use `\"` for strings"
    );
    assert_eq!(one_error("BEGIN { @x = ''; }"), "empty character literal");
    assert_eq!(one_error("BEGIN { $1 = 2; }"), "cannot assign to the positional parameter `$1`");
    assert_eq!(
        one_error("BEGIN { $1x = 2; }"),
        "`$1x` is not a variable name or a positional parameter"
    );
    assert_eq!(one_error("BEGIN { @x = 1 é; }"), "unknown character `é`");
}

#[test]
fn unknown_characters_do_not_derail_parsing() {
    // `#` is skipped after being reported; the statement around it still parses.
    assert_eq!(
        errors("BEGIN { @x = # 1; @y = ; }"),
        vec!["unknown character `#`", "expected an expression, found `;`"]
    );
}

#[test]
fn error_spans_are_exact() {
    assert_eq!(spans("BEGIN { @x = 1 @y = 2; }"), vec![Span::new(15, 17)]);
    assert_eq!(spans("BEGIN { @x = \"ab\\qc\"; }"), vec![Span::new(16, 18)]);
    assert_eq!(spans("BEGIN { @x = 12abc; }"), vec![Span::new(15, 18)]);
    assert_eq!(spans("BEGIN { @x = 99999999999999999999u; }"), vec![Span::new(13, 33)]);
    // End of input is reported just after the last token, not after trailing space.
    assert_eq!(spans("BEGIN { @x = 1;  \n\n "), vec![Span::new(15, 15)]);
    assert_eq!(spans("BEGIN { foo = 1; }"), vec![Span::new(8, 11)]);
    assert_eq!(spans("BEGIN { else }"), vec![Span::new(8, 12)]);
}

#[test]
fn recovery_reports_every_statement_error_once() {
    let e = errors(
        "BEGIN { @a = ; @b = 1; @c = ); @d = 4 }\nEND { @e = (1; @f = 2 }\nkprobe:x /( { @g = ; }",
    );
    assert_eq!(
        e,
        vec![
            "expected an expression, found `;`",
            "expected an expression, found `)`",
            "expected `)`, found `;`",
            "expected an expression, found `{`",
            "expected an expression, found `;`",
        ]
    );
    // Nested braces inside a broken statement are skipped whole.
    assert_eq!(
        errors("BEGIN { if (a b) { @x = ; } @y = ; }"),
        vec![
            "expected `)` after the `if` condition, found `b`",
            "expected an expression, found `;`"
        ]
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let too_deep = "program is nested too deeply (more than 128 levels)";
    let n = 100_000;
    let cases = [
        format!("BEGIN {{ @x = {}1{}; }}", "(".repeat(n), ")".repeat(n)),
        format!("BEGIN {{ {} }}", "{".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "- ".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "!".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "(u8)".repeat(n)),
        format!("BEGIN {{ @x = 1{}; }}", " + 1".repeat(n)),
        format!("BEGIN {{ @x = a{}; }}", ".b".repeat(n)),
        format!("BEGIN {{ @x = a{}; }}", "[0]".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "a ? b : ".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "f(".repeat(n)),
        format!("BEGIN {{ @x = {}1; }}", "@m[".repeat(n)),
        format!("BEGIN {{ {} @x = 1; }}", "if (1) ".repeat(n)),
        format!("BEGIN {{ if (0) {{ }} {} }}", "else if (1) { } ".repeat(n)),
        format!("kprobe:a /{}1/ {{ }}", "(".repeat(n)),
        // Every precedence level between each pair of parentheses: the most stack per level.
        format!(
            "BEGIN {{ @x = {}1; }}",
            "1 || 1 && 1 | 1 ^ 1 & 1 == 1 < 1 << 1 + 1 * -(u8)(".repeat(n)
        ),
    ];
    for text in &cases {
        let e = errors(text);
        assert_eq!(e.first().map(String::as_str), Some(too_deep), "{}...", &text[..40]);
        assert_eq!(e.len(), 1, "{}...: {:?}", &text[..40], &e[..e.len().min(3)]);
    }
    // Just under the limit is fine.
    common::parse_ok(&format!("BEGIN {{ @x = {}1{}; }}", "(".repeat(120), ")".repeat(120)));
    common::parse_ok(&format!("BEGIN {{ @x = 1{}; }}", " + 1".repeat(120)));
    common::parse_ok(&format!("BEGIN {{ {} }}", "{".repeat(120) + &"}".repeat(120)));
    common::parse_ok(&format!("BEGIN {{ if (0) {{ }} {} }}", "else if (1) { } ".repeat(120)));
}

#[test]
fn errors_stop_at_the_limit() {
    let text = format!("BEGIN {{ {} }}", "@x = ; ".repeat(100));
    let e = errors(&text);
    assert_eq!(e.len(), sonde_syntax::parser::MAX_ERRORS + 1);
    assert_eq!(e[e.len() - 2], "expected an expression, found `;`");
    assert_eq!(e[e.len() - 1], "too many errors (20); stopping here");
    // Lexer errors count too.
    assert_eq!(errors(&"#".repeat(1000)).len(), sonde_syntax::parser::MAX_ERRORS + 1);
}

#[test]
fn bpftrace_preprocessor_and_config_errors() {
    assert_eq!(one_error("#if X > 1\n#endif\nBEGIN { }"), "`#if` is not supported");
    assert_eq!(
        one_error("#define F(a) a\nBEGIN { @x = F(1, 2); }"),
        "macro `F` takes 1 argument(s), 2 given"
    );
    assert_eq!(
        one_error("#define BAD 1 +\nBEGIN { @x = BAD; }"),
        "macro `BAD` does not expand to one expression: `1 +`"
    );
    assert_eq!(
        one_error("config = { missing_probes } BEGIN { }"),
        "expected `=` after the setting name, found `}`"
    );
}
