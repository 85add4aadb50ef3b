use super::format;

fn fmt(s: &str) -> String {
    format(s).unwrap_or_else(|e| panic!("{}: {}", s, e.message))
}

#[test]
fn a_probe_in_standard_form() {
    assert_eq!(fmt("BEGIN{printf(\"hi\\n\");exit()}"), "BEGIN\n{\n  printf(\"hi\\n\");\n  exit();\n}\n");
}

/// Scratch: FMT_DIR=dir reports which files are not reproduced.
#[test]
fn scratch_dir() {
    let Ok(dir) = std::env::var("FMT_DIR") else { return };
    let mut ok = 0;
    let mut total = 0;
    for path in std::fs::read_to_string(dir).unwrap().lines() {
        total += 1;
        let text = std::fs::read_to_string(path).unwrap();
        match format(&text) {
            Ok(out) if out == text => ok += 1,
            Ok(out) => {
                std::fs::write(format!("{}.out", path), &out).unwrap();
                println!("DIFF {}", path);
            }
            Err(e) => println!("ERR {} {:?} {}", path, e.span, e.message),
        }
    }
    println!("{} of {}", ok, total);
}
