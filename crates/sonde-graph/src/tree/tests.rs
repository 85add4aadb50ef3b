use super::*;
use crate::line::parse;

fn build(text: &str) -> (Builder, Vec<Call>) {
    let mut b = Builder::new();
    let calls = text.lines().filter_map(|l| b.push(&parse(l))).collect();
    (b, calls)
}

#[test]
fn interleaved_tasks_build_separate_trees() {
    let (b, calls) = build(
        " 0)  a-1  |               |  vfs_read() {
 1)  b-2  |               |  vfs_read() {
 0)  a-1  |   1.000 us    |    rw_verify_area();
 1)  b-2  |   3.000 us    |  } /* vfs_read */
 0)  a-1  |   5.000 us    |  } /* vfs_read */",
    );
    assert_eq!(calls.len(), 2);
    assert_eq!((calls[0].task.pid, calls[0].root.total_ns), (2, Some(3000)));
    assert_eq!(calls[1].root.children[0].name, "rw_verify_area");
    assert_eq!(calls[1].root.own_ns(), 4000);
    assert_eq!(b.in_flight(), 0);
}

#[test]
fn a_call_that_sleeps_goes_on_on_another_cpu() {
    let (_, calls) = build(
        " 0)  a-1  |               |  do_nanosleep() {
 0)  a-1  |               |    schedule() {
 ------------------------------------------
 0)  a-1   =>  b-2
 ------------------------------------------
 1)  a-1  | ! 200.000 us  |    } /* schedule */
 1)  a-1  | ! 210.000 us  |  } /* do_nanosleep */",
    );
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].cpus, vec![0, 1]);
    assert_eq!(calls[0].switches, 1);
}

#[test]
fn interrupts_nest_under_the_interrupted_call() {
    let (_, calls) = build(
        " 0)  a-1  |               |  vfs_read() {
 0)  a-1  |   ==========> |
 0)  a-1  |   2.000 us    |    irq_handler();
 0)  a-1  |   <========== |
 0)  a-1  |   1.000 us    |    rw_verify_area();
 0)  a-1  |   5.000 us    |  }",
    );
    let kids = &calls[0].root.children;
    assert!(kids[0].irq && !kids[1].irq);
}

#[test]
fn a_named_closer_skips_calls_whose_return_was_lost() {
    let (_, calls) = build(
        " 0)  a-1  |               |  vfs_read() {
 0)  a-1  |               |    inner() {
 0)  a-1  |   5.000 us    |  } /* vfs_read */",
    );
    assert_eq!(calls[0].root.children[0].total_ns, None);
    assert_eq!(calls[0].root.total_ns, Some(5000));
}

#[test]
fn lost_events_abandon_the_cpu_s_open_call() {
    let (b, calls) = build(
        " 0)  a-1  |               |  vfs_read() {
CPU:0 [LOST 12 EVENTS]
 0)  a-1  |   5.000 us    |  }
 0)  a-1  |   1.000 us    |  vfs_read();",
    );
    assert_eq!(calls.len(), 1);
    assert_eq!((b.lost_events, b.broken_calls), (12, 1));
}

#[test]
fn only_the_traced_function_starts_a_call() {
    let text = " 1)  sonde-w-529 |   3.166 us    |  __rcu_read_unlock();
 1)  sonde-w-529 |               |  fput() {
 1)  sonde-w-529 |   1.000 us    |    __fput();
 1)  sonde-w-529 |   2.000 us    |  } /* fput */
 0)  sonde-w-531 |               |  vfs_read() {
 0)  sonde-w-531 |   1.000 us    |    rw_verify_area();
 0)  sonde-w-531 |   5.000 us    |  } /* vfs_read */
 0)  sonde-w-531 |   4.000 us    |  vfs_read();";
    let mut b = Builder::for_function("vfs_read");
    let calls: Vec<Call> = text.lines().filter_map(|l| b.push(&parse(l))).collect();
    let roots: Vec<&str> = calls.iter().map(|c| c.root.name.as_str()).collect();
    assert_eq!(roots, ["vfs_read", "vfs_read"]);
    assert_eq!(calls[0].root.children.len(), 1);
    assert_eq!(b.in_flight(), 0);
    // Without the function named, each top-level line is a call of its own.
    assert_eq!(build(text).1.len(), 4);
}

#[test]
fn return_values_reach_the_tree_where_the_tracer_prints_them() {
    let lines = [
        " 1)  cat-7   |               |  do_filp_open() {",
        " 1)  cat-7   |   0.500 us    |    path_init(); /* = 0xffffffff8a2b1c40 */",
        " 1)  cat-7   | + 12.50 us    |  } /* do_filp_open = -2 */",
    ];
    let mut b = Builder::for_function("do_filp_open");
    let call = lines.iter().find_map(|l| b.push(&crate::line::parse(l))).expect("a call");
    assert_eq!(call.root.retval.as_deref(), Some("-2"));
    assert_eq!(call.root.children[0].retval.as_deref(), Some("0xffffffff8a2b1c40"));
    let text = crate::render::tree(&call, 1);
    assert!(text.contains(" do_filp_open = -ENOENT\n"), "{text}");
    assert!(text.contains(" path_init = 0xffffffff8a2b1c40\n"), "{text}");
    let rec = crate::record::call(1, &call).to_string();
    assert!(rec.contains("\"retval\": \"-2\""), "{rec}");
}
