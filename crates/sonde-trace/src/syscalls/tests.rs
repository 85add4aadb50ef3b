use super::*;
use crate::fixtures::{fixtures, Fixtures};
use std::path::PathBuf;

#[test]
fn arguments_are_named_from_the_format_files() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let openat = t.by_name("openat").unwrap();
    assert_eq!(openat.nr, 257);
    let names: Vec<&str> = openat.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["dfd", "filename", "flags", "mode"]);
    assert!(openat.args[1].is_string && !openat.args[0].is_string);
    assert!(openat.args[0].signed && openat.args[0].bytes == 4, "int dfd is a signed int");
    assert!(t.by_name("getpid").unwrap().args.is_empty());
    assert_eq!(t.get(0).unwrap().name, "read");
}

#[test]
fn a_kernel_without_syscall_tracepoints_is_said_in_a_sentence() {
    let empty = Fixtures(PathBuf::from("/nonexistent"));
    let e = SyscallTable::load(&empty).unwrap_err();
    assert!(e.to_string().starts_with("cannot list the syscall tracepoints"), "{e}");
}

#[test]
fn the_table_reads_back_from_its_text() {
    let t = SyscallTable::load(&crate::fixtures::fixtures()).unwrap();
    let again = SyscallTable::from_text(&t.to_text()).unwrap();
    assert_eq!(again.iter().collect::<Vec<_>>(), t.iter().collect::<Vec<_>>());
    assert!(SyscallTable::from_text("").is_none());
    assert!(SyscallTable::from_text("sonde syscall table 0\n1 write write\n").is_none());
    assert!(SyscallTable::from_text("sonde syscall table 1\n1 write write fd:x:i\n").is_none());
    assert!(SyscallTable::from_text("sonde syscall table 1\n").is_none());
}
