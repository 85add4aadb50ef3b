//! A seeded random stream for the robustness tests and the fuzz driver (sonde-compile's
//! tests/fuzz.rs): deterministic, so a failure replays from its seed, and dependency-free.

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
