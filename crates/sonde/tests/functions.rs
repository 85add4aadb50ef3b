//! bpftrace's `fn` on the host kernel: BPF global functions the verifier checks once, called
//! from probes with C's conversions, printing, updating maps, reading user strings.

mod common;

use common::sonde;

fn prints(program: &str, want: &str) {
    let o = sonde(&[program]);
    o.assert_ok();
    assert_eq!(o.stdout, want, "{}", o.describe());
}

#[test]
fn functions_return_what_c_computes() {
    require_bpf!();
    prints(
        "fn add($a: int64, $b: int64): int64 { return $a + $b; }
         fn narrow($a: uint8): int16 { return $a; }
         fn twice($x: int32): int32 { return add($x, $x); }
         fn sign($x: int64): int64 { if ($x < 0) { return -1; } if ($x > 0) { return 1; } return 0; }
         BEGIN { printf(\"%d %d %d %d %d %d\\n\", add(40, 2), narrow(-1), twice(-21), sign(-9), sign(0), sign(7)); exit(); }",
        "42 255 -42 -1 0 1\n\n\n",
    );
}

#[test]
fn functions_print_and_update_maps() {
    require_bpf!();
    prints(
        "fn note($k: int64) { @seen[$k] = count(); printf(\"note %d\\n\", $k); }
         BEGIN { note(3); note(3); note(5); note(7); exit(); }",
        "note 3\nnote 3\nnote 5\nnote 7\n\n\n@seen[5]: 1\n@seen[7]: 1\n@seen[3]: 2\n\n",
    );
}

#[test]
fn a_function_reads_a_user_string_it_is_given() {
    require_tracepoints!();
    let cmd = common::wl(&["openat", "3", "/nonexistent-fn"]);
    let o = sonde(&[
        "-c",
        &cmd,
        "fn path($tag: int64, $p: uint64) { if (strncmp(str($p, 32), \"/nonexistent\", 12) == 0) { printf(\"%d [%s]\\n\", $tag, str($p, 32)); } }
         tracepoint:syscalls:sys_enter_openat /pid == cpid/ { path(1, args.filename); }",
    ]);
    o.assert_ok();
    assert_eq!(o.stdout, "1 [/nonexistent-fn]\n".repeat(3) + "\n\n", "{}", o.describe());
}

#[test]
fn debug_output_says_what_the_verifier_spent() {
    require_bpf!();
    let o = sonde(&["-d", "fn f($a: int64): int64 { return $a * 2; } BEGIN { @ = f(3); exit(); }"]);
    o.assert_ok();
    assert!(o.stderr.contains("BEGIN: ") && o.stderr.contains(" processed, "), "{}", o.describe());
}

#[test]
fn inlined_functions_compute_what_global_ones_do() {
    require_bpf!();
    // The program's frame (a 300-byte string) and the function's (another) do not fit one call
    // chain: the calls are lowered in place, with the same values and output, temporaries kept.
    let x = "x".repeat(300);
    let y = "y".repeat(300);
    let program = format!(
        "fn f($a: int64): int64 {{ print((\"{y}\", $a)); return $a * 10; }}\nBEGIN {{ print((\"{x}\", 1)); $t = 5; printf(\"%d\\n\", $t + f(2) + f(3) * 2); exit(); }}"
    );
    let want = format!("({x}, 1)\n({y}, 2)\n({y}, 3)\n85\n\n\n");
    prints(&program, &want);
}
