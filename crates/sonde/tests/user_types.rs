//! Casts in the language's uprobes name the probed program's own types (its DWARF), never the
//! kernel's: a C program with a `struct pt` of its own, built with `cc -g`, read member by
//! member, through a pointer, and with `offsetof`; its arguments by name (`args.p`); without
//! `-g`, one sentence.

mod common;

use common::{build_tprog, sonde, temp_path};

#[test]
fn uprobe_casts_in_the_language_read_the_programs_own_struct() {
    if let Some(reason) = common::skip_reason_uprobes() {
        println!("skipped: {reason}");
        return;
    }
    let bin = build_tprog(&temp_path("tprog"), "-g");
    let program = format!(
        "uprobe:{bin}:work {{ $p = (struct pt *)arg0; printf(\"%d %d %s %d %s %d\\n\", $p->x, $p->y, $p->name, $p->mode, $p->next->name, offsetof(struct pt, next)); }}"
    );
    let o = sonde(&[&program, "-c", &format!("{bin} 2")]);
    o.assert_ok();
    let lines: Vec<_> = o.stdout.lines().filter(|l| l.starts_with("42 ")).collect();
    assert_eq!(lines, ["42 -5 first 17 second 40"; 2], "{}", o.describe());
    // A kernel type is not the program's.
    let o =
        sonde(&["-e", &format!("uprobe:{bin}:work {{ print(((struct file *)arg0)->f_pos); }}")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains(&format!("unknown type `struct file`: {bin} does not define it")));
    // Arguments by name, typed from the same debug info; -lv lists them as bpftrace does.
    let by_name =
        format!("uprobe:{bin}:work {{ printf(\"%d %s\\n\", args.p->x, args.p->next->name); }}");
    let o = sonde(&[&by_name, "-c", &format!("{bin} 2")]);
    o.assert_ok();
    let lines: Vec<_> = o.stdout.lines().filter(|l| l.starts_with("42 ")).collect();
    assert_eq!(lines, ["42 second"; 2], "{}", o.describe());
    let o = sonde(&["-e", &format!("uprobe:{bin}:work {{ print(args.q); }}")]);
    assert!(o.stderr.contains("`work` has no parameter `q`"), "{}", o.describe());
    let o = sonde(&["-lv", &format!("uprobe:{bin}:work")]);
    assert_eq!(o.stdout, format!("uprobe:{bin}:work\n    struct pt* p\n"), "{}", o.describe());
    let _ = std::fs::remove_file(&bin);

    let bin = build_tprog(&temp_path("tprog-nodebug"), "-g0");
    let o = sonde(&["-e", &format!("uprobe:{bin}:work {{ print(((struct pt *)arg0)->x); }}")]);
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert!(o.stderr.contains("has no type information"), "{}", o.describe());
    // C's own types need none.
    let o = sonde(&["-e", &format!("uprobe:{bin}:work {{ print(*(int *)arg0); }}")]);
    o.assert_ok();
    let _ = std::fs::remove_file(&bin);
}
