//! End-to-end: `sonde --fmt FILE [-o OUT]`, bpftrace's formatter mode. It reads no kernel state:
//! these tests need no privileges and run anywhere.

use std::path::PathBuf;
use std::process::{Command, Output};

const MESSY: &str = "BEGIN{printf(\"hi\\n\");\n\n// why\n@n[comm]=count()}\n";
const CANONICAL: &str = "BEGIN\n{\n  printf(\"hi\\n\");\n\n  // why\n  @n[comm] = count();\n}\n";

fn sonde(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sonde")).args(args).output().expect("sonde runs")
}

/// A fresh directory of this test's own.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sonde-fmt-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_file_is_printed_in_standard_form() {
    let dir = scratch("stdout");
    let file = dir.join("p.bt");
    std::fs::write(&file, MESSY).unwrap();
    let o = sonde(&["--fmt", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), CANONICAL);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), MESSY, "the file is left alone");
    // Program text works as it does for a run.
    let o = sonde(&["--fmt", MESSY]);
    assert_eq!(text(&o.stdout), CANONICAL);
}

#[test]
fn o_replaces_the_file_whole_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("out");
    let file = dir.join("tool.bt");
    std::fs::write(&file, MESSY).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o750)).unwrap();
    let f = file.to_str().unwrap();
    let o = sonde(&["--fmt", f, "-o", f]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), CANONICAL);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "no temporary file is left: {:?}", left);
}

#[test]
fn a_syntax_error_is_located_and_nothing_is_written() {
    let dir = scratch("error");
    let file = dir.join("bad.bt");
    std::fs::write(&file, "BEGIN {\n  printf(\"x\" }\n").unwrap();
    let out = dir.join("out.bt");
    std::fs::write(&out, "kept\n").unwrap();
    let o = sonde(&["--fmt", file.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains(&format!("{}:2:14", file.display())), "{}", err);
    assert!(err.contains("  printf(\"x\" }") && err.contains('^'), "{}", err);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "kept\n");
}

#[test]
fn fmt_goes_with_no_other_mode() {
    for flag in ["-l", "-e", "-S", "-T"] {
        let o = sonde(&["--fmt", flag, MESSY]);
        assert_eq!(o.status.code(), Some(2), "{}", flag);
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "one sentence: {}", err);
        assert!(err.contains("--fmt") && err.contains(flag), "{}", err);
    }
    let o = sonde(&["--fmt"]);
    assert_eq!(o.status.code(), Some(2));
}

/// As root, the run is repeated as `nobody`: formatting needs no privilege.
#[test]
fn an_unprivileged_user_can_format() {
    let dir = scratch("nobody");
    let file = dir.join("p.bt");
    std::fs::write(&file, MESSY).unwrap();
    let bin = env!("CARGO_BIN_EXE_sonde");
    let root = text(&Command::new("id").arg("-u").output().unwrap().stdout).trim() == "0";
    let o = if root && std::path::Path::new("/usr/bin/setpriv").exists() {
        let args = ["--reuid", "65534", "--regid", "65534", "--clear-groups", bin, "--fmt"];
        Command::new("setpriv").args(args).arg(&file).output().unwrap()
    } else {
        sonde(&["--fmt", file.to_str().unwrap()])
    };
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), CANONICAL);
}
