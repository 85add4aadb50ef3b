//! The fuzz drivers' shared parts (issue 13, issue 22): a seeded random stream, deterministic so
//! a failure replays from its seed; [`mutate`], the mutations of a corpus; and [`Driver`], which
//! runs an input kind's answer on every seed and then on mutations for a few seconds. The
//! drivers: programs (sonde-compile's tests/fuzz.rs), `sonde probe` expressions (sonde-probe's
//! tests/fuzz.rs) and `sonde trace --filter` texts (sonde-trace's filter tests). Dependency-free.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// xorshift64*. The seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

/// Bits of program text that make random mutations reach past the lexer.
pub const TOKENS: &[&str] = &[
    "BEGIN",
    "kprobe:x",
    " ",
    "\n",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "/",
    "*",
    "+",
    "-",
    "++",
    "--",
    "=",
    "==",
    "!=",
    ";",
    ",",
    ":",
    "?",
    ".",
    "->",
    "@",
    "@x",
    "$v",
    "$",
    "$1",
    "if",
    "else",
    "delete",
    "return",
    "\"",
    "\"s\"",
    "'",
    "'a'",
    "\\",
    "0x",
    "08",
    "99999999999999999999",
    "1.5",
    "/*",
    "*/",
    "//",
    "#",
    "é",
    "\u{0}",
    "\t",
    "struct",
    "(u8)",
    "(x *)",
    "const",
    "<<=",
    ">>",
    "&&",
    "||",
    "!",
    "~",
    "&",
    "|",
    "^",
    "%",
    "$x",
    "@m[",
    "count()",
    "hist(",
    "printf(\"%d %s\\n\", ",
    "if (",
    "END",
    "kprobe:",
    "tracepoint:",
    "fentry:",
    "uretprobe:",
    "interval:s:1",
    "args->",
    "arg0",
    "comm",
    "pid",
    "<<",
    "? :",
];

/// One mutation of a seed: one to four of a byte flip, a splice of another seed, deep nesting
/// (sometimes past the parsers' limits), a huge literal, a NUL byte, a cut, one of `tokens`, a
/// deletion, a random byte.
pub fn mutate(rng: &mut Rng, seeds: &[Vec<u8>], tokens: &[&str]) -> Vec<u8> {
    let mut s = seeds[rng.below(seeds.len())].clone();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(s.len() + 1);
        match rng.below(9) {
            0 if !s.is_empty() => {
                let i = rng.below(s.len());
                s[i] ^= 1 << rng.below(8);
            }
            1 => {
                let o = &seeds[rng.below(seeds.len())];
                let a = rng.below(o.len() + 1);
                let b = a + rng.below(o.len() - a + 1);
                s.splice(at..at, o[a..b].iter().copied());
            }
            2 => {
                let n = 1 + rng.below(2000);
                let (open, close) =
                    [("(", ")"), ("{", "}"), ("if (1) {", "}"), ("-", "")][rng.below(4)];
                let inner = format!("{}1{}", open.repeat(n), close.repeat(n));
                s.splice(at..at, inner.into_bytes());
            }
            3 => {
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
            6 if !tokens.is_empty() => {
                let t = tokens[rng.below(tokens.len())];
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

/// The longest an input may take to be answered.
pub const ANSWER_LIMIT: Duration = Duration::from_secs(1);

/// Runs `answer` on `input` (lossily as UTF-8, as the binary reads its arguments) on a thread
/// with the binary's 8 MiB main-thread stack: Err when it panicked or took over [`ANSWER_LIMIT`].
pub fn answered(input: &[u8], answer: fn(&str) -> usize) -> Result<Duration, String> {
    let text = String::from_utf8_lossy(input).into_owned();
    let t = Instant::now();
    let r = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || answer(&text))
        .map_err(|e| format!("cannot start a thread: {e}"))?
        .join();
    let took = t.elapsed();
    match r {
        Err(_) => Err("panicked".into()),
        Ok(_) if took > ANSWER_LIMIT => Err(format!("took {took:?}")),
        Ok(_) => Ok(took),
    }
}

/// One input kind's fuzzing: its corpus, the tokens its mutations insert, and its answer (which
/// must not panic, and returns anything, so the work is not optimized away).
pub struct Driver<'a> {
    pub seeds: Vec<Vec<u8>>,
    pub tokens: &'a [&'a str],
    pub answer: fn(&str) -> usize,
    /// Where a failing input is written, to be kept in the corpus once fixed.
    pub failure: PathBuf,
}

impl<'a> Driver<'a> {
    /// The driver of one input kind whose corpus is `crate_dir/tests/fuzz_corpus/*.KIND`; a
    /// failing input is written to the workspace's `target/fuzz-failure.KIND`.
    pub fn for_kind(
        crate_dir: &std::path::Path,
        kind: &str,
        tokens: &'a [&'a str],
        answer: fn(&str) -> usize,
    ) -> Driver<'a> {
        Driver {
            seeds: seeds_in(&crate_dir.join("tests/fuzz_corpus"), kind),
            tokens,
            answer,
            failure: crate_dir.join(format!("../../target/fuzz-failure.{kind}")),
        }
    }

    /// Every seed, as it is.
    pub fn corpus(&self) {
        for s in &self.seeds {
            if let Err(why) = self.check(s) {
                self.fail(s, &why, 0);
            }
        }
    }

    /// [`answered`]; an input too slow is tried once more, so a machine busy with other tests
    /// does not pass for a slow input (a slow input is slow both times).
    fn check(&self, input: &[u8]) -> Result<Duration, String> {
        match answered(input, self.answer) {
            Err(why) if why.starts_with("took") => answered(input, self.answer),
            r => r,
        }
    }

    /// Mutations for `FUZZ_SECS` seconds (3 unless set) from `FUZZ_SEED` (the clock unless set);
    /// returns how many were answered.
    pub fn mutations(&self) -> usize {
        let secs = std::env::var("FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
        let seed =
            std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
                now.map_or(1, |d| d.as_nanos() as u64) | 1
            });
        let mut rng = Rng(seed);
        let t = Instant::now();
        let mut runs = 0;
        while t.elapsed() < Duration::from_secs(secs) {
            let input = mutate(&mut rng, &self.seeds, self.tokens);
            if let Err(why) = self.check(&input) {
                self.fail(&input, &why, seed);
            }
            runs += 1;
        }
        println!("{runs} inputs in {:?} (FUZZ_SEED={seed})", t.elapsed());
        runs
    }

    fn fail(&self, input: &[u8], why: &str, seed: u64) -> ! {
        if let Some(dir) = self.failure.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = std::fs::write(&self.failure, input);
        panic!("input {} (seed {seed}): {why}", self.failure.display());
    }
}

/// The files of `dir` whose names end in `.ext`, in name order, as seeds.
pub fn seeds_in(dir: &std::path::Path, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == ext));
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}
