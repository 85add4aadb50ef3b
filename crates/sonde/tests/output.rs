//! End-to-end: sonde's text output (bpftrace's conventions) for counts,
//! aggregations, histograms, printf, BEGIN/END and interval probes, checked against
//! exact syscall counts made by `sonde-workload`.
//!
//! Every test filters on its own comm (`wl_*`), so the tests can run in parallel.

mod common;

use common::{check_bars, counts, sonde, wl, Sonde};
use std::time::Duration;

const GETPID: &str = "tracepoint:syscalls:sys_enter_getpid";
const EXIT_READ: &str = "tracepoint:syscalls:sys_exit_read";

fn buckets(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(l, c)| (l.to_string(), *c)).collect()
}

#[test]
fn count_scalar() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_a", "getpid", "100"]),
        &format!(r#"{GETPID} /comm == "wl_a"/ {{ @n = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.scalar("@n"), "100", "{}", o.describe());
    // bpftrace prints each map followed by a blank line.
    let lines: Vec<&str> = o.stdout.lines().collect();
    let i = lines.iter().position(|l| *l == "@n: 100").unwrap();
    assert_eq!(
        lines.get(i + 1).copied(),
        Some(""),
        "no blank line after `@n: 100`\n{}",
        o.describe()
    );
}

#[test]
fn count_keyed_by_comm() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_b", "getpid", "100"]),
        &format!(r#"{GETPID} /comm == "wl_b"/ {{ @[comm] = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.keyed("@", "wl_b"), "100", "{}", o.describe());
    assert!(o.lines().contains(&"@[wl_b]: 100"), "{}", o.describe());
}

#[test]
fn count_several_keys_and_zero_work() {
    // Two comms in one -c command line (run with sh -c), keyed on comm; a third
    // subcommand that makes no getpid calls adds nothing.
    require_tracepoints!();
    let cmd = format!(
        "{}; {}; {}",
        wl(&["comm", "wl_k1", "getpid", "3"]),
        wl(&["comm", "wl_k2", "getpid", "5"]),
        wl(&["comm", "wl_k1", "getpid", "0"]),
    );
    let o = sonde(&[
        "-c",
        &cmd,
        &format!(r#"{GETPID} /comm == "wl_k1" || comm == "wl_k2"/ {{ @c[comm] = count(); }}"#),
    ]);
    o.assert_ok();
    assert_eq!(o.keyed("@c", "wl_k1"), "3", "{}", o.describe());
    assert_eq!(o.keyed("@c", "wl_k2"), "5", "{}", o.describe());
}

fn aggregations(comm: &str, reads: &[(u64, u64)]) -> common::Output {
    let mut args = vec!["comm".to_string(), comm.to_string(), "seq".to_string()];
    for (n, size) in reads {
        args.extend(["read".to_string(), n.to_string(), size.to_string(), "--".to_string()]);
    }
    let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let o = sonde(&[
        "-c",
        &wl(&args),
        &format!(
            r#"{EXIT_READ} /comm == "{comm}"/ {{ @s = sum(args->ret); @mn = min(args->ret); @mx = max(args->ret); @a = avg(args->ret); @st = stats(args->ret); }}"#
        ),
    ]);
    o.assert_ok();
    o
}

#[test]
fn sum_min_max_avg_stats() {
    require_tracepoints!();
    let o = aggregations("wl_r", &[(10, 777)]);
    assert_eq!(o.int("@s"), 7770, "{}", o.describe());
    assert_eq!(o.int("@mn"), 777, "{}", o.describe());
    assert_eq!(o.int("@mx"), 777, "{}", o.describe());
    assert_eq!(o.int("@a"), 777, "{}", o.describe());
    assert_eq!(
        o.scalar("@st"),
        "{ .count = 10, .average = 777, .total = 7770 }",
        "{}",
        o.describe()
    );
}

#[test]
fn sum_min_max_avg_stats_mixed_sizes() {
    require_tracepoints!();
    let o = aggregations("wl_r2", &[(4, 100), (6, 1000)]);
    assert_eq!(o.int("@s"), 6400, "{}", o.describe());
    assert_eq!(o.int("@mn"), 100, "{}", o.describe());
    assert_eq!(o.int("@mx"), 1000, "{}", o.describe());
    assert_eq!(o.int("@a"), 640, "{}", o.describe());
    assert_eq!(
        o.scalar("@st"),
        "{ .count = 10, .average = 640, .total = 6400 }",
        "{}",
        o.describe()
    );
}

#[test]
fn hist_power_of_two_buckets() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_h", "seq", "read", "5", "1000", "--", "read", "3", "5000"]),
        &format!(r#"{EXIT_READ} /comm == "wl_h"/ {{ @h = hist(args->ret); }}"#),
    ]);
    o.assert_ok();
    let h = o.hist("@h");
    assert_eq!(
        counts(&h),
        buckets(&[("[512, 1K)", 5), ("[1K, 2K)", 0), ("[2K, 4K)", 0), ("[4K, 8K)", 3)]),
        "{}",
        o.describe()
    );
    check_bars(&h);
}

#[test]
fn quantize_is_hist() {
    // ply spells hist() quantize().
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_q", "seq", "read", "5", "1000", "--", "read", "3", "5000"]),
        &format!(r#"{EXIT_READ} /comm == "wl_q"/ {{ @h = quantize(args->ret); }}"#),
    ]);
    o.assert_ok();
    let h = o.hist("@h");
    let nonzero: Vec<_> = counts(&h).into_iter().filter(|(_, c)| *c > 0).collect();
    assert_eq!(nonzero, buckets(&[("[512, 1K)", 5), ("[4K, 8K)", 3)]), "{}", o.describe());
    check_bars(&h);
}

#[test]
fn hist_small_values_and_keys() {
    // 1-byte reads land in [1], 2..3 in [2, 4); a keyed histogram prints `@h[key]:`.
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_hs", "seq", "read", "2", "1", "--", "read", "4", "3"]),
        &format!(r#"{EXIT_READ} /comm == "wl_hs"/ {{ @h[comm] = hist(args->ret); }}"#),
    ]);
    o.assert_ok();
    let h = o.hist("@h[wl_hs]");
    assert_eq!(counts(&h), buckets(&[("[1]", 2), ("[2, 4)", 4)]), "{}", o.describe());
    check_bars(&h);
}

#[test]
fn lhist_linear_buckets() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_l", "seq", "read", "5", "1000", "--", "read", "3", "5000"]),
        &format!(r#"{EXIT_READ} /comm == "wl_l"/ {{ @l = lhist(args->ret, 0, 10000, 1000); }}"#),
    ]);
    o.assert_ok();
    let h = o.hist("@l");
    assert_eq!(
        counts(&h),
        buckets(&[
            ("[1000, 2000)", 5),
            ("[2000, 3000)", 0),
            ("[3000, 4000)", 0),
            ("[4000, 5000)", 0),
            ("[5000, 6000)", 3),
        ]),
        "{}",
        o.describe()
    );
    check_bars(&h);
}

#[test]
fn lhist_overflow_bucket() {
    // Values at or past max go to the `[max, ...)` bucket.
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_lo", "seq", "read", "5", "1000", "--", "read", "2", "70000"]),
        &format!(r#"{EXIT_READ} /comm == "wl_lo"/ {{ @l = lhist(args->ret, 0, 10000, 1000); }}"#),
    ]);
    o.assert_ok();
    let h = o.hist("@l");
    let c = counts(&h);
    assert_eq!(c.first(), Some(&("[1000, 2000)".to_string(), 5)), "{}", o.describe());
    assert_eq!(c.last(), Some(&("[10000, ...)".to_string(), 2)), "{}", o.describe());
    assert_eq!(c.len(), 10, "[1000, 2000) .. [9000, 10000) then [10000, ...)\n{}", o.describe());
    assert_eq!(c.iter().map(|(_, n)| n).sum::<u64>(), 7, "{}", o.describe());
    check_bars(&h);
}

#[test]
fn printf_comm_and_str_filename() {
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_o", "openat", "3", "/etc/hostname"]),
        r#"tracepoint:syscalls:sys_enter_openat /comm == "wl_o"/ { printf("%s opened %s\n", comm, str(args->filename)); }"#,
    ]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["wl_o opened /etc/hostname"; 3], "{}", o.describe());
}

#[test]
fn printf_missing_file_still_traced() {
    // A failing openat (-ENOENT) is still a sys_enter_openat; the exit side sees -2.
    require_tracepoints!();
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_o2", "openat", "2", "/nonexistent/sonde-e2e"]),
        r#"tracepoint:syscalls:sys_enter_openat /comm == "wl_o2"/ { printf("open %s\n", str(args->filename)); }
           tracepoint:syscalls:sys_exit_openat /comm == "wl_o2"/ { printf("ret %d\n", args->ret); }"#,
    ]);
    o.assert_ok();
    // Events from different CPUs may interleave: compare as a sorted list.
    let mut lines = o.lines();
    lines.sort();
    assert_eq!(
        lines,
        vec!["open /nonexistent/sonde-e2e", "open /nonexistent/sonde-e2e", "ret -2", "ret -2"],
        "{}",
        o.describe()
    );
}

#[test]
fn printf_widths_and_flags() {
    require_bpf!();
    let o = sonde(&[
        r#"BEGIN { printf("[%5d|%-5d|%05d|%x|%X|%o|%c|%s|%%]\n", 42, 42, 42, 255, 255, 8, 65, "hi"); exit(); }"#,
    ]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["[   42|42   |00042|ff|FF|10|A|hi|%]"], "{}", o.describe());
}

#[test]
fn printf_negative_and_64bit() {
    require_bpf!();
    let o = sonde(&[
        r#"BEGIN { printf("%d %d %u %x %s|%-4s|%4s\n", -1, 4294967296, 4294967295, 3735928559, "", "ab", "ab"); exit(); }"#,
    ]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["-1 4294967296 4294967295 deadbeef |ab  |  ab"], "{}", o.describe());
}

#[test]
fn printf_prints_narrow_integers_at_their_width() {
    require_bpf!();
    let o = sonde(&[
        r#"BEGIN { $a = (int32)-0x22334456; printf("%x %d %u %lx %x\n", $a, $a, $a, $a, (int64)-1); exit(); }"#,
    ]);
    o.assert_ok();
    assert_eq!(
        o.lines(),
        vec!["ddccbbaa -573785174 3721182122 ffffffffddccbbaa ffffffffffffffff"],
        "{}",
        o.describe()
    );
}

#[test]
fn arrays_pointers_and_resized_tuples_print_as_bpftrace_prints_them() {
    require_bpf!();
    let o = sonde(&[r#"BEGIN {
        @arr = (int16[2])(uint32)0x10002; @ptr = (int32 *)0x32; @ptr++;
        $v = 7; @s[(int8[])"hi"] = *(&$v);
        @t = ("a", 1); @t = ("longer", 2);
        exit(); }"#]);
    o.assert_ok();
    for want in ["@arr: [2,1]", "@ptr: 0x36", "@s[[104,105,0]]: 7", "@t: (longer, 2)"] {
        assert!(o.lines().contains(&want), "{want}\n{}", o.describe());
    }
}

#[test]
fn begin_then_end() {
    require_bpf!();
    let o = sonde(&[r#"BEGIN { printf("start\n"); exit(); } END { printf("end\n"); }"#]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["start", "end"], "{}", o.describe());
}

#[test]
fn end_runs_before_maps_are_printed() {
    require_bpf!();
    let o = sonde(&[r#"BEGIN { @x = count(); exit(); } END { printf("end\n"); }"#]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["end", "@x: 1"], "{}", o.describe());
}

#[test]
fn maps_print_sorted_by_name() {
    require_bpf!();
    let o =
        sonde(&[r#"BEGIN { @b = count(); @a = count(); @a = count(); @c = count(); exit(); }"#]);
    o.assert_ok();
    assert_eq!(o.lines(), vec!["@a: 2", "@b: 1", "@c: 1"], "{}", o.describe());
}

#[test]
fn interval_fires_periodically() {
    require_bpf!();
    let o = sonde(&["interval:100ms { @i = count(); } interval:1s { exit(); }"]);
    o.assert_ok();
    let i = o.int("@i");
    assert!((8..=11).contains(&i), "@i = {i}, want 8..=11\n{}", o.describe());
    assert!(o.elapsed.as_secs_f64() < 10.0, "{}", o.describe());
}

#[test]
fn conditions_in_predicates_if_and_ternary_count_exactly() {
    // Reads of 100 (x3), 5000 (x2) and 2000 (x4) bytes: each condition below has a known count.
    // Predicates, `if` and `?:` compile to jumps on the comparison itself (with immediates for
    // small constants, registers for others), so every shape is checked against the numbers.
    require_tracepoints!();
    let c = r#"comm == "wl_cond""#;
    let prog = format!(
        r#"{EXIT_READ} /{c} && args->ret > 1000/ {{ @big = count(); }}
        {EXIT_READ} /{c} && (args->ret < 200 || args->ret >= 5000)/ {{ @edge = count(); }}
        {EXIT_READ} /{c} && !(args->ret == 2000)/ {{ @not = count(); }}
        {EXIT_READ} /{c} && args->ret > -1 && args->ret < 0x100000000/ {{ @all = count(); }}
        {EXIT_READ} /{c} && !(args->ret != 100 && args->ret != 5000)/ {{ @demorgan = count(); }}
        {EXIT_READ} /{c}/ {{
            if (args->ret > 4999) {{ @hi = count(); }} else if (args->ret <= 100) {{ @lo = count(); }} else {{ @mid = count(); }}
            @t[args->ret > 1000 ? 1 : 0] = count();
            @b[args->ret >= 2000] = count();
            @v[(args->ret > 1000 && args->ret < 3000) || !(args->ret != 100)] = count();
        }}"#
    );
    let o = sonde(&[
        "-c",
        &wl(&["comm", "wl_cond", "read", "3", "100", "read", "2", "5000", "read", "4", "2000"]),
        &prog,
    ]);
    o.assert_ok();
    for (map, want) in [
        ("@big", 6),
        ("@edge", 5),
        ("@not", 5),
        ("@all", 9),
        ("@demorgan", 5),
        ("@hi", 2),
        ("@lo", 3),
        ("@mid", 4),
    ] {
        assert_eq!(o.scalar(map), want.to_string(), "{map}\n{}", o.describe());
    }
    assert_eq!(o.keyed("@t", "1"), "6", "{}", o.describe());
    assert_eq!(o.keyed("@t", "0"), "3", "{}", o.describe());
    assert_eq!(o.keyed("@b", "1"), "6", "{}", o.describe());
    assert_eq!(o.keyed("@b", "0"), "3", "{}", o.describe());
    // `&&`, `||` and `!` as values: 2000 and 100 are true, 5000 is not.
    assert_eq!(o.keyed("@v", "1"), "7", "{}", o.describe());
    assert_eq!(o.keyed("@v", "0"), "2", "{}", o.describe());
}

/// SIGUSR1 prints the maps and tracing goes on, as bpftrace's does.
#[test]
fn sigusr1_prints_the_maps() {
    require_bpf!();
    let mut run =
        Sonde::new(&["BEGIN { @begun = 7; @k[3] = 4; } interval:ms:50 { @ticks = count(); }"])
            .timeout(Duration::from_secs(30))
            .spawn();
    run.wait_attached();
    std::thread::sleep(Duration::from_millis(200));
    run.signal(libc::SIGUSR1);
    run.wait_stdout("@k[3]: 4", Duration::from_secs(10));
    run.signal(libc::SIGINT);
    let o = run.wait();
    o.assert_ok();
    // Once on SIGUSR1, once at the end.
    assert_eq!(o.stdout.matches("@begun: 7").count(), 2, "{}", o.describe());
}

/// A program of only BEGIN and END probes ends after BEGIN, as bpftrace's now does.
#[test]
fn begin_and_end_alone_end_at_once() {
    require_bpf!();
    let o = Sonde::new(&["BEGIN { printf(\"hi\\n\"); @n = 1; } END { printf(\"end\\n\"); }"])
        .timeout(Duration::from_secs(10))
        .run();
    o.assert_ok();
    assert_eq!(o.lines(), ["hi", "end", "@n: 1"], "{}", o.describe());
}
