use super::*;
use std::os::unix::fs::PermissionsExt;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sonde-file-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn names(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_complete_write_replaces_the_file_and_keeps_its_mode() {
    let d = dir("whole");
    let p = d.join("p.sh");
    std::fs::write(&p, "old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
    write_atomically(&p, |w| w.write_all(b"new")).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o751);
    assert_eq!(names(&d), ["p.sh"]);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let d = dir("failed");
    let p = d.join("f.svg");
    std::fs::write(&p, "old").unwrap();
    let e = write_atomically(&p, |w| {
        w.write_all(b"half")?;
        Err(io::Error::from_raw_os_error(libc_enospc()))
    })
    .unwrap_err();
    assert_eq!(e.to_string(), format!("cannot write {}: No space left on device", p.display()));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
    assert_eq!(names(&d), ["f.svg"]);
    // Nothing there before: nothing there after.
    let q = d.join("new.svg");
    assert!(write_atomically(&q, |_| Err(io::Error::other("no"))).is_err());
    assert_eq!(names(&d), ["f.svg"]);
    let _ = std::fs::remove_dir_all(d);
}

/// ENOSPC on Linux, without a libc dependency.
fn libc_enospc() -> i32 {
    28
}

#[test]
fn a_link_is_kept_and_its_file_replaced() {
    let d = dir("link");
    std::fs::write(d.join("real"), "old").unwrap();
    std::os::unix::fs::symlink("real", d.join("link")).unwrap();
    write_atomically(&d.join("link"), |w| w.write_all(b"new")).unwrap();
    assert!(std::fs::symlink_metadata(d.join("link")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(d.join("real")).unwrap(), "new");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_device_is_written_directly_and_never_replaced() {
    write_atomically(Path::new("/dev/null"), |w| w.write_all(b"x")).unwrap();
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
    let e = write_atomically(Path::new("/dev/full"), |w| w.write_all(&[0; 1 << 16])).unwrap_err();
    assert_eq!(e.to_string(), "cannot write /dev/full: No space left on device");
}

#[test]
fn writability_is_checked_without_touching_the_destination() {
    let d = dir("check");
    check_writable(&d.join("later.svg")).unwrap();
    assert!(names(&d).is_empty());
    let e = check_writable(&d.join("no/such/dir/x.svg")).unwrap_err();
    assert!(e.to_string().ends_with("No such file or directory"), "{e}");
    let _ = std::fs::remove_dir_all(d);
}
