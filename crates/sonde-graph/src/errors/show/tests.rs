use super::*;
use crate::errors::path::{ArgValue, Frame};
use crate::errors::program::Returns;

/// `openat("/nonexistent/dir/f")` as 6.12 fails it: the path walk's lookup finds no `dir`.
pub(crate) fn enoent() -> FailedCall {
    let frame = |name: &str, returns, result: i64, start_ns, duration_ns| Frame {
        name: name.into(),
        returns,
        result: result as u64,
        duration_ns,
        start_ns,
    };
    FailedCall {
        pid: 812,
        tid: 813,
        comm: "cat".into(),
        cpu: 1,
        frames: vec![
            frame("do_sys_openat2", Returns::Errno64, -2, 1_000_000, 25_140),
            frame("do_filp_open", Returns::Pointer, -2, 1_002_000, 21_007),
            frame("path_openat", Returns::Pointer, -2, 1_003_000, 18_500),
            frame("link_path_walk", Returns::Errno32, -2, 1_004_000, 9_000),
            frame("walk_component", Returns::Pointer, -2, 1_005_000, 4_000),
            frame("lookup_slow", Returns::Pointer, 0, 1_006_000, 1_002),
        ],
        args: vec![
            ArgValue { name: "dfd".into(), ty: "int".into(), text: "-100".into() },
            ArgValue {
                name: "filename".into(),
                ty: "const char *".into(),
                text: "\"/nonexistent/dir/f\"".into(),
            },
        ],
        unreturned: 0,
    }
}

#[test]
fn the_tree_names_the_function_the_failure_came_from() {
    let got = tree(&enoent(), 1);
    let want = "\
call 1: do_sys_openat2 failed with -ENOENT in cat-812 (tid 813), cpu 1, after 25.140 us
  do_sys_openat2(dfd=-100, filename=\"/nonexistent/dir/f\")
         total  result            function
     25.140 us  -ENOENT           do_sys_openat2
     21.007 us  ERR_PTR(-ENOENT)    do_filp_open
     18.500 us  ERR_PTR(-ENOENT)      path_openat
      9.000 us  -ENOENT                 link_path_walk
      4.000 us  ERR_PTR(-ENOENT)          walk_component
      1.002 us  NULL                        lookup_slow  <- the failure starts here
";
    assert_eq!(got, want, "\n{got}");
}

#[test]
fn folded_stacks_count_failures_by_path() {
    let mut f = Folded::new();
    fold(&mut f, &enoent());
    fold(&mut f, &enoent());
    assert_eq!(
        f.text(),
        "do_sys_openat2;do_filp_open;path_openat;link_path_walk;walk_component;lookup_slow_[NULL] 2\n"
    );
}

#[test]
fn the_record_is_valid_against_the_schema() {
    let schema = sonde_schema::Schema::records().unwrap_or_else(|e| panic!("{e}"));
    let r = record(&enoent(), 1).to_string();
    schema.check_line(&r).unwrap_or_else(|e| panic!("{e}\n{r}"));
    assert!(r.contains("\"origin\": \"lookup_slow\""), "{r}");
    assert!(r.contains("\"errno\": 2"), "{r}");
}
