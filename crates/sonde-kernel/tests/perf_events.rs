//! `interval:`: a PERF_EVENT program on a CPU-clock event.

mod common;

use sonde_kernel::attach::{attach_perf_event, PerfEventSpec};
use sonde_kernel::prog::ProgType;
use std::time::Duration;

#[test]
fn ten_ms_cpu_clock_fires_about_twenty_times_in_200_ms() {
    if common::skip_unless_root() {
        return;
    }
    let map = common::counter_map();
    let prog = common::counter(ProgType::PerfEvent, &map);
    let link = attach_perf_event(&prog, PerfEventSpec::cpu_clock(10_000_000, 0)).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    drop(link);
    let n = common::read_counter(&map);
    assert!((10..=30).contains(&n), "fired {n} times");
}
