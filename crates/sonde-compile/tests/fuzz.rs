//! A stable-Rust fuzz driver for the lexer, parser, checker, lowering and the diagnostic
//! renderer (issue 13): seeded mutations (byte flips, splices, deep nesting, huge literals, NUL
//! bytes) of the golden programs and of `fuzz_corpus/`, for a few seconds, through
//! `sonde_syntax::fuzz::Driver`. Every input must be answered, Ok or with diagnostics that
//! render, without a panic and within a second.
//!
//! `FUZZ_SECS=N` runs longer, `FUZZ_SEED=N` replays a run. A failing input is written to
//! `target/fuzz-failure.sonde`: keep it in `fuzz_corpus/` once fixed.

mod common;

use common::FixtureEnv;
use sonde_compile::Options;
use sonde_syntax::diag::SourceFile;
use sonde_syntax::fuzz::{seeds_in, Driver, TOKENS};
use std::path::Path;

fn seeds() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut seeds = seeds_in(&dir.join("golden"), "sonde");
    seeds.extend(seeds_in(&dir.join("fuzz_corpus"), "sonde"));
    seeds
}

/// Parse, check and lower `text`, rendering every diagnostic as the binary would.
fn answer(text: &str) -> usize {
    let file = SourceFile { name: "fuzz.sonde".into(), text: text.to_string() };
    let env = FixtureEnv::new();
    match sonde_compile::compile(text, &env, &Options::new()) {
        Ok(c) => c.programs.len(),
        Err(diags) => {
            assert!(!diags.is_empty(), "an error without a diagnostic");
            diags.iter().map(|d| sonde_syntax::render(d, &file, false).len()).sum()
        }
    }
}

fn driver() -> Driver<'static> {
    Driver {
        seeds: seeds(),
        tokens: TOKENS,
        answer,
        failure: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-failure.sonde"),
    }
}

#[test]
fn the_corpus_is_answered() {
    driver().corpus();
}

#[test]
fn mutated_programs_are_answered() {
    assert!(driver().mutations() > 0);
}
