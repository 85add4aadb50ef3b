use super::*;

fn sources(text: &str) -> BTreeMap<String, MapSource> {
    let ast = sonde_syntax::parse(text).expect("parses");
    map_sources(&ast, text).expect("no directive mistakes")
}

fn labels(text: &str, map: &str) -> Vec<Option<String>> {
    sources(text)[map].labels.clone()
}

fn some(names: &[&str]) -> Vec<Option<String>> {
    names.iter().map(|n| Some(n.to_string())).collect()
}

#[test]
fn labels_are_named_from_the_key_expressions() {
    let t = "tracepoint:syscalls:sys_enter_openat { @opens[comm, args->flags] = count(); }";
    assert_eq!(labels(t, "@opens"), some(&["comm", "flags"]));
    let t = "k:f { @m[$fd, str(args->filename), ksym(arg0), (uint32)pid, kstack] = count(); }";
    assert_eq!(labels(t, "@m"), some(&["fd", "filename", "ksym", "pid", "kstack"]));
    let t = "k:f { @m[syscall_name(args->id), ntop(args->addr)] = count(); }";
    assert_eq!(labels(t, "@m"), some(&["syscall_name", "addr"]));
}

#[test]
fn unnamed_positions_have_no_name() {
    let t = "k:f { @m[pid + 1, 7, comm] = sum(arg0); }";
    assert_eq!(labels(t, "@m"), vec![None, None, Some("comm".into())]);
}

#[test]
fn a_tuple_key_names_each_element() {
    let t = "k:f { @m[(comm, pid)] = count(); }";
    assert_eq!(labels(t, "@m"), some(&["comm", "pid"]));
}

#[test]
fn the_first_assignment_in_source_order_names_the_labels() {
    let t = "k:f { if (pid > 1) { @m[tid]++; } } k:g { @m[$x] = count(); }";
    assert_eq!(labels(t, "@m"), some(&["tid"]));
}

#[test]
fn keyless_maps_have_no_labels() {
    assert_eq!(labels("k:f { @n = count(); }", "@n"), Vec::<Option<String>>::new());
}

#[test]
fn help_is_the_comment_above_the_first_assignment() {
    let t = "k:f {\n    // Opens by command.\n    // One series per comm.\n    @opens[comm] = count();\n    @other = count();\n}\n";
    let s = sources(t);
    assert_eq!(s["@opens"].help, ["Opens by command.", "One series per comm."]);
    assert!(s["@other"].help.is_empty());
}

#[test]
fn a_blank_line_ends_the_comment() {
    let t = "// not mine\n\nk:f {\n  @a = count();\n  // mine\n  @b = count();\n}\n";
    let s = sources(t);
    assert_eq!(s["@b"].help, ["mine"]);
    // @a is its probe's first statement, and the probe has no comment right above it.
    assert!(s["@a"].help.is_empty());
}

#[test]
fn a_comment_above_the_probe_belongs_to_its_first_statement() {
    let t = "// Reads per command.\nt:syscalls:sys_enter_read {\n  @reads[comm] = count();\n}\n";
    assert_eq!(sources(t)["@reads"].help, ["Reads per command."]);
}

#[test]
fn directives_are_read_and_left_out_of_help() {
    let t = "k:f {\n  // Opens.\n  // metric: name=opens labels=cmd,_\n  @o[comm, args->flags] = count();\n}\n";
    let s = &sources(t)["@o"];
    assert_eq!(s.help, ["Opens."]);
    assert_eq!(s.directive.name.as_deref(), Some("opens"));
    assert_eq!(s.directive.labels, Some(vec![Some("cmd".into()), None]));
}

#[test]
fn a_declaration_carries_its_comment() {
    let t = "// Start times.\n// metric: skip\nlet @start = lruhash(100);\nk:f { @start[tid] = nsecs; }\n";
    let s = &sources(t)["@start"];
    assert!(s.directive.skip);
    assert_eq!(s.help, ["Start times."]);
}

#[test]
fn a_bad_directive_names_its_line() {
    let t = "k:f {\n  // metric: labels=__x\n  @o[comm] = count();\n}\n";
    let ast = sonde_syntax::parse(t).unwrap();
    let e = map_sources(&ast, t).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("`__x` cannot be a label name"), "{}", e.message);
}

#[test]
fn every_assignment_gives_its_key_bounds() {
    use crate::bound::Bound;
    let t = "k:f { @m[cpu] = count(); if (pid > 1) { @m[pid] = count(); } }\nk:g { @n++; }";
    let s = sources(t);
    assert_eq!(s["@m"].key_bounds, [vec![Bound::Cpus], vec![Bound::Unbounded]]);
    assert_eq!(s["@n"].key_bounds, [Vec::<Bound>::new()]);
}
