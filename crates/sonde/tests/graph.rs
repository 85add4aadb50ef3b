//! Flame graphs from the language (`-f folded`, `-o FILE.svg`) on the running kernel, and
//! `sonde graph`'s sentence on a kernel without the function tracer (the host has none; the
//! tracer itself is tested in tests/vm/cases/graph_*.sh).

mod common;

use common::{sonde, temp_path, wl};

const PROFILE: &str = "profile:hz:99 { @[kstack] = count(); @n = count(); }";

#[test]
fn folded_stacks_sum_to_the_map_total() {
    require_bpf!();
    let o = sonde(&["-f", "folded", "-c", &wl(&["sleep", "300"]), PROFILE]);
    o.assert_ok();
    let mut sum = 0u64;
    for l in o.stdout.lines() {
        let (stack, n) = l.rsplit_once(' ').unwrap_or_else(|| panic!("not folded: {l}"));
        assert!(!stack.is_empty() && !stack.contains(' '), "{l}");
        sum += n.parse::<u64>().unwrap_or_else(|_| panic!("no count: {l}"));
    }
    // The map without a stack is printed as text on stderr.
    let total: u64 = o
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("@n: "))
        .unwrap_or_else(|| panic!("no @n on stderr: {}", o.describe()))
        .parse()
        .unwrap();
    assert!(total > 0);
    assert_eq!(sum, total, "{}", o.describe());
}

#[test]
fn a_stack_map_becomes_an_svg_flame_graph() {
    require_bpf!();
    let path = temp_path("flame.svg");
    let p = path.to_str().unwrap();
    let o = sonde(&["-o", p, "-c", &wl(&["sleep", "300"]), PROFILE]);
    o.assert_ok();
    let svg =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{p}: {e}: {}", o.describe()));
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<?xml") && svg.contains("<svg"), "{}", &svg[..svg.len().min(200)]);
    assert!(svg.contains("samples"));
    // Titled with the map and the program.
    assert!(svg.contains(&format!("@: {PROFILE}")), "no title in {p}");
}

#[test]
fn graph_without_a_function_tracer_says_so() {
    let traced =
        std::fs::read_to_string("/sys/kernel/tracing/available_tracers").unwrap_or_default();
    if traced.contains("function_graph") {
        println!("skipped: this kernel has function_graph (tested in tests/vm)");
        return;
    }
    require_bpf!();
    let o = sonde(&["graph", "vfs_read"]);
    o.assert_code(1);
    assert!(o.stderr.contains("this kernel has no function_graph tracer"), "{}", o.describe());
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.describe());
}
