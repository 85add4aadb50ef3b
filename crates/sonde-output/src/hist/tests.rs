use super::*;

/// The bar column for `n` `@`s, padded like bpftrace's setw(52).
fn bar(n: usize) -> String {
    format!("|{}{}|", "@".repeat(n), " ".repeat(52 - n))
}

#[test]
fn quantize_index_convention() {
    assert_eq!(quantize_index(-5i64 as u64, true), 0);
    assert_eq!(quantize_index(-5i64 as u64, false), 65);
    assert_eq!(quantize_index(0, false), 1);
    assert_eq!(quantize_index(1, false), 2);
    assert_eq!(quantize_index(2, false), 3);
    assert_eq!(quantize_index(3, false), 3);
    assert_eq!(quantize_index(4, false), 4);
    assert_eq!(quantize_index(7, true), 4);
    assert_eq!(quantize_index(1023, false), 11);
    assert_eq!(quantize_index(1024, false), 12);
    assert_eq!(quantize_index(1 << 63, false), 65);
    assert_eq!(quantize_index(u64::MAX, false), 65);
}

#[test]
fn brief_example() {
    let lines = quantize_lines(&[(1, 1), (3, 13)]);
    assert_eq!(
        lines,
        [
            "[0]                    1 |@@@@                                                |",
            "[1]                    0 |                                                    |",
            "[2, 4)                13 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|",
        ]
    );
}

#[test]
fn quantize_labels_and_columns() {
    let lines = quantize_lines(&[(0, 3), (2, 7), (11, 1), (12, 2), (22, 1), (32, 1), (42, 1)]);
    let labels: Vec<&str> = lines.iter().map(|l| l[..16].trim_end()).collect();
    assert_eq!(labels[0], "(..., 0)");
    assert_eq!(labels[1], "[0]");
    assert_eq!(labels[2], "[1]");
    assert_eq!(labels[3], "[2, 4)");
    assert_eq!(labels[10], "[256, 512)");
    assert_eq!(labels[11], "[512, 1K)");
    assert_eq!(labels[12], "[1K, 2K)");
    assert_eq!(labels[22], "[1M, 2M)");
    assert_eq!(labels[32], "[1G, 2G)");
    assert_eq!(labels[42], "[1T, 2T)");
    assert_eq!(lines.len(), 43);
    assert_eq!(lines[0], format!("(..., 0)               3 {}", bar(22)));
    assert_eq!(lines[2], format!("[1]                    7 {}", bar(52)));
    // Every line has the same shape: 16 + 8 + " |" + 52 + "|".
    assert!(lines.iter().all(|l| l.len() == 79));
}

#[test]
fn quantize_top_buckets() {
    let lines = quantize_lines(&[(52, 1), (62, 2), (65, 4)]);
    assert_eq!(lines[0], format!("[1P, 2P)               1 {}", bar(13)));
    assert_eq!(lines[10], format!("[1E, 2E)               2 {}", bar(26)));
    assert_eq!(lines[13], format!("[8E, 16E)              4 {}", bar(52)));
    // Out-of-range indices are ignored; repeated ones add up.
    assert_eq!(
        quantize_lines(&[(66, 5), (1, 1), (1, 2)]),
        [format!("[0]                    3 {}", bar(52))]
    );
}

#[test]
fn wide_labels_and_counts_overflow_their_columns() {
    let lines = quantize_lines(&[(13, 123_456_789)]);
    assert_eq!(lines, [format!("[2K, 4K)        123456789 {}", bar(52))]);
    let lines = lhist_lines(1_000_000, 3_000_000, 1_000_000, &[(1, 1)]);
    assert_eq!(lines, [format!("[1000000, 2000000)       1 {}", bar(52))]);
}

#[test]
fn empty_histograms() {
    assert!(quantize_lines(&[]).is_empty());
    assert!(quantize_lines(&[(3, 0)]).is_empty());
    assert!(lhist_lines(0, 100, 10, &[]).is_empty());
    assert!(lhist_lines(0, 100, 0, &[(1, 1)]).is_empty());
}

#[test]
fn lhist_ranges() {
    // lhist(x, 0, 100, 10): n = 10 buckets plus below/above.
    let lines = lhist_lines(0, 100, 10, &[(0, 1), (1, 2), (3, 4), (11, 1)]);
    assert_eq!(
        lines,
        [
            format!("(..., 0)               1 {}", bar(13)),
            format!("[0, 10)                2 {}", bar(26)),
            format!("[10, 20)               0 {}", bar(0)),
            format!("[20, 30)               4 {}", bar(52)),
            format!("[30, 40)               0 {}", bar(0)),
            format!("[40, 50)               0 {}", bar(0)),
            format!("[50, 60)               0 {}", bar(0)),
            format!("[60, 70)               0 {}", bar(0)),
            format!("[70, 80)               0 {}", bar(0)),
            format!("[80, 90)               0 {}", bar(0)),
            format!("[90, 100)              0 {}", bar(0)),
            format!("[100, ...)             1 {}", bar(13)),
        ]
    );
    let lines = lhist_lines(-10, 10, 5, &[(2, 1)]);
    assert_eq!(lines, [format!("[-5, 0)                1 {}", bar(52))]);
    // Past n+1 is ignored.
    assert!(lhist_lines(0, 100, 10, &[(12, 1)]).is_empty());
}

#[test]
fn lhist_suffixes_follow_the_step() {
    // From bpftrace's tests/output.cpp: suffixes only when the step is a multiple of 1024.
    let b: Vec<(u32, u64)> = (1..=6).map(|i| (i, 1)).collect();
    let lines = lhist_lines(610000, 670000, 10000, &b);
    assert_eq!(lines[0], format!("[610000, 620000)       1 {}", bar(52)));
    assert_eq!(lines[3], format!("[640000, 650000)       1 {}", bar(52)));
    let lines = lhist_lines(0, 5 * 1024, 1024, &b[..5]);
    let labels: Vec<&str> = lines.iter().map(|l| l[..16].trim_end()).collect();
    assert_eq!(labels, ["[0, 1K)", "[1K, 2K)", "[2K, 3K)", "[3K, 4K)", "[4K, 5K)"]);
    let lines = lhist_lines(0, 4 << 20, 1 << 20, &[(0, 1), (2, 1), (5, 1)]);
    let labels: Vec<&str> = lines.iter().map(|l| l[..16].trim_end()).collect();
    assert_eq!(labels, ["(..., 0)", "[0, 1M)", "[1M, 2M)", "[2M, 3M)", "[3M, 4M)", "[4M, ...)"]);
}

#[test]
fn lhist_index_convention() {
    assert_eq!(lhist_index(-1, 0, 100, 10), 0);
    assert_eq!(lhist_index(0, 0, 100, 10), 1);
    assert_eq!(lhist_index(9, 0, 100, 10), 1);
    assert_eq!(lhist_index(10, 0, 100, 10), 2);
    assert_eq!(lhist_index(99, 0, 100, 10), 10);
    assert_eq!(lhist_index(100, 0, 100, 10), 11);
    assert_eq!(lhist_index(i64::MAX, 0, 100, 10), 11);
    assert_eq!(lhist_index(i64::MIN, 0, 100, 10), 0);
    // 7 does not divide 20: n = 2, and 14..20 share the top bucket with 20 and up.
    assert_eq!(lhist_index(13, 0, 20, 7), 2);
    assert_eq!(lhist_index(14, 0, 20, 7), 3);
}

#[test]
fn bucket_ranges_for_json() {
    let b = quantize_buckets(&[(0, 1), (4, 1), (65, 1)]);
    assert_eq!((b[0].min, b[0].max), (None, Some(-1)));
    assert_eq!((b[1].min, b[1].max), (Some(0), Some(0)));
    assert_eq!((b[2].min, b[2].max), (Some(1), Some(1)));
    assert_eq!((b[3].min, b[3].max), (Some(2), Some(3)));
    assert_eq!((b[4].min, b[4].max), (Some(4), Some(7)));
    assert_eq!(b.last().map(|b| (b.min, b.max)), Some((Some(1 << 63), Some(u64::MAX as i128))));
    let b = lhist_buckets(0, 100, 10, &[(0, 1), (11, 1)]);
    assert_eq!((b[0].min, b[0].max), (None, Some(-1)));
    assert_eq!((b[1].min, b[1].max), (Some(0), Some(9)));
    assert_eq!((b[11].min, b[11].max), (Some(100), None));
}

#[test]
fn fine_index_is_bpftraces_log2() {
    // bpftrace's own example: 225 (0b11100001) with k = 2 is 1 + 0b11011.
    assert_eq!(fine_index(225, false, 2), 28);
    assert_eq!(fine_index(-1i64 as u64, true, 3), 0);
    for v in 0..=7 {
        assert_eq!(fine_index(v, false, 3), v as u32 + 1);
    }
    assert_eq!(fine_index(8, false, 3), 9);
    assert_eq!(fine_index(16, false, 3), 17);
    assert_eq!(fine_index(17, false, 3), 17);
    assert_eq!(fine_index(18, false, 3), 18);
    assert_eq!(fine_index(u64::MAX, false, 5), (65 - 5) << 5);
    // k = 0 is hist()'s powers of two.
    for v in [0u64, 1, 2, 3, 4, 1023, 1024, 1 << 40, u64::MAX] {
        assert_eq!(fine_index(v, false, 0), quantize_index(v, false), "{v}");
    }
}

#[test]
fn fine_buckets_are_labelled_as_bpftrace_labels_them() {
    let counts: Vec<(u32, u64)> = (0..1024u64).map(|v| (fine_index(v, false, 3), 1)).collect();
    let buckets = fine_buckets(3, &counts);
    let at = |i: u32| buckets.iter().find(|b| b.index == i).unwrap();
    assert_eq!(
        (at(1).label.as_str(), at(1).min, at(1).max, at(1).count),
        ("[0]", Some(0), Some(0), 1)
    );
    assert_eq!((at(16).label.as_str(), at(16).min, at(16).max), ("[15]", Some(15), Some(15)));
    assert_eq!(
        (at(17).label.as_str(), at(17).min, at(17).max, at(17).count),
        ("[16, 18)", Some(16), Some(17), 2)
    );
    assert_eq!(
        (at(33).label.as_str(), at(33).min, at(33).max, at(33).count),
        ("[64, 72)", Some(64), Some(71), 8)
    );
    // The suffix follows the bucket's power of two, not the value: 1024 here is 2^7 * 8.
    let last = buckets.last().unwrap();
    assert_eq!((last.label.as_str(), last.min, last.max), ("[960, 1024)", Some(960), Some(1023)));
    let big = fine_buckets(2, &[(fine_index(5 << 20, false, 2), 1)]);
    assert_eq!(big[0].label, "[5M, 6M)");
    // k = 0 prints as hist().
    let q = [(0, 1), (1, 2), (2, 3), (5, 4), (12, 5)];
    assert_eq!(fine_buckets(0, &q), quantize_buckets(&q));
}
