//! A stable-Rust fuzz driver for the lexer, parser, checker, lowering and the diagnostic
//! renderer (issue 13): seeded mutations (byte flips, splices, deep nesting, huge literals, NUL
//! bytes) of the golden programs and of `fuzz_corpus/`, for a few seconds. Every input must be
//! answered, Ok or with diagnostics that render, without a panic and within a second.
//!
//! `FUZZ_SECS=N` runs longer, `FUZZ_SEED=N` replays a run. A failing input is written to
//! `target/fuzz-failure.sonde`: keep it in `fuzz_corpus/` once fixed.

mod common;

use common::FixtureEnv;
use sonde_compile::Options;
use sonde_syntax::diag::SourceFile;
use sonde_syntax::fuzz::{Rng, TOKENS};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn seeds() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut paths: Vec<PathBuf> = ["golden", "fuzz_corpus"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sonde"))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut s = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(s.len() + 1);
        match rng.below(9) {
            0 if !s.is_empty() => {
                let i = rng.below(s.len());
                s[i] ^= 1 << rng.below(8);
            }
            1 => {
                // Splice a piece of another program in.
                let o = &seeds[rng.below(seeds.len())];
                let a = rng.below(o.len() + 1);
                let b = a + rng.below(o.len() - a + 1);
                s.splice(at..at, o[a..b].iter().copied());
            }
            2 => {
                // Deep nesting, sometimes beyond the parser's limit.
                let n = 1 + rng.below(2000);
                let (open, close) =
                    [("(", ")"), ("{", "}"), ("if (1) {", "}"), ("-", "")][rng.below(4)];
                let inner = format!("{}1{}", open.repeat(n), close.repeat(n));
                s.splice(at..at, inner.into_bytes());
            }
            3 => {
                // A huge literal: digits, a string, an identifier.
                let n = 1 + rng.below(20_000);
                let lit = match rng.below(3) {
                    0 => "9".repeat(n),
                    1 => format!("\"{}\"", "a".repeat(n)),
                    _ => "x".repeat(n),
                };
                s.splice(at..at, lit.into_bytes());
            }
            4 => s.insert(at, 0),
            5 => s.truncate(at),
            6 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                s.splice(at..at, t.bytes());
            }
            7 if !s.is_empty() => {
                let b = at.min(s.len() - 1);
                let e = (b + 1 + rng.below(64)).min(s.len());
                s.drain(b..e);
            }
            _ => s.insert(at, (rng.next_u64() & 0xff) as u8),
        }
    }
    s
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

/// Runs one input on a thread with the binary's 8 MiB main-thread stack.
fn check(input: &[u8]) -> Result<Duration, String> {
    let text = String::from_utf8_lossy(input).into_owned();
    let t = Instant::now();
    let r = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || answer(&text))
        .unwrap()
        .join();
    let took = t.elapsed();
    match r {
        Err(_) => Err("panicked".into()),
        Ok(_) if took > Duration::from_secs(1) => Err(format!("took {took:?}")),
        Ok(_) => Ok(took),
    }
}

fn fail(input: &[u8], why: &str, seed: u64) -> ! {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-failure.sonde");
    let _ = std::fs::write(&out, input);
    panic!("input {} (seed {seed}): {why}", out.display());
}

#[test]
fn the_corpus_is_answered() {
    for s in seeds() {
        if let Err(why) = check(&s) {
            fail(&s, &why, 0);
        }
    }
}

#[test]
fn mutated_programs_are_answered() {
    let secs = std::env::var("FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let seed = std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
            as u64
            | 1
    });
    let seeds = seeds();
    let mut rng = Rng(seed);
    let t = Instant::now();
    let mut runs = 0;
    while t.elapsed() < Duration::from_secs(secs) {
        let input = mutate(&mut rng, &seeds);
        if let Err(why) = check(&input) {
            fail(&input, &why, seed);
        }
        runs += 1;
    }
    println!("{runs} inputs in {:?} (FUZZ_SEED={seed})", t.elapsed());
    assert!(runs > 0);
}
