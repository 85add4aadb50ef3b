//! End-to-end: the README's examples and the ply manual's tracepoint/interval examples compile and
//! pass the kernel's verifier as written (`-e`), and a few run for real.

mod common;

use common::{sonde, sonde_bin, wl};
use std::process::Command;

/// Every `sonde ...` command in the README's code blocks, with continuation lines (indented lines
/// after a `sonde` line) joined.
fn readme_commands() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let mut cmds: Vec<String> = Vec::new();
    let mut in_block = false;
    let mut current: Option<String> = None;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            cmds.extend(current.take());
            continue;
        }
        if !in_block {
            continue;
        }
        // A command has a quoted program (the usage synopsis `sonde [OPTIONS] ...` has none).
        // The faces' examples (`sonde probe|trace|graph ...`) are their own tests' business.
        let face =
            ["sonde probe", "sonde trace", "sonde graph"].iter().any(|f| line.starts_with(f));
        if line.starts_with("sonde ") && line.contains('\'') && !face {
            cmds.extend(current.take());
            current = Some(line.to_string());
        } else if line.starts_with(' ') && current.is_some() {
            let c = current.as_mut().unwrap();
            c.push('\n');
            c.push_str(line);
        } else {
            cmds.extend(current.take());
        }
    }
    cmds
}

/// Examples that need kprobes, trampolines or the traceable-function list, which this host lacks:
/// tests/vm/cases/readme_examples.sh loads them on the VM kernels.
fn needs_vm(cmd: &str) -> bool {
    ["'kprobe:", "'kretprobe:", "'fentry:", "'fexit:"].iter().any(|p| cmd.contains(p))
}

#[test]
fn readme_examples_load_into_the_verifier() {
    require_tracepoints!();
    let cmds = readme_commands();
    assert!(cmds.len() >= 6, "found only {} examples in README.md: {:?}", cmds.len(), cmds);
    for cmd in cmds.into_iter().filter(|c| !needs_vm(c)) {
        // The shell does the README's quoting; `-e` compiles and loads without attaching.
        let line = format!("{} -e {}", sonde_bin(), cmd.trim_start_matches("sonde "));
        let out = Command::new("/bin/sh").arg("-c").arg(&line).output().unwrap();
        assert!(
            out.status.success(),
            "README example failed: {}\n--- stderr:\n{}",
            cmd,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn readme_kernel_examples_are_in_the_vm_lane() {
    let case = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vm/cases/readme_examples.sh"
    ))
    .expect("tests/vm/cases/readme_examples.sh");
    assert!(
        readme_commands().iter().any(|c| needs_vm(c)),
        "README has no kernel-function examples"
    );
    for cmd in readme_commands().iter().filter(|c| needs_vm(c)) {
        let program = cmd.trim_start_matches("sonde ");
        assert!(
            case.contains(program),
            "README example missing from tests/vm/cases/readme_examples.sh: {}",
            cmd
        );
    }
}

/// The ply manual's examples that need only tracepoints and intervals (its kprobe examples run in
/// the VM lane), spelled as the manual spells them.
const PLY_MANUAL: &[&str] = &[
    "tracepoint:sched/sched_wakeup { @[data->comm] = count(); }",
    "tracepoint:irq/irq_handler_entry { @[data->irq] = count(); }",
    // The record changed since the manual: today it has `state` and `saddr` (a sockaddr).
    "tracepoint:tcp/tcp_send_reset { @[data->state, data->saddr[0]] = count(); }",
    "interval:1 { printf(\"tick\\n\"); }",
    "interval:500ms { @ = count(); }",
];

#[test]
fn ply_manual_examples_load_into_the_verifier() {
    require_tracepoints!();
    for prog in PLY_MANUAL {
        let o = sonde(&["-e", prog]);
        assert!(o.status.success(), "ply manual example failed: {}\n{}", prog, o.describe());
    }
}

#[test]
fn ply_manual_interval_runs() {
    require_tracepoints!();
    // interval:500ms fires twice in ~1.1 s; the -c command bounds the run.
    let o = sonde(&["-c", &wl(&["sleep", "1100"]), "interval:500ms { @ = count(); }"]);
    o.assert_ok();
    assert_eq!(o.int("@"), 2, "{}", o.describe());
}
