use super::*;

fn s(v: &str) -> Value {
    Value::str(v)
}
fn u(v: u64) -> Value {
    Value::uint(v)
}

#[test]
fn plain_map_sorted_by_value() {
    let entries = vec![
        (vec![s("sshd")], u(125)),
        (vec![s("bash")], u(3)),
        (vec![s("systemd")], u(24)),
        (vec![s("a")], u(24)),
    ];
    assert_eq!(map_text("@", &entries), "@[bash]: 3\n@[a]: 24\n@[systemd]: 24\n@[sshd]: 125\n\n");
}

#[test]
fn keys_and_names() {
    assert_eq!(map_text("@x", &[(vec![], Value::int(-7))]), "@x: -7\n\n");
    assert_eq!(map_text("x", &[(vec![], u(1))]), "@x: 1\n\n");
    let entries = vec![(vec![u(1), s("cat")], u(2)), (vec![u(1), s("bash")], u(2))];
    assert_eq!(map_text("@m", &entries), "@m[1, bash]: 2\n@m[1, cat]: 2\n\n");
    assert_eq!(map_text("@empty", &[]), "\n");
    // String values sort bytewise; tuple values print in parentheses.
    let entries = vec![(vec![u(2)], s("zsh")), (vec![u(1)], s("bash"))];
    assert_eq!(map_text("@c", &entries), "@c[1]: bash\n@c[2]: zsh\n\n");
    let t = Value::Tuple(vec![s("a"), u(1)]);
    assert_eq!(map_text("@t", &[(vec![], t)]), "@t: (a, 1)\n\n");
    assert_eq!(key_text("@", &[Value::Sym { addr: 16, name: None }]), "@[0x10]");
}

#[test]
fn signed_values_sort_numerically() {
    let entries =
        vec![(vec![u(1)], Value::int(5)), (vec![u(2)], Value::int(-5)), (vec![u(3)], u(0))];
    assert_eq!(map_text("@", &entries), "@[2]: -5\n@[3]: 0\n@[1]: 5\n\n");
}

#[test]
fn quantize_map() {
    let entries = vec![(vec![], vec![(1, 1), (3, 13)])];
    let expected = "\
@bytes:
[0]                    1 |@@@@                                                |
[1]                    0 |                                                    |
[2, 4)                13 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

";
    assert_eq!(hist_map_text("@bytes", &entries, HistKind::Quantize), expected);
}

#[test]
fn keyed_hists_sorted_by_total() {
    let entries = vec![(vec![s("big")], vec![(2, 4), (3, 4)]), (vec![s("small")], vec![(5, 1)])];
    let expected = "\
@h[small]:
[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

@h[big]:
[1]                    4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[2, 4)                 4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|

";
    assert_eq!(hist_map_text("@h", &entries, HistKind::Quantize), expected);
    assert_eq!(hist_map_text("@h", &[], HistKind::Quantize), "\n");
    // A key whose histogram is all zeros prints just its header.
    assert_eq!(hist_map_text("@h", &[(vec![u(1)], vec![])], HistKind::Quantize), "@h[1]:\n\n");
}

#[test]
fn linear_map() {
    let kind = HistKind::Linear { min: 0, max: 100, step: 10 };
    let expected = "\
@l:
[10, 20)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[20, 30)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[30, 40)               0 |                                                    |
[40, 50)               0 |                                                    |
[50, 60)               0 |                                                    |
[60, 70)               0 |                                                    |
[70, 80)               0 |                                                    |
[80, 90)               0 |                                                    |
[90, 100)              0 |                                                    |
[100, ...)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |

";
    assert_eq!(hist_map_text("@l", &[(vec![], vec![(2, 2), (3, 1), (11, 1)])], kind), expected);
}

#[test]
fn stats_sorted_by_average() {
    let entries = vec![
        (vec![s("b")], 3, u(2), u(6)),
        (vec![s("a")], 2, u(10), u(20)),
        (vec![s("z")], 0, u(0), u(0)),
    ];
    assert_eq!(
        stats_text("@s", &entries),
        "@s[z]: { .count = 0, .average = 0, .total = 0 }\n@s[b]: { .count = 3, .average = 2, .total = 6 }\n@s[a]: { .count = 2, .average = 10, .total = 20 }\n\n"
    );
    let neg = vec![(vec![], 2, Value::int(-3), Value::int(-7))];
    assert_eq!(stats_text("@n", &neg), "@n: { .count = 2, .average = -3, .total = -7 }\n\n");
    assert_eq!(stats_text("@n", &[]), "\n");
}
