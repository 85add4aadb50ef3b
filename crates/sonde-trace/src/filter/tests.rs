use super::{parse_program, rebase, Filter, PLACEHOLDER};
use sonde_syntax::ast::ExprKind;

const INJECTION: &str =
    r#"1) / { } BEGIN { printf("INJECTED\n"); } tracepoint:syscalls:sys_enter_read / (1"#;

#[test]
fn a_filter_is_one_expression_and_nothing_after_it() {
    for text in [INJECTION, "args->fd == 1)", "1 / 2 /", "comm == \"a\"; exit()", "1 }"] {
        let diags = Filter::parse(text).expect_err(text);
        assert!(!diags.is_empty(), "{text}");
        assert!((diags[0].span.lo as usize) <= text.len(), "{text}: {:?}", diags[0]);
    }
    let d = &Filter::parse("args->fd == 1)").unwrap_err()[0];
    assert_eq!((d.span.lo, d.span.hi), (13, 14), "the caret is on the stray `)`: {d:?}");
}

#[test]
fn the_arguments_read_are_found_in_the_tree() {
    let f = Filter::parse("args->flags & 0x40 && (args.mode > 1 || str(args->filename) == \"x\")")
        .unwrap();
    assert_eq!(f.args(), ["flags", "mode", "filename"]);
    // A string is not an argument name, whatever it says.
    assert!(Filter::parse("comm == \"args->fd\"").unwrap().args().is_empty());
}

#[test]
fn the_tree_replaces_the_placeholder_and_its_spans_point_past_the_program() {
    let text = format!("BEGIN /pid == 1 && ({PLACEHOLDER})/ {{ exit(); }}\n");
    let f = Filter::parse("uid == 0").unwrap();
    let program = parse_program(&text, Some(&f)).unwrap();
    let Some(pred) = &program.probes[0].predicate else { panic!() };
    let ExprKind::Binary { rhs, .. } = &pred.kind else { panic!("{pred:?}") };
    assert!(matches!(rhs.kind, ExprKind::Binary { .. }), "{rhs:?}");
    assert_eq!(rhs.span.lo as usize, text.len() + 1);
    let d = sonde_syntax::diag::Diagnostic::error(rhs.span, "x");
    let d = rebase(d, &text).expect("a span in the filter");
    assert_eq!((d.span.lo, d.span.hi), (0, 8));
    let program_diag = sonde_syntax::diag::Diagnostic::error(pred.span, "y");
    assert!(rebase(program_diag, &text).is_none());
}

#[test]
fn an_error_about_the_filter_around_it_points_at_the_filter() {
    let text = format!("BEGIN /pid == 1 && ({PLACEHOLDER})/ {{ exit(); }}\n");
    let filter_at = text.len() as u32 + 1;
    let program = sonde_syntax::ast::Span { lo: 7, hi: 30 };
    let filter = sonde_syntax::ast::Span { lo: filter_at, hi: filter_at + 4 };
    let d = sonde_syntax::diag::Diagnostic::error(program, "`&&` does not apply to strings")
        .with_label(program, "`s64`")
        .with_label(filter, "`char[16]`");
    let d = rebase(d, &text).expect("its label is in the filter");
    assert_eq!((d.span.lo, d.span.hi), (0, 4));
    assert_eq!(d.labels.len(), 1);
}
