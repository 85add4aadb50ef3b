//! Fuzzing `sonde probe` expressions (issue 22) with the project's driver
//! (`sonde_syntax::fuzz::Driver`): the corpus in `fuzz_corpus/` (this round's injection strings
//! among them) as it is, then seeded mutations for a few seconds, each resolved against the
//! fixture kernel (tests/common). Every input is answered without a panic and within a second:
//! a definition tracefs reads as one line and a filter it reads as one line, whose language
//! translation is one probe; or one sentence.
//!
//! `FUZZ_SECS=N` runs longer, `FUZZ_SEED=N` replays a run. A failing input is written to
//! `target/fuzz-failure.probe`: keep it in `fuzz_corpus/` once fixed.

mod common;

use common::Fixture;
use sonde_probe::{build, to_language, Target};
use sonde_syntax::fuzz::Driver;
use std::path::Path;

/// Bits of expressions that make mutations reach past the expression's own parser.
const TOKENS: &[&str] = &[
    "p ",
    "r ",
    "e ",
    "P ",
    "R ",
    "f:",
    " f:",
    "%0",
    "%1",
    "%ax",
    "$retval",
    "$comm",
    "$stack2",
    "->",
    ".",
    "[1]",
    "=",
    "==",
    "!=",
    "<",
    ">=",
    "&&",
    "||",
    "!",
    "&",
    "~",
    "(",
    ")",
    "\"",
    "'",
    "\n",
    "\0",
    " ",
    "=~",
    "X",
    "S",
    "U",
    "B16_",
    "ip_",
    "@",
    "@(struct iphdr *)",
    "l3",
    "!(struct file*)",
    "+0x10",
    "wake_up_new_task",
    "do_filp_open",
    "sched/sched_stat_wait",
    "comm",
    "delay",
    "127.0.0.1",
    "-100",
    "0xffffffffffffffff",
    "99999999999999999999",
    "$(x)",
    "`x`",
    ";",
    "\\",
];

/// Resolves one expression; checks what it would write.
fn answer(text: &str) -> usize {
    let env = Fixture::new();
    let probe = match build(text, &env, "sonde", "f0") {
        Ok(p) => p,
        Err(e) => {
            let sentence = e.to_string();
            assert!(!sentence.is_empty(), "an error without a sentence");
            return sentence.len();
        }
    };
    let mut written = probe.filter.clone().unwrap_or_default();
    if let Target::Dynamic(def) = &probe.target {
        written.push_str(&def.to_string());
    }
    // tracefs ends a definition or a filter at a newline or a NUL.
    assert!(!written.contains(['\n', '\0']), "a line tracefs would split: {written:?}");
    if let Ok(program) = to_language(&probe, &env) {
        let ast = sonde_syntax::parse(&program)
            .unwrap_or_else(|d| panic!("the translation does not parse: {program}\n{d:?}"));
        assert_eq!(ast.probes.len(), 1, "one probe, nothing else: {program}");
    }
    written.len()
}

fn driver() -> Driver<'static> {
    Driver::for_kind(Path::new(env!("CARGO_MANIFEST_DIR")), "probe", TOKENS, answer)
}

#[test]
fn the_corpus_is_answered() {
    let d = driver();
    assert!(d.seeds.len() >= 10, "the corpus is missing");
    d.corpus();
}

#[test]
fn mutated_expressions_are_answered() {
    assert!(driver().mutations() > 0);
}
