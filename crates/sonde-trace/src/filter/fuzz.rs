//! Fuzzing `sonde trace --filter` texts (issue 22) with the project's driver
//! (`sonde_syntax::fuzz::Driver`): the corpus in `tests/fuzz_corpus/` (this round's injection
//! strings among them) as it is, then seeded mutations for a few seconds. Each text is parsed
//! as one expression, put into the program of `sonde trace -e openat,read,getpid`, and
//! compiled against the fixture formats. Every input is answered without a panic and within a
//! second; a filter that parses never changes the program's probes, and every error about it
//! points into the filter, never into sonde's own program.
//!
//! `FUZZ_SECS=N` runs longer, `FUZZ_SEED=N` replays a run. A failing input is written to
//! `target/fuzz-failure.filter`: keep it in `tests/fuzz_corpus/` once fixed.

use super::{parse_program, rebase, Filter};
use crate::fixtures::fixtures;
use crate::program::Plan;
use crate::select::Selection;
use crate::syscalls::SyscallTable;
use sonde_compile::Options;
use sonde_syntax::diag::Diagnostic;
use sonde_syntax::fuzz::{Driver, TOKENS};
use std::path::Path;
use std::sync::OnceLock;

fn table() -> &'static SyscallTable {
    static T: OnceLock<SyscallTable> = OnceLock::new();
    T.get_or_init(|| SyscallTable::load(&fixtures()).unwrap())
}

/// Every diagnostic points into the filter's `len` bytes.
fn in_filter(diags: &[Diagnostic], len: usize) -> usize {
    assert!(!diags.is_empty(), "an error without a diagnostic");
    for d in diags {
        assert!(d.span.lo <= d.span.hi && d.span.hi as usize <= len, "outside the filter: {d:?}");
    }
    diags.len()
}

fn answer(text: &str) -> usize {
    let filter = match Filter::parse(text) {
        Ok(f) => f,
        Err(d) => return in_filter(&d, text.len()),
    };
    let t = table();
    let selection = Selection::parse("openat,read,getpid", t).unwrap();
    let plan =
        Plan { string_size: 64, filter: Some(filter), ..crate::fixtures::plan(t, &selection) };
    if let Some(d) = plan.filter_misfit() {
        return in_filter(&[d], text.len());
    }
    let program = plan.program();
    let own = parse_program(&program, None).expect("sonde trace's own program parses");
    let compiled = parse_program(&program, plan.filter.as_ref()).and_then(|ast| {
        assert_eq!(ast.probes.len(), own.probes.len(), "the filter changed the probes");
        let opts = Options::new();
        let typed = sonde_compile::check(&ast, &fixtures(), &opts)?;
        sonde_compile::lower(&typed, &opts)
    });
    match compiled {
        Ok(c) => c.programs.len(),
        Err(diags) => {
            let mine: Vec<Diagnostic> = diags
                .iter()
                .map(|d| {
                    rebase(d.clone(), &program)
                        .unwrap_or_else(|| panic!("an error in sonde's own program: {d:?}"))
                })
                .collect();
            in_filter(&mine, text.len())
        }
    }
}

fn driver() -> Driver<'static> {
    Driver::for_kind(Path::new(env!("CARGO_MANIFEST_DIR")), "filter", TOKENS, answer)
}

#[test]
fn the_corpus_is_answered() {
    let d = driver();
    assert!(d.seeds.len() >= 10, "the corpus is missing");
    d.corpus();
}

#[test]
fn mutated_filters_are_answered() {
    assert!(driver().mutations() > 0);
}
