//! `PROGRAM-FILE|DIR...` -> the program files to serve: a file as given, a directory's `.bt`
//! and `.sonde` files in name order (not its subdirectories).

use crate::error::Failure;
use std::path::{Path, PathBuf};

/// The extensions a directory's program files have.
const EXTENSIONS: [&str; 2] = ["bt", "sonde"];

pub fn expand(args: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for arg in args {
        if arg.is_dir() {
            let found = programs_in(arg)?;
            if found.is_empty() {
                return Err(Failure::Usage(format!(
                    "{}: the directory has no program files (*.bt, *.sonde)",
                    arg.display()
                )));
            }
            out.extend(found);
        } else if arg.is_file() {
            out.push(arg.clone());
        } else {
            return Err(Failure::Usage(format!("{}: no such file or directory", arg.display())));
        }
    }
    Ok(out)
}

fn programs_in(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {}", dir.display(), e)))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| p.extension().is_some_and(|x| EXTENSIONS.iter().any(|e| x == *e)))
        .collect();
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_gives_its_programs_in_order() {
        let dir = std::env::temp_dir().join(format!("sonde-serve-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in ["b.bt", "a.sonde", "notes.txt", "sub/c.bt"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let got = expand(std::slice::from_ref(&dir)).ok().unwrap();
        assert_eq!(got, [dir.join("a.sonde"), dir.join("b.bt")]);
        let explicit = expand(&[dir.join("notes.txt")]).ok().unwrap();
        assert_eq!(explicit, [dir.join("notes.txt")]);
        // A subdirectory is served only when named.
        assert_eq!(expand(&[dir.join("sub")]).ok().unwrap(), [dir.join("sub/c.bt")]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_paths_and_empty_directories_are_refused() {
        let e = expand(&[PathBuf::from("/nonexistent/x.bt")]).err().unwrap();
        assert_eq!(e.sentence(), "/nonexistent/x.bt: no such file or directory");
        let dir = std::env::temp_dir().join(format!("sonde-serve-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = expand(std::slice::from_ref(&dir)).err().unwrap();
        assert!(e.sentence().ends_with("the directory has no program files (*.bt, *.sonde)"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
