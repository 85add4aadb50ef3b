//! bpftrace's `fn`: checked once each, called by name, lowered as BPF global functions after
//! the program (one copy in each program that calls it, named to the loader).

mod common;

use common::{errors, FixtureEnv};
use sonde_compile::Options;

fn compiled(program: &str) -> sonde_compile::Compiled {
    let ast = sonde_syntax::parse(program).unwrap();
    let typed = sonde_compile::check(&ast, &FixtureEnv::new(), &Options::new()).unwrap();
    sonde_compile::lower(&typed, &Options::new()).unwrap()
}

#[test]
fn each_program_carries_the_functions_it_calls_once() {
    let c = compiled(
        "fn add($a: int64, $b: int64): int64 { return $a + $b; }
         fn twice($x: int64): int64 { return add($x, $x); }
         fn unused($x: int64) { print($x); }
         BEGIN { @a = add(1, 2) + add(3, 4); @t = twice(5); }
         END { print(1); }",
    );
    let begin = &c.programs[0];
    let names: Vec<&str> = begin.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["add", "twice"]);
    assert_eq!(begin.functions[0].params, 2);
    assert_eq!(begin.functions[1].params, 1);
    // Each starts after the program, and every call's target is a function's start.
    let starts: Vec<u32> = begin.functions.iter().map(|f| f.start).collect();
    assert!(starts.iter().all(|&s| s > 0 && (s as usize) < begin.insns.len()));
    let calls: Vec<usize> = begin
        .insns
        .iter()
        .enumerate()
        .filter(|(_, i)| i.code == 0x85 && i.src == 1)
        .map(|(at, i)| (at as i64 + i.imm as i64 + 1) as usize)
        .collect();
    assert_eq!(calls.len(), 4, "add twice and twice once in BEGIN, add once in twice");
    assert!(calls.iter().all(|t| starts.contains(&(*t as u32))));
    assert!(c.programs[1].functions.is_empty(), "END calls none");
}

#[test]
fn mistakes_are_located_in_the_function() {
    let e = errors("fn f(): int64 { return arg0; }\nkprobe:vfs_read { @ = f(); }");
    assert!(e.contains("`fn f` runs without a probe's context"), "{e}");
    assert!(e.contains("--> stdin:1:24"), "{e}");
    let e = errors("fn f($a: int64) { return $a; }\nBEGIN { f(1); }");
    assert!(e.contains("`fn f` returns nothing: write `return;`"), "{e}");
    let e = errors("fn f($a: int64) { print($a); }\nBEGIN { $v = f(1); }");
    assert!(e.contains("a variable cannot hold a `void`"), "{e}");
    let e = errors("fn f($a: int64): int64 { return; }\nBEGIN { f(1); }");
    assert!(e.contains("`fn f` returns a value: write `return VALUE;`"), "{e}");
    let e = errors("fn f($a: int64): int64 { return $a; }\nBEGIN { @ = f(1, 2); }");
    assert!(e.contains("`f()` takes 1 argument(s), 2 given"), "{e}");
    let e = errors("fn f($a: int64): int64 { return f($a); }\nBEGIN { @ = f(1); }");
    assert!(e.contains("calls only functions defined above it, never itself"), "{e}");
    let e = errors("fn f($s: string): int64 { return 1; }\nBEGIN { @ = f(\"a\"); }");
    assert!(e.contains("a function's parameter is an integer or a pointer"), "{e}");
    let e = errors("fn str($a: int64): int64 { return 1; }\nBEGIN { @ = 1; }");
    assert!(e.contains("`fn str` has the name of a builtin function"), "{e}");
    let e = errors(
        "fn f($a: int64, $b: int64, $c: int64, $d: int64, $e: int64, $f: int64) { }\nBEGIN { }",
    );
    assert!(e.contains("takes 6 parameters; a BPF function takes at most 5"), "{e}");
    let e = errors("fn f(): int64 { return 1; }\nfn f(): int64 { return 2; }\nBEGIN { @ = f(); }");
    assert!(e.contains("`fn f` is defined twice"), "{e}");
}

#[test]
fn values_convert_to_the_declared_types() {
    // int8's -1 passed to a uint8 parameter arrives as 255; the value returned is the
    // function's type.
    let c = compiled("fn f($a: uint8): int16 { return $a; }\nBEGIN { @ = f(-1); }");
    assert_eq!(c.programs[0].functions.len(), 1);
    assert_eq!(errors("fn f($a: uint8): int16 { return $a; }\nBEGIN { @ = f(-1); }"), "");
}

/// A program that prints a string of `n` bytes, then calls `f`, which prints one of `m`.
fn frames(n: usize, m: usize) -> String {
    format!(
        "fn f($a: int64): int64 {{ print((\"{}\", $a)); return $a + 1; }}\nBEGIN {{ print((\"{}\", 1)); @ = f(2) + f(3); }}",
        "y".repeat(m),
        "x".repeat(n)
    )
}

#[test]
fn functions_are_inlined_where_the_frames_of_a_call_do_not_fit() {
    // 100 + 100 bytes: a global function.
    let c = compiled(&frames(100, 100));
    assert_eq!(c.programs[0].functions.len(), 1);
    // 300 + 300: the verifier would refuse the chain (512 bytes); each call is lowered in place.
    let c = compiled(&frames(300, 300));
    assert!(c.programs[0].functions.is_empty());
    assert!(!c.programs[0].insns.iter().any(|i| i.code == 0x85 && i.src == 1), "no call left");
}

#[test]
fn a_loop_callback_whose_frame_and_its_caller_s_outgrow_the_stack_goes_to_scratch_space() {
    // A bpf_loop callback's frame holds the probe's variables again: 300 + 300 bytes of them
    // pass the 512 the verifier allows a chain of calls, where 300 alone fit.
    let scratch = |n: usize| {
        let text = format!(
            "BEGIN {{ $s = \"{}\"; @n = 3; for ($i : 0..@n) {{ @c = $i; }} }}",
            "x".repeat(n)
        );
        compiled(&text).maps.iter().any(|m| m.name == "scratch")
    };
    assert!(!scratch(200));
    assert!(scratch(300));
}
