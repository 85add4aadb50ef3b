//! Programs that parse, and the trees they parse to.

mod common;

use common::{errors, expr, parse_ok, predicate, stmts, sx};
use sonde_syntax::ast::*;

const ONE_LINERS: &[&str] = &[
    r#"tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }"#,
    r#"kprobe:SyS_* / !strcmp(execname, "dd") / { @[caller] = count(); }"#,
    r#"kprobe:__netif_receive_skb_core { rx[arg0] = time; } kprobe:ip_rcv / rx[arg0] / { @["diff"] = quantize(time - rx[arg0]); }"#,
    r#"tracepoint:syscalls:sys_exit_read /args->ret > 0/ { @bytes = hist(args->ret); }"#,
    r#"BEGIN { printf("hello %s %-5d|\n", "x", 42); exit(); }"#,
    r#"t:syscalls:sys_enter_execve { printf("%s %s\n", comm, str(args->filename)); }"#,
    r#"kretprobe:do_sys_openat2 { @[retval] = count(); }"#,
    r#"kprobe:wake_up_new_task { printf("%d\n", ((struct task_struct *)arg0)->pid); }"#,
    r#"interval:s:1 { print(@); clear(@); }"#,
    r#"tracepoint:sched:sched_switch { @[args->prev_comm] = count(); } END { print(@); }"#,
    r#"uprobe:/bin/bash:readline { @x[pid, comm] = sum(1); $y = 3; $y += 2; @z++; if ($y > 2) { @a = 1 } else if (pid == 1) @b = 2; else { delete @x[pid, comm]; } }"#,
];

#[test]
fn real_one_liners_parse() {
    for text in ONE_LINERS {
        parse_ok(text);
    }
}

#[test]
fn the_ply_manual_examples_parse() {
    let p = parse_ok(
        "kprobe:__netif_receive_skb_core\n{\n\trx[arg0] = time;\n}\n\nkprobe:ip_rcv / rx[arg0] /\n{\n\t@[\"diff\"] = quantize(time - rx[arg0]);\n}\n",
    );
    assert_eq!(p.probes.len(), 2);
    assert_eq!(sx(p.probes[1].predicate.as_ref().unwrap()), "rx[arg0]");
    let StmtKind::Assign { target, value } = &p.probes[1].body.stmts[0].kind else { panic!() };
    assert_eq!(sx(target), "@[\"diff\"]");
    assert_eq!(sx(value), "quantize((time - rx[arg0]))");
}

#[test]
fn a_probe_body_may_be_one_statement() {
    let p = parse_ok(
        "kretprobe:vfs_read if (retval > 0) { @[comm] = sum(retval); }\n\
         tracepoint:syscalls:sys_enter_getpid @[comm] = count();\n\
         kprobe:a, kprobe:b if (pid == 1) @x = 1; else @y = 2;\n\
         BEGIN { exit(); }\n\
         END printf(\"bye\\n\")",
    );
    let bodies: Vec<Vec<&StmtKind>> =
        p.probes.iter().map(|pb| pb.body.stmts.iter().map(|s| &s.kind).collect()).collect();
    assert_eq!(bodies.iter().map(Vec::len).collect::<Vec<_>>(), vec![1, 1, 1, 1, 1]);
    let StmtKind::If { cond, then, els: None } = bodies[0][0] else { panic!("{:?}", bodies[0]) };
    assert_eq!((sx(cond), then.stmts.len()), ("(retval > 0)".into(), 1));
    let StmtKind::Assign { target, value } = bodies[1][0] else { panic!() };
    assert_eq!((sx(target), sx(value)), ("@[comm]".into(), "count()".into()));
    assert_eq!(p.probes[2].specs.len(), 2);
    assert!(matches!(bodies[2][0], StmtKind::If { els: Some(_), .. }));
    assert!(matches!(bodies[4][0], StmtKind::Expr(_)));
    // The body's span covers the statement and its `;`.
    let text = "t:a:b @ = count();  ";
    let p = parse_ok(text);
    assert_eq!(p.probes[0].span.hi as usize, text.trim_end().len());
}

#[test]
fn one_liner_trees() {
    let p = parse_ok(ONE_LINERS[7]);
    let StmtKind::Expr(e) = &p.probes[0].body.stmts[0].kind else { panic!() };
    assert_eq!(sx(e), "printf(\"%d\\n\", ((struct task_struct *)arg0)->pid)");

    let p = parse_ok(ONE_LINERS[10]);
    let body: Vec<&StmtKind> = p.probes[0].body.stmts.iter().map(|s| &s.kind).collect();
    assert_eq!(body.len(), 5);
    assert!(matches!(body[2], StmtKind::AssignOp { op: BinOp::Add, .. }));
    let StmtKind::AssignOp { target, op: BinOp::Add, value } = body[3] else { panic!() };
    assert_eq!((sx(target), sx(value)), ("@z".into(), "1".into()));
    let StmtKind::If { cond, then, els: Some(els) } = body[4] else { panic!("{:?}", body[4]) };
    assert_eq!(sx(cond), "($y > 2)");
    assert_eq!(then.stmts.len(), 1);
    let StmtKind::If { cond, then, els: Some(els) } = &els.stmts[0].kind else { panic!() };
    assert_eq!(sx(cond), "(pid == 1)");
    assert!(matches!(then.stmts[0].kind, StmtKind::Assign { .. }));
    let StmtKind::Delete(m) = &els.stmts[0].kind else { panic!() };
    assert_eq!(sx(m), "@x[pid, comm]");
}

// ---------------------------------------------------------------- probes

fn specs(text: &str) -> Vec<(String, String)> {
    let p = parse_ok(text);
    p.probes
        .iter()
        .flat_map(|p| &p.specs)
        .map(|s| (s.provider.clone(), s.definition.clone()))
        .collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.into(), b.into())
}

#[test]
fn probe_specs() {
    let cases = [
        ("tracepoint:syscalls:sys_enter_*", "tracepoint", "syscalls:sys_enter_*"),
        ("tracepoint:sched/sched_wakeup", "tracepoint", "sched/sched_wakeup"),
        ("kprobe:dev_hard_start_xmit+8", "kprobe", "dev_hard_start_xmit+8"),
        ("uprobe:/bin/bash:readline", "uprobe", "/bin/bash:readline"),
        ("interval:500ms", "interval", "500ms"),
        ("profile:hz:99", "profile", "hz:99"),
        ("k:vfs_read", "k", "vfs_read"),
        ("BEGIN", "BEGIN", ""),
        ("END", "END", ""),
    ];
    for (spec, provider, definition) in cases {
        assert_eq!(specs(&format!("{} {{ }}", spec)), vec![pair(provider, definition)], "{}", spec);
        assert_eq!(specs(&format!("{}{{}}", spec)), vec![pair(provider, definition)], "{}", spec);
        assert_eq!(
            specs(&format!("{}\n{{\n}}\n", spec)),
            vec![pair(provider, definition)],
            "{}",
            spec
        );
    }
}

#[test]
fn several_specs_per_probe() {
    let want = vec![pair("kprobe", "a"), pair("kprobe", "b")];
    assert_eq!(specs("kprobe:a, kprobe:b { }"), want);
    assert_eq!(specs("kprobe:a,kprobe:b{}"), want);
    assert_eq!(specs("kprobe:a,\n kprobe:b\n{ }"), want);
    assert_eq!(specs("kprobe:a ,\n\tkprobe:b /* c */ { }"), want);
    let p = parse_ok("kprobe:a, kprobe:b / pid / { }");
    assert_eq!(p.probes[0].specs.len(), 2);
    assert_eq!(sx(p.probes[0].predicate.as_ref().unwrap()), "pid");
}

#[test]
fn probe_and_spec_spans() {
    let text = "BEGIN { }\nkprobe:a, k:b / x / { exit(); }";
    let p = parse_ok(text);
    assert_eq!(p.probes[0].span, Span::new(0, 9));
    assert_eq!(p.probes[0].body.span, Span::new(6, 9));
    let second = &p.probes[1];
    assert_eq!(second.span, Span::new(10, text.len()));
    assert_eq!(second.specs[0].span, Span::new(10, 18));
    assert_eq!(second.specs[1].span, Span::new(20, 23));
}

#[test]
fn shebang_and_comments() {
    let p = parse_ok("#!/usr/bin/env sonde\n// line comment\n/* block\n comment */ BEGIN /* here */ { // too\n exit(); /* and */ }\n");
    assert_eq!(p.probes.len(), 1);
    assert_eq!(p.probes[0].body.stmts.len(), 1);
    // Spans still count the shebang's bytes.
    assert_eq!(p.probes[0].specs[0].span.lo, 58);
}

// ---------------------------------------------------------------- predicates

#[test]
fn slash_ends_a_predicate_but_divides_inside_brackets() {
    assert_eq!(predicate(" (x / 2) > 1 "), "((x / 2) > 1)");
    assert_eq!(predicate("a[x / 2]"), "a[(x / 2)]");
    assert_eq!(predicate("f(x / 2, 3)"), "f((x / 2), 3)");
    assert_eq!(predicate("a ? b / 2 : c"), "(a ? (b / 2) : c)");
    assert_eq!(predicate("pid == 1 && comm == \"a/b\""), "((pid == 1) && (comm == \"a/b\"))");
    assert_eq!(predicate("x % 2"), "(x % 2)");
    let p = parse_ok("kprobe:SyS_* / !strcmp(execname, \"dd\") / { }");
    assert_eq!(sx(p.probes[0].predicate.as_ref().unwrap()), "(!strcmp(execname, \"dd\"))");
    // Division in the body is ordinary.
    assert_eq!(expr("a / b / c"), "((a / b) / c)");
}

// ---------------------------------------------------------------- expressions

#[test]
fn precedence_follows_c() {
    let cases = [
        ("a ? b : c || d", "(a ? b : (c || d))"),
        ("a || b && c", "(a || (b && c))"),
        ("a && b | c", "(a && (b | c))"),
        ("a | b ^ c", "(a | (b ^ c))"),
        ("a ^ b & c", "(a ^ (b & c))"),
        ("a & b == c", "(a & (b == c))"),
        ("a == b < c", "(a == (b < c))"),
        ("a != b >= c", "(a != (b >= c))"),
        ("a < b << c", "(a < (b << c))"),
        ("a <= b >> c", "(a <= (b >> c))"),
        ("a << b + c", "(a << (b + c))"),
        ("a - b * c", "(a - (b * c))"),
        ("a + b % c", "(a + (b % c))"),
        ("a * -b", "(a * (-b))"),
        ("-a[1]", "(-a[1])"),
        ("*p->f", "(*p->f)"),
        ("!a.b", "(!a.b)"),
        ("&a.b", "(&a.b)"),
        ("~-!x", "(~(-(!x)))"),
        ("- -x", "(-(-x))"),
        ("(a + b) * c", "((a + b) * c)"),
        ("a * b + c * d", "((a * b) + (c * d))"),
        ("a || b || c", "((a || b) || c)"),
        ("a - b - c", "((a - b) - c)"),
        ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
        ("a ? b ? c : d : e", "(a ? (b ? c : d) : e)"),
        ("a > b > c", "((a > b) > c)"),
        ("a & b && c & d", "((a & b) && (c & d))"),
    ];
    for (src, want) in cases {
        assert_eq!(expr(src), want, "{}", src);
    }
}

#[test]
fn postfix_chains() {
    assert_eq!(expr("args->filename"), "args->filename");
    assert_eq!(expr("a.b.c"), "a.b.c");
    assert_eq!(expr("a->b.c->d"), "a->b.c->d");
    assert_eq!(expr("(a)[1]"), "index(a, 1)");
    assert_eq!(expr("a->b[2]"), "index(a->b, 2)");
    assert_eq!(expr("rx[k][1]"), "index(rx[k], 1)");
    assert_eq!(expr("@m[k].f"), "@m[k].f");
    assert_eq!(expr("f(x)[0]"), "index(f(x), 0)");
    assert_eq!(expr("f(x)->y"), "f(x)->y");
}

#[test]
fn casts() {
    let cases = [
        ("(u64)x", "((u64)x)"),
        ("(u8)x + 1", "(((u8)x) + 1)"),
        ("(u32)-1", "((u32)(-1))"),
        ("(s32)*p", "((s32)(*p))"),
        ("(unsigned long long)x", "((unsigned long long)x)"),
        ("(unsigned long long int)x", "((unsigned long long int)x)"),
        ("(const char *)p", "((char *)p)"),
        ("(volatile const unsigned char * const *)p", "((unsigned char **)p)"),
        ("(struct task_struct *)arg0", "((struct task_struct *)arg0)"),
        ("(struct task_struct *)arg0->pid", "((struct task_struct *)arg0->pid)"),
        ("((struct task_struct *)arg0)->pid", "((struct task_struct *)arg0)->pid"),
        ("(union u)x", "((union u)x)"),
        ("(enum e)x", "((enum e)x)"),
        ("(pid_t)x", "((pid_t)x)"),
        ("(int8_t)x", "((int8_t)x)"),
        ("(uint64_t)x", "((uint64_t)x)"),
        ("(foo *)x", "((foo *)x)"),
        ("(foo **)x", "((foo **)x)"),
        ("(void *)x", "((void *)x)"),
        ("(bool)x", "((bool)x)"),
        ("(__u16)x", "((__u16)x)"),
        ("(u64)(u32)x", "((u64)((u32)x))"),
        // bpftrace's casts to arrays.
        ("(int8[8])12345", "((int8[8])12345)"),
        ("(int8[])x", "((int8[])x)"),
        // Not casts.
        ("(x)", "x"),
        ("(x * y)", "(x * y)"),
        ("(x) * y", "(x * y)"),
        ("(x)-1", "(x - 1)"),
    ];
    for (src, want) in cases {
        assert_eq!(expr(src), want, "{}", src);
    }
    let s = stmts("(struct task_struct **)p;");
    let StmtKind::Expr(Expr { kind: ExprKind::Cast { ty, .. }, .. }) = &s[0].kind else { panic!() };
    assert_eq!(
        ty,
        &TypeName {
            base: "struct task_struct".into(),
            pointers: 2,
            array: None,
            of: None,
            span: Span::new(9, 30)
        }
    );
}

#[test]
fn literals() {
    let ints = [
        ("42", 42),
        ("0x2a", 42),
        ("0X2A", 42),
        ("052", 42),
        ("0b101010", 42),
        ("42ul", 42),
        ("0", 0),
        ("'a'", 97),
        ("'\\n'", 10),
    ];
    for (src, want) in ints {
        assert_eq!(expr(src), want.to_string(), "{}", src);
    }
    assert_eq!(expr(r#""a\tb\x41\101\e""#), format!("{:?}", "a\tbAA\x1b"));
    assert_eq!(expr(r#""ab" "cd"  "ef""#), "\"abcdef\"");
    assert_eq!(expr("\"ab\"\n\"cd\""), "\"abcd\"");
    assert_eq!(expr("-1"), "(-1)");
    let s = stmts(r#""ab" "cd";"#);
    let StmtKind::Expr(e) = &s[0].kind else { panic!() };
    assert_eq!(e.span, Span::new(8, 17));
}

#[test]
fn names_maps_and_calls() {
    assert_eq!(expr("comm"), "comm");
    assert_eq!(expr("$x"), "$x");
    assert_eq!(expr("@"), "@");
    assert_eq!(expr("@x"), "@x");
    assert_eq!(expr("@[1]"), "@[1]");
    assert_eq!(expr("@x[1, comm]"), "@x[1, comm]");
    assert_eq!(expr("rx[arg0]"), "rx[arg0]");
    assert_eq!(expr("count()"), "count()");
    assert_eq!(expr("f(a, g(b), @m[1])"), "f(a, g(b), @m[1])");
    assert_eq!(expr("f (x)"), "f(x)");
    let s = stmts("@x[1, 2];");
    let StmtKind::Expr(e) = &s[0].kind else { panic!() };
    let ExprKind::Map { name, keys } = &e.kind else { panic!() };
    assert_eq!(name, "@x");
    assert_eq!(keys.len(), 2);
    assert_eq!(e.span, Span::new(8, 16));
    let s = stmts("$name;");
    assert!(
        matches!(&s[0].kind, StmtKind::Expr(Expr { kind: ExprKind::Var(n), .. }) if n == "name")
    );
}

// ---------------------------------------------------------------- statements

fn assign_ops(body: &str) -> Vec<(String, BinOp, String)> {
    stmts(body)
        .into_iter()
        .map(|s| match s.kind {
            StmtKind::AssignOp { target, op, value } => (sx(&target), op, sx(&value)),
            k => panic!("{:?}", k),
        })
        .collect()
}

#[test]
fn assignments() {
    let s = stmts("@x = 1; $y = @x + 1; @m[1, 2] = count(); rx[arg0] = time; @ = 3;");
    let got: Vec<(String, String)> = s
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Assign { target, value } => (sx(target), sx(value)),
            k => panic!("{:?}", k),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("@x".into(), "1".into()),
            ("$y".into(), "(@x + 1)".into()),
            ("@m[1, 2]".into(), "count()".into()),
            ("rx[arg0]".into(), "time".into()),
            ("@".into(), "3".into()),
        ]
    );
    use BinOp::*;
    let ops = assign_ops("$a += 1; $a -= 1; $a *= 1; $a /= 1; $a %= 1; $a &= 1; $a |= 1; $a ^= 1; $a <<= 1; $a >>= 1;");
    let want = [Add, Sub, Mul, Div, Mod, BitAnd, BitOr, BitXor, Shl, Shr];
    assert_eq!(ops.iter().map(|o| o.1).collect::<Vec<_>>(), want);
    assert_eq!(
        assign_ops("@c[comm]++; $i--;"),
        vec![("@c[comm]".into(), Add, "1".into()), ("$i".into(), Sub, "1".into())]
    );
    // The implicit 1 points at the operator.
    let s = stmts("@n++;");
    let StmtKind::AssignOp { value, .. } = &s[0].kind else { panic!() };
    assert_eq!(value.span, Span::new(10, 12));
    assert_eq!(s[0].span, Span::new(8, 12));
}

#[test]
fn if_else() {
    let s =
        stmts("if (a) @x = 1; if (b) { @y = 2; } else @z = 3; if (c) {} else if (d) {} else {}");
    assert_eq!(s.len(), 3);
    let StmtKind::If { then, els: None, .. } = &s[0].kind else { panic!() };
    assert_eq!(then.stmts.len(), 1);
    let StmtKind::If { els: Some(els), .. } = &s[1].kind else { panic!() };
    assert!(matches!(els.stmts[0].kind, StmtKind::Assign { .. }));
    let StmtKind::If { els: Some(els), .. } = &s[2].kind else { panic!() };
    let StmtKind::If { cond, els: Some(last), .. } = &els.stmts[0].kind else { panic!() };
    assert_eq!(sx(cond), "d");
    assert!(last.stmts.is_empty());
    // `else` binds to the nearest `if`.
    let s = stmts("if (a) if (b) @x = 1; else @y = 2;");
    assert_eq!(s.len(), 1);
    let StmtKind::If { then, els: None, .. } = &s[0].kind else { panic!() };
    assert!(matches!(then.stmts[0].kind, StmtKind::If { els: Some(_), .. }));
    // Empty branch, and a branch without `;` before the closing brace.
    assert_eq!(stmts("if (a) ; @x = 1;").len(), 2);
    assert_eq!(stmts("if (a) @x = 1").len(), 1);
    assert_eq!(stmts("if (a) { return; } @x = 1;").len(), 2);
}

#[test]
fn return_delete_and_blocks() {
    let s =
        stmts("return; delete @x[pid]; delete rx[arg0]; delete(@m[1, 2]); delete(@m, 3); { @a = 1; { } } ;; @b = 2");
    let kinds: Vec<String> = s
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Return => "return".into(),
            StmtKind::Delete(m) => format!("delete {}", sx(m)),
            StmtKind::Block(b) => format!("block {}", b.stmts.len()),
            StmtKind::Assign { target, .. } => format!("assign {}", sx(target)),
            k => panic!("{:?}", k),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            "return",
            "delete @x[pid]",
            "delete rx[arg0]",
            "delete @m[1, 2]",
            "delete @m[3]",
            "block 2",
            "assign @b"
        ]
    );
}

#[test]
fn semicolons_are_optional_after_blocks_and_before_closing_braces() {
    assert_eq!(stmts("if (a) { @x = 1 } @y = 2").len(), 2);
    assert_eq!(stmts("{ } { } @y = 2").len(), 3);
    assert_eq!(stmts("").len(), 0);
    assert_eq!(stmts(";;;").len(), 0);
    assert_eq!(stmts("exit()").len(), 1);
    parse_ok("BEGIN{exit()}END{print(@x)}");
}

#[test]
fn keywords_are_only_keywords_where_statements_start() {
    assert_eq!(expr("f(delete, return)"), "f(delete, return)");
    assert_eq!(expr("@x[if]"), "@x[if]");
}

#[test]
fn dump_shows_the_tree() {
    let p = parse_ok(
        "kprobe:a, kprobe:b /args->ret > 0/ { @x[comm] = count(); $v += (u8)-1; if ($v) { delete @x[comm]; } else return; printf(\"%d\\n\", a ? b : c[1]); }",
    );
    let want = "\
probe kprobe:a, kprobe:b
  predicate
    binary >
      member ->ret
        ident args
      int 0
  body
    assign
      map @x
        ident comm
      call count
    assign +=
      var $v
      cast (u8)
        unary -
          int 1
    if
      var $v
      then
        delete
          map @x
            ident comm
      else
        return
    call printf
      str \"%d\\n\"
      ternary
        ident a
        ident b
        map c
          int 1
";
    assert_eq!(sonde_syntax::dump(&p), want);
    let p = parse_ok("BEGIN { { \"\\x01\\\"\"; } (struct s **)p->f; x.y; z[1][2]; }");
    let want = "\
probe BEGIN
  body
    block
      str \"\\x01\\\"\"
    cast (struct s **)
      member ->f
        ident p
    member .y
      ident x
    index
      map z
        int 1
      int 2
";
    assert_eq!(sonde_syntax::dump(&p), want);
}

#[test]
fn tuples_and_their_elements_parse() {
    assert_eq!(expr("(args.dev, args.sector)"), "tuple(args.dev, args.sector)");
    assert_eq!(expr("(1, (2, \"x\"))"), "tuple(1, tuple(2, \"x\"))");
    assert_eq!(expr("$t.3.0 + @t.1"), "($t.3.0 + @t.1)");
    // A parenthesized expression is not a tuple.
    assert_eq!(expr("(1 + 2)"), "(1 + 2)");
    let s = stmts("@start[$key] = nsecs; $ignore = delete(@qtime, args.next_pid);");
    let StmtKind::Assign { value, .. } = &s[1].kind else { panic!() };
    assert_eq!(sx(value), "delete(@qtime, args.next_pid)");
}

#[test]
fn sizeof_and_offsetof_take_types() {
    assert_eq!(expr("sizeof(struct task_struct)"), "sizeof(type(struct task_struct))");
    assert_eq!(expr("sizeof($x)"), "sizeof($x)");
    assert_eq!(
        expr("offsetof(struct task_struct, thread_info.flags)"),
        "offsetof(type(struct task_struct), thread_info.flags)"
    );
}

#[test]
fn container_of_takes_a_type_second() {
    let want = "container_of($p, type(struct task_struct), tasks)";
    assert_eq!(expr("container_of($p, struct task_struct, tasks)"), want);
    assert_eq!(expr("container_of($p, typeof(struct task_struct), tasks)"), want);
    assert_eq!(
        expr("container_of(arg0, struct foo *, a.b)"),
        "container_of(arg0, type(struct foo *), a.b)"
    );
    let e = errors("BEGIN { $x = container_of($p struct foo, a); }");
    assert!(e[0].contains("`,` after the pointer"), "{e:?}");
    let e = errors("BEGIN { $x = container_of($p, typeof(struct foo, a); }");
    assert!(e[0].contains("`)` after the type"), "{e:?}");
}

#[test]
fn records_are_named_tuples() {
    assert_eq!(expr("(a = 1, b = \"x\")"), "record(a=1, b=\"x\")");
    assert_eq!(expr("(a=1)"), "record(a=1)");
    // `(a == 1)` stays a comparison, `(a, b)` a tuple.
    assert_eq!(expr("(a == 1)"), "(a == 1)");
    assert_eq!(expr("(a, b)"), "tuple(a, b)");
    let e = errors("BEGIN { $r = (a = 1, 2); }");
    assert!(e[0].contains("a field name in a record"), "{e:?}");
}

#[test]
fn if_used_as_a_value_is_a_conditional() {
    assert_eq!(expr("print(if ($x) { 1 } else { 2 })"), "print(($x ? 1 : 2))");
    assert_eq!(expr("print(if ($x) { $y; 1 } else { 2 })"), "print(($x ? block(1; 1) : 2))");
    assert_eq!(
        expr("print(if ($x) { 1 } else if ($y) { 2 } else { 3 })"),
        "print(($x ? 1 : ($y ? 2 : 3)))"
    );
    // An `if`-`else` that ends an arm is that arm's value (bpftrace's nested ternary test).
    assert_eq!(
        expr("print(if ($x) { if ($y) { $x } else { $y } } else { 0 })"),
        "print(($x ? ($y ? $x : $y) : 0))"
    );
}

#[test]
fn if_used_as_a_value_needs_both_values() {
    let e = errors("BEGIN { $a = if (1) { 2 }; }");
    assert_eq!(e, ["an `if` used as a value needs an `else` with a value too"]);
    let e = errors("BEGIN { $a = if (1) { 2 } else { $b = 1; }; }");
    assert_eq!(e, ["this `else` arm of an `if` used as a value ends without a value"]);
    let e = errors("BEGIN { $a = if (1) { if (0) { 3 } } else { 2 }; }");
    assert_eq!(e, ["this `if` arm of an `if` used as a value ends without a value"]);
}

#[test]
fn let_declares_array_types() {
    let s = stmts("let $x: struct Foo *[2]; let $w: int32[4] = $v; let $s: string;");
    let ty = |i: usize| match &s[i].kind {
        StmtKind::Let { ty: Some(t), .. } => (t.base.clone(), t.pointers, t.array),
        k => panic!("not a typed let: {:?}", k),
    };
    assert_eq!(ty(0), ("struct Foo".to_string(), 1, Some(2)));
    assert_eq!(ty(1), ("int32".to_string(), 0, Some(4)));
    assert_eq!(ty(2), ("string".to_string(), 0, None));
}

#[test]
fn typeof_names_a_type_or_an_expressions_type() {
    assert_eq!(expr("sizeof(typeof(uint64*))"), "sizeof(type(uint64 *))");
    assert_eq!(expr("(typeof(uint8))$x"), "((uint8)$x)");
    assert_eq!(expr("(typeof(uint8)*)$x"), "((uint8 *)$x)");
    let s = stmts("let $y: typeof($x + 1) *;");
    let StmtKind::Let { ty: Some(t), .. } = &s[0].kind else { panic!("{:?}", s[0].kind) };
    assert_eq!((t.base.as_str(), t.pointers), ("typeof", 1));
    assert_eq!(sx(t.of.as_deref().expect("an expression")), "($x + 1)");
}

#[test]
fn a_macros_type_parameter_stands_for_its_type() {
    assert_eq!(
        first_expr("macro sof(a, b) { sizeof(a[2]) + sizeof(b*) + sizeof(b) } BEGIN { print(sof(typeof(uint64*), typeof(struct Foo))); }"),
        "print(((sizeof(type(uint64 *[2])) + sizeof(type(struct Foo *))) + sizeof(type(struct Foo))))"
    );
    assert_eq!(
        first_expr("macro cst(a) { (a*)-1 } BEGIN { print(cst(typeof(uint8))); }"),
        "print(((uint8 *)(-1)))"
    );
}

#[test]
fn a_macros_parameter_wins_over_a_macro_of_its_name() {
    let text = "macro add() { 2 } macro ident(add) { add } BEGIN { print(ident(1)); }";
    assert_eq!(first_expr(text), "print(1)");
}

/// The first statement of the first probe of `text`, an expression, as an S-expression.
fn first_expr(text: &str) -> String {
    let p = parse_ok(text);
    let StmtKind::Expr(e) = &p.probes[0].body.stmts[0].kind else { panic!("{text}") };
    sx(e)
}
