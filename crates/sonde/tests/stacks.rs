//! bpftrace's stack calls on the running kernel: `kstack(3)` keeps three frames (stacks that
//! differ deeper are one key), `kstack(perf, N)` prints the address before the symbol,
//! `kstack(raw, N)` the address alone, `config = { stack_mode = ... }` sets the default, and
//! `len(kstack)` counts the frames printed.

mod common;

use common::{sonde, wl};

/// The frame lines of the stack key of map `name` (`@name[` ... `]: count`), and its count.
fn stack_key(stdout: &str, name: &str) -> Option<(Vec<String>, u64)> {
    let start = format!("{}[\n", name);
    let rest = &stdout[stdout.find(&start)? + start.len()..];
    let (frames, after) = rest.split_once("]: ")?;
    let count = after.lines().next()?.parse().ok()?;
    Some((frames.lines().map(|l| l.trim().to_string()).collect(), count))
}

#[test]
fn stack_limits_and_modes() {
    require_tracepoints!();
    let program = "tracepoint:syscalls:sys_enter_getppid /comm == \"wl_stacks\"/ { \
         @three[kstack(3)] = count(); @perf[kstack(perf, 2)] = count(); \
         @raw[kstack(raw, 1)] = count(); @all[kstack] = count(); \
         @len = len(kstack); @len2 = len(kstack(2)); }";
    let o = sonde(&["-c", &wl(&["comm", "wl_stacks", "getppid", "5"]), program]);
    o.assert_ok();
    let key =
        |name| stack_key(&o.stdout, name).unwrap_or_else(|| panic!("{name}: {}", o.describe()));
    // One key of 3 frames held all 5 calls; the whole stack is deeper.
    let (three, n) = key("@three");
    assert_eq!((three.len(), n), (3, 5), "{}", o.describe());
    let (all, _) = key("@all");
    assert!(all.len() > 3, "{}", o.describe());
    assert_eq!(three[..], all[..3], "{}", o.describe());
    // perf: the address, then the symbol bpftrace's mode prints.
    let (perf, _) = key("@perf");
    assert_eq!(perf.len(), 2, "{}", o.describe());
    for (line, sym) in perf.iter().zip(&all) {
        let (addr, name) = line.split_once(' ').unwrap_or_else(|| panic!("{line}"));
        assert!(u64::from_str_radix(addr, 16).is_ok_and(|a| a > 0), "{line}");
        assert_eq!(name, sym, "{}", o.describe());
    }
    // raw: the address alone, the same as perf's, unindented as bpftrace prints it.
    let (raw, _) = key("@raw");
    assert_eq!(raw, [perf[0].split_once(' ').unwrap().0], "{}", o.describe());
    assert!(o.stdout.contains(&format!("@raw[\n{}\n]", raw[0])), "{}", o.describe());
    // len(): the frames the same stack prints, and at most the limit.
    assert_eq!(o.int("@len"), all.len() as i64, "{}", o.describe());
    assert_eq!(o.int("@len2"), 2, "{}", o.describe());
}

#[test]
fn config_stack_mode_is_the_default() {
    require_tracepoints!();
    let program = "config = { stack_mode = raw } \
         tracepoint:syscalls:sys_enter_getppid /comm == \"wl_stacks\"/ { @[kstack(2)] = count(); }";
    let o = sonde(&["-c", &wl(&["comm", "wl_stacks", "getppid", "2"]), program]);
    o.assert_ok();
    let (frames, n) = stack_key(&o.stdout, "@").unwrap_or_else(|| panic!("{}", o.describe()));
    assert_eq!((frames.len(), n), (2, 2), "{}", o.describe());
    for f in &frames {
        assert!(u64::from_str_radix(f, 16).is_ok(), "{}", o.describe());
    }
}
