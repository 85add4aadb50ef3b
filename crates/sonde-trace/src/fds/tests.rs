use super::*;

fn done<'a>(syscall: &'a str, args: &'a [u64; 6], path: Option<&'a str>, ret: i64) -> Done<'a> {
    Done { syscall, pid: 7, args, path, ret }
}

#[test]
fn opens_dups_and_closes() {
    let mut t = FdTable::default();
    let cloexec = libc::O_CLOEXEC as u64;
    t.opened(&done("openat", &[0, 0, cloexec, 0, 0, 0], Some("/etc/hostname"), 3), None);
    assert_eq!(t.get(7, 3), Some("/etc/hostname"));
    assert_eq!(t.get(8, 3), None, "another process");
    // A failed open names nothing, nor one whose path could not be copied.
    t.opened(&done("openat", &[0; 6], Some("/nope"), -2), None);
    t.opened(&done("openat", &[0; 6], Some(""), 5), None);
    assert_eq!(t.get(7, 5), None);
    t.opened(&done("dup", &[3, 0, 0, 0, 0, 0], None, 4), None);
    t.opened(&done("dup2", &[3, 9, 0, 0, 0, 0], None, 9), None);
    t.opened(&done("fcntl", &[3, libc::F_DUPFD_CLOEXEC as u64, 10, 0, 0, 0], None, 10), None);
    for fd in [4, 9, 10] {
        assert_eq!(t.get(7, fd), Some("/etc/hostname"), "fd {fd}");
    }
    // fcntl's other commands name nothing.
    t.opened(&done("fcntl", &[3, libc::F_GETFL as u64, 0, 0, 0, 0], None, 11), None);
    assert_eq!(t.get(7, 11), None);
    // A failed close keeps the name; a successful one forgets it.
    t.closed(&done("close", &[3, 0, 0, 0, 0, 0], None, -9));
    assert_eq!(t.get(7, 3), Some("/etc/hostname"));
    t.closed(&done("close", &[3, 0, 0, 0, 0, 0], None, 0));
    assert_eq!(t.get(7, 3), None);
    // exec drops the close-on-exec names (the openat's 3 is gone; dup's 4 and dup2's 9 stay).
    t.closed(&done("execve", &[0; 6], None, 0));
    assert_eq!(
        (t.get(7, 4), t.get(7, 9), t.get(7, 10)),
        (Some("/etc/hostname"), Some("/etc/hostname"), None)
    );
    t.closed(&done("exit_group", &[0; 6], None, 0));
    assert_eq!(t.get(7, 4), None);
}

#[test]
fn relative_paths_join_their_directory() {
    let mut t = FdTable::default();
    t.opened(&done("openat", &[0; 6], Some("./b/c"), 5), Some("/a"));
    t.opened(&done("open", &[0; 6], Some("d"), 6), Some("/"));
    assert_eq!((t.get(7, 5), t.get(7, 6)), (Some("/a/b/c"), Some("/d")));
    // dup of an fd never seen opened names nothing, and forgets what the target was.
    t.opened(&done("dup2", &[42, 5, 0, 0, 0, 0], None, 5), None);
    assert_eq!(t.get(7, 5), None);
}

#[test]
fn the_table_is_bounded() {
    let mut t = FdTable::default();
    for fd in 0..=MAX_FDS as i64 {
        t.opened(&done("open", &[0; 6], Some("/x"), fd), None);
    }
    assert!(t.names.len() <= MAX_FDS);
}
