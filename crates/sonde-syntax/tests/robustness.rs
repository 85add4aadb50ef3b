//! The parser must never panic: random bytes, random token soup and mutations of real programs all
//! come back as `Ok` or as diagnostics with sane spans, and both render without panicking.

use sonde_syntax::ast::{Block, Expr, ExprKind, Program};
use sonde_syntax::diag::SourceFile;

use sonde_syntax::fuzz::{Rng, TOKENS};

const PROGRAMS: &[&str] = &[
    r#"tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }"#,
    r#"kprobe:SyS_* / !strcmp(execname, "dd") / { @[caller] = count(); }"#,
    r#"kprobe:__netif_receive_skb_core { rx[arg0] = time; } kprobe:ip_rcv / rx[arg0] / { @["diff"] = quantize(time - rx[arg0]); }"#,
    r#"tracepoint:syscalls:sys_exit_read /args->ret > 0/ { @bytes = hist(args->ret); }"#,
    r#"BEGIN { printf("hello %s %-5d|\n", "x", 42); exit(); }"#,
    r#"kprobe:wake_up_new_task { printf("%d\n", ((struct task_struct *)arg0)->pid); }"#,
    r#"interval:s:1 { print(@); clear(@); }"#,
    r#"uprobe:/bin/bash:readline { @x[pid, comm] = sum(1); $y = 3; $y += 2; @z++; if ($y > 2) { @a = 1 } else if (pid == 1) @b = 2; else { delete @x[pid, comm]; } }"#,
    "#!/usr/bin/sonde\n/* c */ BEGIN, END // x\n{ @x = 'a' + 0x1f - 07 * (u64)-1 ? ~$v : \"s\\n\" \"t\"; delete(@m, 1); return; }",
];

/// Parses `text` and checks everything a consumer would do with the result.
fn exercise(text: &str) {
    let file = SourceFile { name: "fuzz".into(), text: text.into() };
    match sonde_syntax::parse(text) {
        Ok(p) => {
            assert!(!p.probes.is_empty(), "{:?}", text);
            assert!(program_depth(&p) <= 3 * sonde_syntax::parser::MAX_DEPTH, "{:?}", text);
            let _ = sonde_syntax::dump(&p);
        }
        Err(diags) => {
            assert!(!diags.is_empty());
            for d in &diags {
                assert!(
                    d.span.lo <= d.span.hi && d.span.hi as usize <= text.len(),
                    "{:?}: {:?}",
                    text,
                    d
                );
                assert!(
                    text.is_char_boundary(d.span.lo as usize)
                        && text.is_char_boundary(d.span.hi as usize),
                    "{:?}: {:?}",
                    text,
                    d
                );
                let r = sonde_syntax::render(d, &file, false);
                assert!(r.starts_with("error: "), "{:?}", r);
                let _ = sonde_syntax::render(d, &file, true);
            }
        }
    }
}

fn program_depth(p: &Program) -> usize {
    fn block(b: &Block) -> usize {
        1 + b
            .stmts
            .iter()
            .map(|s| {
                let (es, bs) = s.parts();
                let e = es.into_iter().map(expr).max().unwrap_or(0);
                bs.into_iter().map(block).max().unwrap_or(0).max(e)
            })
            .max()
            .unwrap_or(0)
    }
    fn expr(e: &Expr) -> usize {
        1 + match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Str(_)
            | ExprKind::Ident(_)
            | ExprKind::Var(_)
            | ExprKind::TypeArg(_) => 0,
            ExprKind::Map { keys: es, .. }
            | ExprKind::Call { args: es, .. }
            | ExprKind::Tuple(es) => es.iter().map(expr).max().unwrap_or(0),
            ExprKind::Record(fs) => fs.iter().map(|(_, e)| expr(e)).max().unwrap_or(0),
            ExprKind::Unary { expr: e, .. }
            | ExprKind::Cast { expr: e, .. }
            | ExprKind::Step { target: e, .. }
            | ExprKind::Block { value: e, .. }
            | ExprKind::Member { expr: e, .. } => expr(e),
            ExprKind::Binary { lhs, rhs, .. } => expr(lhs).max(expr(rhs)),
            ExprKind::Index { expr: a, index: b } => expr(a).max(expr(b)),
            ExprKind::Ternary { cond, then, els } => expr(cond).max(expr(then)).max(expr(els)),
        }
    }
    p.probes
        .iter()
        .map(|p| p.predicate.as_ref().map_or(0, expr).max(block(&p.body)))
        .max()
        .unwrap_or(0)
}

/// A random cut of `s` at a character boundary.
fn boundary(s: &str, rng: &mut Rng) -> usize {
    let mut i = rng.below(s.len() + 1);
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[test]
fn the_seed_programs_parse() {
    for p in PROGRAMS {
        assert!(sonde_syntax::parse(p).is_ok(), "{}", p);
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let len = rng.below(80);
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(4) {
                0 => rng.next_u64() as u8,
                // Mostly printable ASCII, where the interesting syntax is.
                _ => 0x20 + rng.below(0x5f) as u8,
            })
            .collect();
        exercise(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_token_soup() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    for _ in 0..3000 {
        let n = rng.below(40);
        let text: String = (0..n).map(|_| rng.pick(TOKENS)).collect();
        exercise(&text);
        exercise(&format!("BEGIN {{ {} }}", text));
        exercise(&format!("kprobe:a /{}/ {{ }}", text));
    }
}

#[test]
fn truncations_of_real_programs() {
    for p in PROGRAMS {
        for (i, _) in p.char_indices() {
            exercise(&p[..i]);
            exercise(&p[i..]);
        }
    }
}

#[test]
fn mutations_of_real_programs() {
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for _ in 0..6000 {
        let mut text = rng.pick(PROGRAMS).to_string();
        for _ in 0..1 + rng.below(4) {
            let a = boundary(&text, &mut rng);
            let b = boundary(&text, &mut rng);
            let (lo, hi) = (a.min(b), a.max(b));
            match rng.below(5) {
                0 => text.replace_range(lo..hi, ""),
                1 => text.insert_str(lo, rng.pick(TOKENS)),
                2 => {
                    let dup = text[lo..hi].to_string();
                    text.insert_str(hi, &dup);
                }
                3 => text.truncate(lo),
                _ => {
                    let other = rng.pick(PROGRAMS);
                    let c = boundary(other, &mut rng);
                    text.insert_str(lo, &other[c..]);
                }
            }
        }
        exercise(&text);
    }
}

#[test]
fn pathological_repetition() {
    // Long runs of each token, in and out of a probe body.
    for t in TOKENS {
        let run = t.repeat(5000);
        exercise(&run);
        exercise(&format!("BEGIN {{ {} }}", run));
        exercise(&format!("BEGIN {{ @x = {} }}", run));
    }
}
