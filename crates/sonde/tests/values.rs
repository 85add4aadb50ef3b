//! Values sonde must get right where a simpler reading gets them wrong: syscall arguments
//! declared with a signed typedef, C's signed `/` and `%`, C's conversions in comparisons. The
//! workload's `lseek N` makes lseek(-1, -K, SEEK_CUR) for K = 1..N, each failing with EBADF (-9).

mod common;

use common::{sonde, wl};

const N: i64 = 13;

fn lseeks(comm: &str, program: &str) -> common::Output {
    let n = N.to_string();
    let cmd = wl(&["comm", comm, "lseek", &n]);
    let o = sonde(&["-c", &cmd, program]);
    o.assert_ok();
    o
}

#[test]
fn typedef_arguments_are_signed() {
    require_tracepoints!();
    let o = lseeks(
        "wl_off",
        "tracepoint:syscalls:sys_enter_lseek /pid == cpid/ { @s = sum(args->offset); @m = min(args->offset); @h = hist(args->offset); }",
    );
    // off_t offsets -1..-13.
    assert_eq!(o.int("@s"), -(1..=N).sum::<i64>(), "{}", o.describe());
    assert_eq!(o.int("@m"), -N, "{}", o.describe());
    assert!(o.stdout.contains("(..., 0)"), "negative values land below 0\n{}", o.describe());
}

#[test]
fn signed_division_and_remainder() {
    require_tracepoints!();
    let o = lseeks(
        "wl_div",
        "tracepoint:syscalls:sys_exit_lseek /pid == cpid/ { @q = sum(args->ret / 2); @r[args->ret % 4] = count(); }
         tracepoint:syscalls:sys_enter_lseek /pid == cpid/ { @o[args->offset % 3] = count(); }",
    );
    // ret is -9 (EBADF): C gives -9 / 2 == -4 and -9 % 4 == -1.
    assert_eq!(o.int("@q"), -4 * N, "{}", o.describe());
    assert_eq!(o.keyed("@r", "-1"), N.to_string(), "{}", o.describe());
    // -1..-13 % 3: the remainder has the dividend's sign.
    let count = |r: i64| (1..=N).filter(|k| -k % 3 == r).count().to_string();
    for r in [0, -1, -2] {
        assert_eq!(o.keyed("@o", &r.to_string()), count(r), "{}", o.describe());
    }
}

#[test]
fn constants_divide_as_c_does() {
    require_bpf!();
    let o = sonde(&[
        r#"BEGIN { $a = -7; printf("%d %d %d %d\n", $a / 2, $a % 2, -7 / 2, 7 % -3); exit(); }"#,
    ]);
    o.assert_ok();
    assert_eq!(o.stdout.trim(), "-3 -1 -3 1", "{}", o.describe());
}

#[test]
fn unsigned_int_equals_minus_one() {
    require_tracepoints!();
    // lseek's `unsigned int fd` is -1 converted: C's `fd == -1` holds.
    let o = lseeks(
        "wl_fd",
        "tracepoint:syscalls:sys_enter_lseek /pid == cpid && args->fd == -1/ { @n = count(); }",
    );
    assert_eq!(o.int("@n"), N, "{}", o.describe());
}

#[test]
fn zero_keeps_the_keys() {
    require_bpf!();
    let o = sonde(&[
        "BEGIN { @c[1] = count(); @c[2] = count(); @s = sum(5); zero(@c); zero(@s); exit(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.keyed("@c", "1"), "0", "{}", o.describe());
    assert_eq!(o.keyed("@c", "2"), "0", "{}", o.describe());
    assert_eq!(o.int("@s"), 0, "{}", o.describe());
}

#[test]
fn pointer_arithmetic_moves_by_elements() {
    require_bpf!();
    let o = sonde(&["BEGIN { @ = (int32 *)0x32; @++; $p = (int64 *)0x100; @b = $p + 2; @c = $p - 1; @d = (uint8 *)0x10 + 3; @e = (int64 *)0x120 - $p; exit(); }"]);
    o.assert_ok();
    // bpftrace's answers: 0x32 + 4, 0x100 + 16, 0x100 - 8, 0x10 + 3 (pointers print in hex);
    // and 0x20 bytes are 4 int64s.
    for (map, want) in [("@", "0x36"), ("@b", "0x110"), ("@c", "0xf8"), ("@d", "0x13"), ("@e", "4")]
    {
        assert_eq!(o.scalar(map), want, "{}: {}", map, o.describe());
    }
}

#[test]
fn print_of_an_integer_map_without_its_element_prints_zero() {
    require_bpf!();
    let o = sonde(&[
        "BEGIN { print(@n); @k[1] = 1; delete(@k, 1); print(@k); exit(); } END { @n = 5; }",
    ]);
    o.assert_ok();
    // bpftrace's rule: print() of a key-less integer map not set yet is 0; a keyed one prints
    // no element.
    assert_eq!(o.lines(), vec!["@n: 0", "@n: 5"], "{}", o.describe());
}

#[test]
fn an_empty_map_prints_nothing_at_exit_and_its_zero_when_asked() {
    require_bpf!();
    // bpftrace's rule (its runtime tests `clear count-map`, `print_empty_scalar_map`): a map
    // with no element is left out at exit (the run's end, two newlines, is all there is);
    // print() of a key-less one shows its zero.
    let o = sonde(&["BEGIN { @c = count(); @k[1] = count(); clear(@c); clear(@k); exit(); }"]);
    o.assert_ok();
    assert_eq!(o.stdout, "\n\n", "{}", o.describe());
    let o = sonde(&["BEGIN { print(@n); print(@s); print(@k); exit(); } END { @n = 1; @s = stats(2); @k[1] = 1; }"]);
    o.assert_ok();
    let want = "@n: 0\n\n@s: { .count = 0, .average = 0, .total = 0 }\n\n\n";
    assert!(o.stdout.starts_with(want), "{}", o.describe());
    // Records, tuples, strings and bools print their zeroed bytes (`print_empty_scalar_record_map`).
    let o = sonde(&[r#"BEGIN { print(@r); print(@t); print(@b); exit(); }
        END { @r = (a=1, b=(2, "hi")); @t = (1, "x"); @b = true; }"#]);
    o.assert_ok();
    let want = "@r: { .a = 0, .b = (0, ) }\n\n@t: (0, )\n\n@b: false\n\n";
    assert!(o.stdout.starts_with(want), "{}", o.describe());
}

#[test]
fn execve_argv_is_an_array_of_strings() {
    require_tracepoints!();
    // `const char *const * argv`: argv[1] is the second string, not the first one's second byte.
    let cmd = wl(&["exec", "wl-exec", "getppid", "1"]);
    let o = sonde(&[
        "-c",
        &cmd,
        "tracepoint:syscalls:sys_enter_execve /pid == cpid/ { @[str(args.argv[0]), str(args.argv[1])] = count(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.keyed("@", "wl-exec, getppid"), "1", "{}", o.describe());
}

/// Syscall numbers and errno values bpftrace's scripts take from `<sys/syscall.h>` and
/// `<errno.h>` (x86-64 numbers), with or without the `#include`.
#[cfg(target_arch = "x86_64")]
#[test]
fn syscall_numbers_and_errno_values_by_name() {
    require_bpf!();
    let o = sonde(&[
        "#include <sys/syscall.h>\nBEGIN { print((__NR_nanosleep, SYS_getpid, EPERM, ENOENT)); print(strerror(EACCES)); exit(); }",
    ]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["(35, 39, 1, 2)", "Permission denied"], "{}", o.describe());
}
