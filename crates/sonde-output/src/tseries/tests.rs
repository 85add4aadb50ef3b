use super::*;

fn series(points: &[(u64, Option<i64>)]) -> Series {
    let points = points.iter().map(|&(t, v)| (t, v.map(Value::int))).collect();
    Series { points, zone_secs: 0 }
}

const MS: u64 = 1_000_000;

#[test]
fn a_flat_line_is_drawn_in_the_middle_with_room_on_both_sides() {
    let s = series(&[(500 * MS, Some(9)), (600 * MS, Some(9))]);
    let want = "             8                                                  10
hh:mm:ss.ms  |___________________________________________________|
00:00:00.500 |                         *                         | 9
00:00:00.600 |                         *                         | 9
             v___________________________________________________v
             8                                                  10
";
    assert_eq!(graph(&s), want);
}

#[test]
fn zero_is_marked_when_the_range_spans_it_and_gaps_print_a_dash() {
    let s =
        series(&[(100 * MS, Some(-5)), (200 * MS, Some(0)), (300 * MS, None), (400 * MS, Some(5))]);
    let want = "             -5                                                  5
hh:mm:ss.ms  |___________________________________________________|
00:00:00.100 *                         .                         | -5
00:00:00.200 |                         *                         | 0
00:00:00.300 |                         .                         | -
00:00:00.400 |                         .                         * 5
             v___________________________________________________v
             -5                                                  5
";
    assert_eq!(graph(&s), want);
}

#[test]
fn whole_seconds_print_no_fraction_and_maps_print_each_key() {
    let s = series(&[(3_600_000_000_000, Some(1)), (3_601_000_000_000, Some(3))]);
    let text = tseries_map_text("@a", &[(vec![Value::str("k")], s)]);
    assert!(text.starts_with("@a[k]:\n"), "{text}");
    assert!(text.contains("\nhh:mm:ss |"), "{text}");
    assert!(text.contains("\n01:00:01 |"), "{text}");
    assert!(
        text.ends_with("v\n         1                                                   3\n\n"),
        "{text}"
    );
    assert_eq!(graph(&series(&[])), "<no data>\n");
}
