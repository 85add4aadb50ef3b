//! `sonde --fmt`: the program printed back in bpftrace's standard format, to stdout or, with
//! `-o`, into a file replaced whole. Reads no kernel state, so any user may run it.

use crate::cli::Cli;
use crate::error::{stderr_is_terminal, Failure};
use crate::session::source_from_arg;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status: 0 formatted, 1 the program does not parse, 2 a usage or file problem.
pub fn run(cli: &Cli) -> i32 {
    match format(cli) {
        Ok(code) => code,
        Err(f) => {
            f.report();
            f.exit_code()
        }
    }
}

fn format(cli: &Cli) -> Result<i32, Failure> {
    if let Some(flag) = conflicting_flag(cli) {
        return Err(Failure::Usage(format!(
            "--fmt only formats a program and runs nothing, so it cannot go with {}",
            flag
        )));
    }
    let Some(arg) = &cli.program else {
        return Err(Failure::Usage("--fmt needs a program: `sonde --fmt FILE`".into()));
    };
    let src = source_from_arg(arg)?;
    let color = stderr_is_terminal();
    let text = match sonde_syntax::format::format_with_warnings(&src.text) {
        Ok((text, warnings)) => {
            for w in &warnings {
                eprint!("{}", sonde_syntax::render(w, &src, color));
            }
            text
        }
        Err(d) => {
            eprint!("{}", sonde_syntax::render(&d, &src, color));
            return Ok(1);
        }
    };
    match &cli.flame {
        Some(out) => replace_file(out, &text)?,
        None => crate::stdout::print(&text)?,
    }
    Ok(0)
}

/// The first flag given that asks for something besides formatting.
fn conflicting_flag(cli: &Cli) -> Option<&'static str> {
    [
        (cli.list, "-l"),
        (cli.self_test, "-T"),
        (cli.dry_run, "-e (a dry run)"),
        (cli.dump, "-S"),
        (cli.command.is_some(), "-c"),
        (cli.pid.is_some(), "-p"),
        (cli.keep_going, "-k"),
        (!cli.params.is_empty(), "program arguments"),
    ]
    .into_iter()
    .find(|(given, _)| *given)
    .map(|(_, flag)| flag)
}

/// Writes a temporary file beside `out` and renames it over `out`, so `out` is never seen
/// half-written (and a program formatted in place is never lost). An existing `out` keeps its
/// permissions.
fn replace_file(out: &Path, text: &str) -> Result<(), Failure> {
    let fail = |what: &str, path: &Path, e: std::io::Error| {
        Failure::Setup(format!("cannot {} {}: {}", what, path.display(), e))
    };
    let (tmp, mut file) = temp_beside(out).map_err(|e| fail("create a file beside", out, e))?;
    let written = file.write_all(text.as_bytes()).and_then(|_| file.sync_all());
    let permissions = std::fs::metadata(out).map(|m| m.permissions());
    let result = written
        .map_err(|e| fail("write", &tmp, e))
        .and_then(|_| match permissions {
            Ok(p) => {
                std::fs::set_permissions(&tmp, p).map_err(|e| fail("set the mode of", &tmp, e))
            }
            Err(_) => Ok(()),
        })
        .and_then(|_| std::fs::rename(&tmp, out).map_err(|e| fail("replace", out, e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `OUT.fmt-PID-N`, created new (never an existing file).
fn temp_beside(out: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut last = None;
    for n in 0..100 {
        let mut name = out.as_os_str().to_owned();
        name.push(format!(".fmt-{}-{}", std::process::id(), n));
        let path = PathBuf::from(name);
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}
