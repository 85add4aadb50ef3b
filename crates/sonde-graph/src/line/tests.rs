use super::*;

fn task(comm: &str, pid: u32) -> Option<Task> {
    Some(Task { comm: comm.into(), pid })
}

#[test]
fn entries_leaves_and_exits() {
    assert_eq!(
        parse(" 1)  sonde-w-93    |               |  vfs_read() {"),
        Line::Entry { cpu: 1, task: task("sonde-w", 93), depth: 0, name: "vfs_read".into() }
    );
    assert_eq!(
        parse(" 1)  sonde-w-93    |   0.871 us    |    rw_verify_area();"),
        Line::Leaf {
            cpu: 1,
            task: task("sonde-w", 93),
            depth: 1,
            ns: 871,
            name: "rw_verify_area".into(),
            retval: None,
        }
    );
    assert_eq!(
        parse(" 0)  sonde-w-93    | + 18.03 us    |  } /* vfs_read */"),
        Line::Exit {
            cpu: 0,
            task: task("sonde-w", 93),
            ns: 18_030,
            name: Some("vfs_read".into()),
            retval: None,
        }
    );
    assert_eq!(
        parse(" 12)   <idle>-0    | ! 250.1 us    |  }"),
        Line::Exit { cpu: 12, task: task("<idle>", 0), ns: 250_100, name: None, retval: None }
    );
}

#[test]
fn module_functions_and_return_values() {
    assert_eq!(
        parse(" 0)  cat-7  |   1.000 us    |  ext4_file_read_iter [ext4](); /* = 0x0 */"),
        Line::Leaf {
            cpu: 0,
            depth: 0,
            task: task("cat", 7),
            ns: 1000,
            name: "ext4_file_read_iter [ext4]".into(),
            retval: Some("0x0".into()),
        }
    );
    assert_eq!(
        parse(" 1)  cat-7  | + 12.50 us    |  } /* do_filp_open = -2 */"),
        Line::Exit {
            cpu: 1,
            task: task("cat", 7),
            ns: 12_500,
            name: Some("do_filp_open".into()),
            retval: Some("-2".into()),
        }
    );
}

#[test]
fn markers() {
    assert_eq!(parse(" 1)  dd-5   |   ==========> |"), Line::IrqEnter { cpu: 1 });
    assert_eq!(parse(" 1)  dd-5   |   <========== |"), Line::IrqExit { cpu: 1 });
    assert_eq!(
        parse(" 0)  sonde-w-93    =>    dd-95   "),
        Line::Switch { cpu: 0, from: task("sonde-w", 93), to: task("dd", 95) }
    );
    assert_eq!(parse("CPU:1 [LOST 316 EVENTS]"), Line::Lost { cpu: 1, events: 316 });
    assert_eq!(parse(" ------------------------------------------"), Line::Other);
    assert_eq!(parse("# tracer: function_graph"), Line::Other);
}

#[test]
fn durations() {
    assert_eq!(duration_ns("  0.871 us  "), Some(871));
    assert_eq!(duration_ns("$ 1234567 us"), Some(1_234_567_000));
    assert_eq!(duration_ns("# 1234.5 us"), Some(1_234_500));
    assert_eq!(duration_ns("           "), None);
}

#[test]
fn exec_events_name_the_new_program() {
    assert_eq!(
        parse(" 1)    sh-93      |               |  /* sched_process_exec: filename=/usr/bin/sonde-workload pid=93 old_pid=93 */"),
        Line::Exec { cpu: 1, pid: 93, filename: "/usr/bin/sonde-workload".into() }
    );
    // Another event's comment is not an exec.
    assert_eq!(
        parse(" 1)    sh-93      |               |  /* sched_switch: prev_comm=sh prev_pid=93 */"),
        Line::Other
    );
}
