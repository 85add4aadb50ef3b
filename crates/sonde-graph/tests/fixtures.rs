//! Recorded function_graph output from Debian's 6.1 and 6.12 kernels (tests/vm/cases/graph_*.sh
//! settings: funcgraph-proc, funcgraph-tail) parsed into trees: durations add up on every call,
//! lost entries are counted, and the tree text and folded stacks match their goldens
//! (`BLESS=1 cargo test -p sonde-graph` rewrites them).

use sonde_graph::folded::Folded;
use sonde_graph::{line, render, Builder, Call, Node};
use std::path::PathBuf;

fn fixture(kernel: &str, name: &str) -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kernel).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn calls(text: &str) -> (Builder, Vec<Call>) {
    let mut b = Builder::new();
    let calls = text.lines().filter_map(|l| b.push(&line::parse(l))).collect();
    (b, calls)
}

/// Children's time never exceeds their parent's.
fn check_sums(n: &Node, path: &str) {
    let kids: u64 = n.children.iter().filter_map(|c| c.total_ns).sum();
    if let Some(t) = n.total_ns {
        assert!(kids <= t, "{path}/{}: children {kids} ns > total {t} ns", n.name);
    }
    for c in &n.children {
        check_sums(c, &format!("{path}/{}", n.name));
    }
}

fn golden(name: &str, got: &str) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("BLESS").is_some() {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, got).unwrap();
    }
    let want = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert!(got == want, "{name} differs from its golden (BLESS=1 to rewrite)\n{got}");
}

const KERNELS: [&str; 2] = ["6.1", "6.12"];

#[test]
fn every_recording_parses_into_trees_whose_times_add_up() {
    for k in KERNELS {
        for f in ["pid_read3.txt", "system_tail.txt", "overrun_notail.txt", "sleep.txt"] {
            let text = fixture(k, f);
            let (b, calls) = calls(&text);
            assert!(!calls.is_empty(), "{k}/{f}: no complete call");
            for c in &calls {
                check_sums(&c.root, "");
                assert!(c.root.total_ns.is_some());
            }
            let lost: u64 = text
                .lines()
                .filter_map(|l| match line::parse(l) {
                    line::Line::Lost { events, .. } => Some(events),
                    _ => None,
                })
                .sum();
            assert_eq!(b.lost_events, lost, "{k}/{f}");
        }
    }
}

#[test]
fn one_process_three_reads_golden() {
    for k in KERNELS {
        let (_, calls) = calls(&fixture(k, "pid_read3.txt"));
        let mut tree = String::new();
        let mut folded = Folded::new();
        for (i, c) in calls.iter().enumerate() {
            assert_eq!(c.root.name, "vfs_read");
            tree.push_str(&render::tree(c, i as u64 + 1));
            folded.add(&c.root);
        }
        let total: u64 = calls.iter().filter_map(|c| c.root.total_ns).sum();
        assert_eq!(folded.total(), total, "{k}: folded lines sum to the calls' time");
        golden(&format!("{k}_pid_read3.tree"), &tree);
        golden(&format!("{k}_pid_read3.folded"), &folded.text());
    }
}

#[test]
fn a_sleeping_call_keeps_its_tree_across_context_switches() {
    for k in KERNELS {
        let (_, calls) = calls(&fixture(k, "sleep.txt"));
        let sleeps: Vec<&Call> = calls.iter().filter(|c| c.root.name == "do_nanosleep").collect();
        assert!(sleeps.len() >= 3, "{k}: {} do_nanosleep calls", sleeps.len());
        // `sonde-workload sleep 50`: each call lasts at least 50 ms, all but a little of it in
        // schedule().
        for c in sleeps.iter().filter(|c| c.task.comm == "sonde-w") {
            let t = c.root.total_ns.unwrap();
            assert!(t >= 50_000_000, "{k}: {t}");
            let sched = c.root.children.iter().find(|n| n.name == "schedule").expect("schedule");
            assert!(sched.total_ns.unwrap() * 10 >= t * 9, "{k}: schedule is most of the sleep");
        }
    }
}

#[test]
fn lost_entries_are_counted_and_break_only_their_cpu_s_calls() {
    let (b, _) = calls(&fixture("6.1", "overrun_notail.txt"));
    assert_eq!(b.lost_events, 63814);
    let (b, calls) = calls(&fixture("6.12", "system_tail.txt"));
    assert!(b.lost_events > 0 && b.broken_calls > 0);
    assert!(calls.iter().any(|c| c.task.comm == "dd"));
}
