//! `detach_all_in_background`: returns at once, the programs still go away, and the helper process
//! holds none of our other files (a pipeline reading our stdout must end when we do).
//! Its own binary, since it watches /proc/self/fd.

mod common;

use sonde_kernel::link::detach_all_in_background;
use sonde_kernel::prog::{self, ProgType};
use sonde_kernel::tracepoint::attach_tracepoint;
use std::time::{Duration, Instant};

#[test]
fn background_detach_returns_fast_and_the_programs_still_go_away() {
    if common::skip_unless_root() {
        return;
    }
    let fds_before = std::fs::read_dir("/proc/self/fd").unwrap().count();
    let (mut pipe_r, pipe_w) = std::io::pipe().unwrap();
    let map = common::counter_map();
    let prog = common::thread_counter(ProgType::Tracepoint, &map, common::gettid());
    let id = prog.id().unwrap();
    let links = vec![attach_tracepoint(&prog, common::getpid_id()).unwrap()];
    common::getpid_syscall(5);

    let t0 = Instant::now();
    detach_all_in_background(links);
    let took = t0.elapsed();
    assert!(took < Duration::from_millis(20), "took {took:?}");

    // The helper closed its copy of our pipe: with ours closed, the reader sees EOF soon.
    drop(pipe_w);
    let t0 = Instant::now();
    let mut buf = Vec::new();
    std::io::Read::read_to_end(&mut pipe_r, &mut buf).unwrap();
    assert!(t0.elapsed() < Duration::from_millis(20), "pipe held for {:?}", t0.elapsed());
    drop(pipe_r);

    drop(prog);
    drop(map);
    assert_eq!(std::fs::read_dir("/proc/self/fd").unwrap().count(), fds_before);
    let deadline = Instant::now() + Duration::from_secs(5);
    while prog::loaded_ids().unwrap().contains(&id) {
        assert!(Instant::now() < deadline, "program {id} still loaded");
        std::thread::sleep(Duration::from_millis(10));
    }
}
