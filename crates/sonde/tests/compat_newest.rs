//! bpftrace 0.24–0.26's spellings run with exact output: `is_err()`, `str_concat()`,
//! `container_of()` (with the type as written or as `typeof(...)`), `find()`, and records
//! (tuples with named fields).

mod common;

use common::sonde;

fn prints(program: &str, want: &str) {
    let o = sonde(&[program]);
    o.assert_ok();
    assert_eq!(o.stdout, want, "{}", o.describe());
}

#[test]
fn is_err_holds_for_the_last_4095_addresses() {
    require_bpf!();
    prints(
        "BEGIN { printf(\"%d %d %d %d\\n\", is_err(-4095), is_err(-4096), is_err(0), is_err((int64)-1)); print(is_err(-22)); exit(); }",
        "1 0 0 1\ntrue\n\n\n",
    );
}

#[test]
fn str_concat_joins_strings_of_every_origin() {
    require_bpf!();
    prints(
        "BEGIN { $a = \"ab\"; $s = str_concat($a, \"cd\"); printf(\"%s|%s|%s|%s\\n\", $s, str_concat(\"\", \"x\"), str_concat(\"x\", \"\"), str_concat(str_concat(\"a\", \"b\"), $a)); @[str_concat(\"k\", $a)] = 1; exit(); }",
        "abcd|x|x|abab\n\n\n@[kab]: 1\n\n",
    );
}

#[test]
fn container_of_finds_the_struct_of_a_member() {
    require_bpf!();
    prints(
        "BEGIN { $p = (struct list_head *)((uint64)curtask + offsetof(struct task_struct, tasks)); $t = container_of($p, struct task_struct, tasks); $u = container_of($p, typeof(struct task_struct), tasks); printf(\"%d %d %d\\n\", $t == curtask, $u == curtask, $u->pid == pid); exit(); }",
        "1 1 1\n\n\n",
    );
    prints(
        "struct Pair { int a; long b; } BEGIN { $p = (struct Pair *)0x1000; printf(\"%d\\n\", container_of((long *)0x1008, struct Pair, b) == $p); exit(); }",
        "1\n\n\n",
    );
}

#[test]
fn find_copies_the_value_only_when_the_key_is_there() {
    require_bpf!();
    prints(
        "BEGIN { @m[2] = 7; let $v; if (find(@m, 2, $v)) { print($v); } if (!find(@m, 3, $v)) { printf(\"no 3, still %d\\n\", $v); } @s[\"a\"] = \"hello\"; let $t; printf(\"%d %s\\n\", find(@s, \"a\", $t), $t); @k[1, \"x\"] = 5; $w = 0; find(@k, (1, \"x\"), $w); print($w); exit(); }",
        "7\nno 3, still 7\n1 hello\n5\n\n\n@k[1, x]: 5\n\n@m[2]: 7\n\n@s[a]: hello\n\n",
    );
}

#[test]
fn find_refuses_aggregations_and_non_variables() {
    require_bpf!();
    let o = sonde(&["BEGIN { @c[1] = count(); find(@c, 1, $v); exit(); }"]);
    assert!(o.stderr.contains("find() reads maps of assigned values"), "{}", o.describe());
    let o = sonde(&["BEGIN { @c[1] = 1; $x = find(@c, 1, 5); exit(); }"]);
    assert!(o.stderr.contains("find() takes a map, its key and a variable"), "{}", o.describe());
}

#[test]
fn records_read_print_and_key_by_field_name() {
    require_bpf!();
    prints(
        "BEGIN { $v = 99; $t = (a=0, b=1, c=\"str\", d=(5, 6), e=$v); printf(\"%d %d %s %d %d %d\\n\", $t.a, $t.b, $t.c, $t.d.0, $t.d.1, $t.e); exit(); }",
        "0 1 str 5 6 99\n\n\n",
    );
    prints(
        "BEGIN { $v = (x=1, y=2); $t = (a=0, b=1, c=\"str\", d=(5, 6), e=$v); print($t); exit(); }",
        "{ .a = 0, .b = 1, .c = str, .d = (5, 6), .e = { .x = 1, .y = 2 } }\n\n\n",
    );
    prints(
        "BEGIN { $a = (color=\"green\", size=2); @r[$a] = (m=1, n=\"x\"); exit(); }",
        "\n\n@r[{ .color = green, .size = 2 }]: { .m = 1, .n = x }\n\n",
    );
}

#[test]
fn a_record_takes_the_field_order_of_the_place_it_goes_to() {
    require_bpf!();
    prints(
        "BEGIN { $a = (foo={ printf(\"hello\"); 1 }, bar={ printf(\"world\"); 2 }); $a = (bar={ printf(\"hello\"); 1 }, foo={ printf(\"world\\n\"); 2 }); print($a); $b = (y=\"bb\", foo=3); $c = (foo=4, y=\"a\"); $c = $b; print($c); @m = (p=1, q=2); @m = (q=3, p=4); exit(); }",
        "helloworldhelloworld\n{ .foo = 2, .bar = 1 }\n{ .foo = 3, .y = bb }\n\n\n@m: { .p = 4, .q = 3 }\n\n",
    );
}

#[test]
fn records_are_json_objects() {
    require_bpf!();
    let o = sonde(&[
        "-f",
        "json",
        "BEGIN { $v = (x=1, y=2); @a = (a=0, b=1, c=\"str\", d=(5, 6), e=$v); exit(); }",
    ]);
    o.assert_ok();
    let want = r#"{"type": "map", "data": {"@a": {"a": 0, "b": 1, "c": "str", "d": [5,6], "e": {"x": 1, "y": 2}}}}"#;
    assert!(o.lines().contains(&want), "{}", o.describe());
}

#[test]
fn record_mistakes_are_named() {
    require_bpf!();
    let o = sonde(&["BEGIN { $a = (a=1, a=2); exit(); }"]);
    assert!(o.stderr.contains("this record names the field `a` twice"), "{}", o.describe());
    let o = sonde(&["BEGIN { $a = (a=1, b=2); print($a.c); exit(); }"]);
    assert!(
        o.stderr.contains("this record has no field `c`: its fields are a, b"),
        "{}",
        o.describe()
    );
    let o = sonde(&["BEGIN { $a = (a=1, b=2); $a = (a=1, c=2); exit(); }"]);
    assert!(o.stderr.contains("cannot assign"), "{}", o.describe());
}

/// The forms bpftrace's tools write `args.field` and two-argument `delete()` in (biosnoop.bt's
/// tuple `$key`, runqlat.bt's `$ignore = delete(...)`, naptime.bt's `args.rqtp` kept in a map,
/// execsnoop.bt's `join(args.argv)`, opensnoop.bt's `str(args.filename)`).
#[test]
fn args_fields_and_delete_in_the_tools_forms() {
    require_tracepoints!();
    let prog = "tracepoint:syscalls:sys_enter_read /comm == \"wl_args\"/ { $key = (tid, args.fd); @start[$key] = args.count; @n[tid] = 1; } \
        tracepoint:syscalls:sys_exit_read /comm == \"wl_args\"/ { $key = (tid, 3); @sz[comm] = hist(@start[$key]); delete(@start, $key); $gone = delete(@n, tid); @gone = sum($gone); } \
        tracepoint:syscalls:sys_enter_openat /comm == \"wl_args\"/ { @f[str(args.filename)] = count(); } \
        tracepoint:syscalls:sys_enter_nanosleep /comm == \"wl_args\"/ { @rqtp[tid] = args.rqtp; @ns = ((struct __kernel_timespec *)args.rqtp)->tv_nsec; } \
        tracepoint:syscalls:sys_enter_execve /pid == cpid/ { join(args.argv); } \
        END { print(len(@start)); print(len(@rqtp)); delete(@rqtp, cpid); }";
    let o = common::traced_ok(&["comm", "wl_args", "read", "3", "100", "sleep", "1"], prog);
    let lines = o.lines();
    assert!(
        lines[0].ends_with("sonde-workload comm wl_args read 3 100 sleep 1"),
        "{}",
        o.describe()
    );
    for want in ["0", "1", "@f[/dev/zero]: 1", "@gone: 3", "@ns: 1000000"] {
        assert!(lines.contains(&want), "no line {want:?}\n{}", o.describe());
    }
    assert_eq!(common::counts(&o.hist("@sz[wl_args]")), [("[64, 128)".to_string(), 3)]);
    assert!(!o.stdout.contains("@rqtp["), "{}", o.describe());
}

#[test]
fn delete_of_a_map_without_keys_removes_its_value() {
    require_bpf!();
    prints(
        "BEGIN { @ = 1; @k = 2; if (delete(@)) { printf(\"ok\\n\"); } if (!delete(@)) { printf(\"gone\\n\"); } exit(); }",
        "ok\ngone\n\n\n@k: 2\n\n",
    );
}

#[test]
fn str_concat_of_long_strings_is_refused_with_a_sentence() {
    require_bpf!();
    let long = "config = { max_strlen = 200 } BEGIN { $s = str_concat(str(0, 200), str(0, 200)); exit(); }";
    let o = sonde(&[long]);
    assert!(
        o.stderr.contains("str_concat() of strings of 200 and 200 bytes is too large"),
        "{}",
        o.describe()
    );
    let o = sonde(&["BEGIN { $s = str_concat(comm, 5); exit(); }"]);
    assert!(o.stderr.contains("str_concat() joins strings, found"), "{}", o.describe());
}

#[test]
fn container_of_names_a_missing_member_once() {
    require_bpf!();
    let o =
        sonde(&["BEGIN { $t = container_of((uint64 *)0, struct task_struct, no_such); exit(); }"]);
    assert_eq!(o.stderr.matches("has no member `no_such`").count(), 1, "{}", o.describe());
}
