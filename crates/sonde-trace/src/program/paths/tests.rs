use super::*;
use crate::fixtures::{fixtures, plan};
use crate::program::tests::compiles;
use crate::select::Selection;
use crate::syscalls::SyscallTable;

fn chosen(fds: Vec<(u32, i32)>) -> PathSet {
    PathSet { paths: vec!["/etc/hostname".into(), "/tmp/a \"b\"".into()], fds }
}

#[test]
fn each_syscall_compares_its_paths_and_its_fds() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sel = Selection::parse("openat,read,getpid", &t).unwrap();
    let p = Plan { paths: chosen(vec![(7, 3)]), ..plan(&t, &sel) };
    let text = compiles(&p);
    let both = r#"(str(args->filename, 15) == "/etc/hostname" || str(args->filename, 12) == "/tmp/a \"b\"")"#;
    assert!(text.contains(both), "{text}");
    assert!(text.contains("pf[pid, (int32)args->fd]"), "{text}");
    assert!(text.contains("pf[(uint32)7, (int32)3] = 1;"), "{text}");
    // getpid has neither: it is never chosen.
    let read = t.by_name("read").unwrap().nr;
    let getpid = t.by_name("getpid").unwrap().nr;
    assert!(text.contains(&format!("pk[{read}] = {};", 1 << FD)), "{text}");
    assert!(!text.contains(&format!("pk[{getpid}] =")), "{text}");
}

#[test]
fn every_syscall_looks_its_kinds_up() {
    let t = SyscallTable::load(&fixtures()).unwrap();
    let sel = Selection::everything(&t);
    for mode in [Mode::Lines, Mode::Summary] {
        let p = Plan { paths: chosen(vec![]), mode, ..plan(&t, &sel) };
        let text = compiles(&p);
        assert!(text.contains("$pk = pk[args->id]"), "{text}");
        assert!(text.contains("&& pp[tid]"), "{text}");
        // Only lines read a path again at the exit.
        assert_eq!(text.contains("print(6, tid)"), mode == Mode::Lines, "{text}");
    }
}
