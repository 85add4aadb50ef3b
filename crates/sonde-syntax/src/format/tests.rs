use super::print_expr::best_breaks;
use super::{format, format_with_warnings};

fn fmt(s: &str) -> String {
    format(s).unwrap_or_else(|e| panic!("{}: {}", s, e.message))
}

fn probe(body: &str) -> String {
    format!("BEGIN\n{{\n{}}}\n", body)
}

#[test]
fn a_probe_in_standard_form() {
    assert_eq!(fmt("BEGIN{printf(\"hi\\n\");exit()}"), probe("  printf(\"hi\\n\");\n  exit();\n"));
    assert_eq!(fmt("BEGIN {}"), "BEGIN\n{}\n");
}

#[test]
fn operands_that_are_not_primitive_get_parentheses() {
    assert_eq!(fmt("BEGIN { $a = 1 + 2 * 3 - 4; }"), probe("  $a = (1 + (2 * 3)) - 4;\n"));
    assert_eq!(fmt("BEGIN { if ($a) { } }"), probe("  if $a {}\n"));
    assert_eq!(
        fmt("BEGIN { $x = $a == 1 && $b < 2 && f(1); }"),
        probe("  $x = $a == 1 && $b < 2 && f(1);\n")
    );
    assert_eq!(
        fmt("BEGIN { $x = -1; @y = $x > 0 ? $x : -$x; }"),
        probe("  $x = -1;\n  @y = ($x > 0) ? $x : (-$x);\n")
    );
}

#[test]
fn bpftrace_spellings_are_printed() {
    assert_eq!(fmt("BEGIN { $m = curtask->mm; }"), probe("  $m = curtask.mm;\n"));
    assert_eq!(
        fmt("BEGIN { $c = $c + 1; @n[1] = @n[1] << 2; }"),
        probe("  $c += 1;\n  @n[1] <<= 2;\n")
    );
    assert_eq!(fmt("BEGIN { $p = (struct sock *) arg0; }"), probe("  $p = (struct sock*)arg0;\n"));
    assert_eq!(fmt("BEGIN { @[1,2]++; }"), probe("  @[1, 2]++;\n"));
}

#[test]
fn literals_keep_their_spelling_and_strings_are_re_escaped() {
    assert_eq!(fmt("BEGIN { $a = 0x10 + 1_000 + 1e6; }"), probe("  $a = (0x10 + 1_000) + 1e6;\n"));
    assert_eq!(
        fmt("BEGIN { printf(\"a\\tb\\x01\\\"\"); }"),
        probe("  printf(\"a\\tb\\x01\\\"\");\n")
    );
}

#[test]
fn ply_forms_become_blocks_or_stay_as_written() {
    assert_eq!(fmt("k:vfs_read rx[comm] = count();"), "k:vfs_read\n{\n  rx[comm] = count();\n}\n");
    assert_eq!(fmt("BEGIN { delete rx[1]; }"), probe("  delete rx[1];\n"));
    assert_eq!(
        fmt("BEGIN { if (pid) @a = 1; else @b = 2; }"),
        probe("  if pid {\n    @a = 1;\n  } else {\n    @b = 2;\n  }\n")
    );
}

#[test]
fn comments_and_blank_lines_are_kept() {
    let text =
        "// top\n\nBEGIN\n{\n\n  $a = 1; // after a\n\n\n  /* b */\n  $b = 2;\n}\n\n\n// end\n";
    let want =
        "// top\n\nBEGIN\n{\n\n  $a = 1;\n  // after a\n\n\n  // b\n  $b = 2;\n}\n\n\n// end\n";
    assert_eq!(fmt(text), want);
    assert_eq!(fmt(want), want);
}

#[test]
fn a_list_too_wide_breaks_at_the_first_arrangement_that_fits() {
    // The first fitting arrangement puts the break as early as it can (printf's format alone).
    assert_eq!(best_breaks(&[10, 10, 10], 25), vec![false, true, false]);
    assert_eq!(best_breaks(&[10, 20, 10], 25), vec![false, true, true]);
    assert_eq!(best_breaks(&[30, 10], 25), vec![false, false]);
    let long = format!("BEGIN {{ f(\"{}\", \"{}\"); }}", "a".repeat(50), "b".repeat(50));
    let a = format!("\"{}\"", "a".repeat(50));
    let b = format!("\"{}\"", "b".repeat(50));
    assert_eq!(fmt(&long), probe(&format!("  f({},\n    {});\n", a, b)));
}

#[test]
fn syntax_errors_are_located() {
    let e = format("BEGIN { printf(\"x\" }").unwrap_err();
    assert_eq!((e.span.lo, e.span.hi), (19, 20));
    assert!(e.message.starts_with("expected"), "{}", e.message);
    let e = format("BEGIN { $a = \"open }").unwrap_err();
    assert!(e.message.contains("string"), "{}", e.message);
    assert!(format("BEGIN { /* open").is_err());
}

/// Every prefix of a program (cut anywhere, even inside a character) formats or is refused
/// without a panic, and what formats is stable.
#[test]
fn any_prefix_is_formatted_or_refused_without_panic() {
    let text = include_str!("../../tests/fixtures/fmt/messy/expressions.bt").to_string()
        + "uprobe:/bin/é\\:x:f { @x = \"é\"; }\n";
    for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
        if let Ok(out) = format(&text[..end]) {
            assert_eq!(format(&out).ok().as_ref(), Some(&out), "unstable at {}", end);
        }
    }
}

#[test]
fn a_comment_inside_an_expression_is_left_out_with_a_warning() {
    let text = "BEGIN {\n  printf(\"%d\", // the count\n    1);\n}\n";
    let (out, warnings) = format_with_warnings(text).unwrap();
    assert_eq!(out, probe("  printf(\"%d\", 1);\n"));
    assert_eq!(warnings.len(), 1);
    assert_eq!(&text[warnings[0].span.lo as usize..warnings[0].span.hi as usize], "the count");
    let (_, none) = format_with_warnings(&out).unwrap();
    assert!(none.is_empty());
}

#[test]
fn sonde_forms_print_so_sonde_reads_them_back() {
    // A condition without parentheses may be any expression in sonde.
    assert_eq!(
        fmt("BEGIN { if pid > 1 { exit(); } }"),
        probe("  if (pid > 1) {\n    exit();\n  }\n")
    );
    // `?:` as a statement keeps its `;` (bpftrace's printer drops it; sonde's parser needs it).
    assert_eq!(fmt("BEGIN { pid ? f(1) : f(2); }"), probe("  pid ? f(1) : f(2);\n"));
}
