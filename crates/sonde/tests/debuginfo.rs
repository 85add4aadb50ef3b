//! A stripped binary whose DWARF is in a separate file named with `--debuginfo DIR`: arguments
//! by name at a function, and a source line (`uprobe:BIN@FILE:LINE`) from the line tables,
//! with the values sonde-symbols' `tprog.c` computes.

mod common;

use common::{sonde, temp_path};
use std::process::Command;

const SOURCE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../sonde-symbols/tests/fixtures/tprog.c");

fn run(dir: &std::path::Path, program: &str, args: &[&str]) -> bool {
    let status = Command::new(program).args(args).current_dir(dir).status();
    status.map(|s| s.success()).unwrap_or(false)
}

#[test]
fn a_stripped_binary_is_probed_by_function_and_by_line_with_its_separate_debug_info() {
    if let Some(reason) = common::skip_reason_uprobes() {
        println!("skipped: {reason}");
        return;
    }
    let dir = temp_path("debuginfo");
    std::fs::create_dir_all(dir.join("ext")).unwrap();
    assert!(run(&dir, "cc", &["-g", "-O0", "-o", "tprog", SOURCE]));
    if !run(&dir, "objcopy", &["--only-keep-debug", "tprog", "ext/tprog.debug"]) {
        println!("skipped: no objcopy");
        return;
    }
    assert!(run(&dir, "objcopy", &["--strip-debug", "tprog"]));
    let bin = dir.join("tprog").display().to_string();
    let ext = dir.join("ext").display().to_string();

    // Without the directory there is nothing to read the names from.
    let by_name =
        format!("uprobe:{bin}:work {{ printf(\"%d %s\\n\", args.p->x, args.p->next->name); }}");
    let o = sonde(&["-e", &by_name]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains("--debuginfo DIR"), "{}", o.describe());

    let o = sonde(&["--debuginfo", &ext, &by_name, "-c", &format!("{bin} 2")]);
    o.assert_ok();
    let lines: Vec<_> = o.stdout.lines().filter(|l| l.starts_with("42 ")).collect();
    assert_eq!(lines, ["42 second"; 2], "{}", o.describe());
    let o = sonde(&["-lv", &format!("uprobe:{bin}:work"), &format!("--debuginfo={ext}")]);
    assert_eq!(o.stdout, format!("uprobe:{bin}:work\n    struct pt* p\n"), "{}", o.describe());

    // Line 17 is work's opening brace (its first byte: di still holds p); line 29 calls it once
    // a loop turn.
    let lines = format!(
        "uprobe:{bin}@tprog.c:17 {{ printf(\"%s %s %d\\n\", probe, func, ((struct pt *)reg(\"di\"))->x); }} uprobe:{bin}@tprog.c:29 {{ @[probe] = count(); }}"
    );
    let o = sonde(&["--debuginfo", &ext, &lines, "-c", &format!("{bin} 3")]);
    o.assert_ok();
    let hits: Vec<_> = o.stdout.lines().filter(|l| l.starts_with("uprobe:")).collect();
    let expected = format!("uprobe:{bin}@tprog.c:17 work 42");
    assert_eq!(hits, [expected.as_str(); 3], "{}", o.describe());
    assert!(o.stdout.contains(&format!("@[uprobe:{bin}@tprog.c:29]: 3\n")), "{}", o.describe());

    // A line without code, said with the nearest lines that have some, at the probe.
    let o = sonde(&["--debuginfo", &ext, "-e", &format!("uprobe:{bin}@tprog.c:18 {{ exit(); }}")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    let said = "error: line 18 of tprog.c has no code: the nearest lines with code are 17 and 19\n --> stdin:1:1";
    assert!(o.stderr.starts_with(said), "{}", o.describe());
    assert!(o.stderr.contains("\n  | ^^^"), "{}", o.describe());
    let _ = std::fs::remove_dir_all(&dir);
}
