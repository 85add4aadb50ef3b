use super::*;
use crate::fixtures::fixtures;

fn stats(calls: u64, durations: &[u64], errnos: &[(i32, u64)]) -> Stats {
    let u = SQUARE_UNIT_NS;
    Stats {
        calls,
        total_ns: durations.iter().sum(),
        min_ns: *durations.iter().min().unwrap(),
        max_ns: *durations.iter().max().unwrap(),
        squares: durations.iter().map(|d| (d / u) * (d / u)).sum(),
        errnos: errnos.iter().copied().collect(),
    }
}

#[test]
fn stddev_in_percent_of_the_average() {
    assert_eq!(stats(2, &[1000, 1000], &[]).stddev_pct(), 0.0);
    // 1000 and 3000: average 2000, standard deviation 1000 (population) = 50%.
    assert!((stats(2, &[1000, 3000], &[]).stddev_pct() - 50.0).abs() < 0.01);
}

#[test]
fn threads_then_totals_sorted_by_time_with_errnos() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let mut s = Summary::default();
    s.rows.insert((10, 257), stats(2, &[1000, 3000], &[(2, 1)]));
    s.rows.insert((10, 39), stats(1, &[500], &[]));
    s.rows.insert((11, 257), stats(1, &[2_000_000], &[]));
    s.names.insert(10, "wl".into());
    let text = s.text(&t, true, SortBy::default());
    let wl = text.find(" wl (10), 3 events, 75.0%").expect(&text);
    let other = text.find(" ? (11), 1 events, 25.0%").expect(&text);
    let total = text.find(" total, 4 events").expect(&text);
    assert!(wl < other && other < total, "{text}");
    let total_openat = &text[total..].lines().find(|l| l.contains("openat")).unwrap().to_string();
    assert!(
        total_openat.contains("       3      1    2.004     0.001     0.668     2.000"),
        "{total_openat}"
    );
    assert!(text.contains("\t\t\tENOENT: 1"), "{text}");
    let first_row = text[wl..].lines().nth(5).unwrap();
    assert!(first_row.trim_start().starts_with("openat"), "sorted by total time: {text}");
    let j = s.json(&t);
    assert_eq!(j[0]["syscall"], "getpid");
    let schema = sonde_schema::Schema::records().unwrap();
    for row in &j {
        let record = sonde_output::Record::new(sonde_output::Type::TraceSummary, row.clone());
        schema.check_line(&record.to_string()).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(j
        .iter()
        .any(|r| r["syscall"] == "openat" && r["calls"] == 3 && r["errnos"]["ENOENT"] == 1));
}

#[test]
fn strace_s_table_in_the_columns_and_order_asked() {
    use super::strace::{parse_columns, parse_sortby};
    let t = SyscallTable::load(&fixtures()).unwrap();
    let mut s = Summary::default();
    s.rows.insert((10, 257), stats(2, &[1000, 3000], &[(2, 1)]));
    s.rows.insert((11, 257), stats(1, &[2_000_000], &[]));
    s.rows.insert((10, 39), stats(4, &[600, 600, 600, 600], &[]));
    let columns = parse_columns("calls,errors,time-percent,shortest,longest,avg-time").unwrap();
    let text = s.strace_text(&t, &columns, parse_sortby("count").unwrap());
    // 2.0064 ms in all: openat's 2.004 ms is 99.88%, its average 668 us.
    assert_eq!(
        text,
        "    calls    errors % time shortest  longest  usecs/call syscall\n\
         --------- --------- ------ -------- -------- ----------- ----------------\n\
         \x20       4             0.12 0.000001 0.000001           0 getpid\n\
         \x20       3         1  99.88 0.000001 0.002000         668 openat\n\
         --------- --------- ------ -------- -------- ----------- ----------------\n\
         \x20       7         1 100.00 0.000001 0.002000         286 total\n"
    );
    // Ties keep the syscalls' order; the name is the last column, whatever -U says.
    let text =
        s.strace_text(&t, &parse_columns("errors").unwrap(), parse_sortby("errors").unwrap());
    assert!(
        text.starts_with("   errors syscall\n--------- ----------------\n        1 openat\n"),
        "{text}"
    );
    assert_eq!(parse_columns("name,bogus").unwrap_err(), "-U: unknown column name: 'bogus'");
    assert!(parse_columns("calls,count").unwrap_err().contains("more than once"));
    assert_eq!(parse_sortby("bogus").unwrap_err(), "-S: invalid sortby: 'bogus'");
}
